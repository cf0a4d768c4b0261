import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore } from '../../src/core/blobs/fsBlobStore.js';
import { openVerified, putVerified } from '../../src/core/blobs/verifiedBlobs.js';
import { chunkCount, verifyAll } from '../../src/core/integrity.js';
import { searchPattern } from '../../src/core/runs/patternSearch.js';
import { clearVerifiedChunks, verifiedChunkStats } from '../../src/core/verifiedChunks.js';

/** The verified-chunk cache over a real file (docs/contracts.md §1.1, §2.10). */
describe('verified-chunk cache', () => {
  let dir: string;
  let store: FsBlobStore;
  const key = { tenant: 't', runId: 'r1', callId: 'c1' };
  // 20 chunks of 64 KiB plus a tail; one NEEDLE in chunk 10.
  const content = Buffer.alloc(20 * 65536 + 1000, 'abcdefghij\n');
  content.write('NEEDLE', 10 * 65536 + 5);
  const chunks = chunkCount(content.length, 65536);
  let file: string;
  let open: () => ReturnType<typeof openVerified>;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vchunks-'));
    store = await FsBlobStore.open(dir);
    const put = await putVerified(store, key, content);
    file = path.join(dir, 't', 'r1', 'c1');
    // A whole-second mtime, so restoring it later restores it to the nanosecond.
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    open = () => openVerified(store, key, { sha256: put.manifest.sha256, byteCount: put.manifest.byteCount, manifestDigest: put.manifestDigest });
    clearVerifiedChunks();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const search = async (pattern = 'NEEDLE'): Promise<number> => {
    const { source, manifest } = await open();
    const r = await searchPattern(source, manifest, { pattern, offset: 0, limit: 10, maxLineChars: 200, maxContentChars: 4000, budgetMs: 5000, cutMarker: '…' });
    return r.totalMatches;
  };
  /** Flips one byte in place (same size), then sets mtime back to what it was (ctime moves on). */
  const flipKeepingMtime = (at: number): void => {
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from([content[at]! ^ 1]), 0, 1, at);
    fs.closeSync(fd);
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
  };

  it('a repeated search hashes no chunk again while the file identity holds', async () => {
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0 });
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: chunks });
  });

  it('a byte flipped (mtime and ctime change) is caught by the next search', async () => {
    assert.equal(await search(), 1);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 3 * 65536);
    fs.closeSync(fd);
    await assert.rejects(search(), (e: Error & { code?: string }) => e.code === 'digestMismatch');
    assert.equal(verifiedChunkStats.skipped, 0);
  });

  it('a same-size rewrite with the old mtime restored is caught by the next search (ctime changed)', async () => {
    assert.equal(await search(), 1);
    const before = fs.statSync(file, { bigint: true });
    flipKeepingMtime(7 * 65536);
    const after = fs.statSync(file, { bigint: true });
    assert.equal(after.size, before.size);
    assert.equal(after.mtimeNs, before.mtimeNs);
    assert.notEqual(after.ctimeNs, before.ctimeNs);
    await assert.rejects(search(), (e: Error & { code?: string }) => e.code === 'digestMismatch');
  });

  it('Verify re-hashes every byte even with a warm cache', async () => {
    assert.equal(await search(), 1);
    const { source, manifest } = await open();
    const hashedBefore = verifiedChunkStats.hashed;
    assert.equal(await verifyAll(source, manifest), true);
    assert.equal(verifiedChunkStats.hashed - hashedBefore, chunks, 'Verify hashed every chunk');
    assert.equal(verifiedChunkStats.skipped, 0);
    // Out of the cache's threat model (docs/contracts.md §1.1): a byte changes while size,
    // mtime and ctime all read as before. ctime cannot be restored from user space, so the
    // store is made to report the pre-change identity: the cached search then skips the
    // flipped chunk and misses the needle (documented), while Verify re-hashes and catches it.
    const realIdentity = store.identity.bind(store);
    const frozen = await realIdentity(key);
    flipKeepingMtime(10 * 65536 + 5);
    store.identity = async () => frozen;
    const realOpen = store.openFile.bind(store);
    store.openFile = async (k) => {
      const f = (await realOpen(k))!;
      return { ...f, stat: async () => ({ identity: frozen!, size: (await f.stat()).size }) };
    };
    assert.equal(await search(), 0, 'the cached search trusts the unchanged identity and misses the flipped needle');
    assert.equal(await verifyAll(source, manifest), false, 'Verify re-hashes and catches it');
  });
});
