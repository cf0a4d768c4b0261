import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore } from '../../src/core/blobs/fsBlobStore.js';
import { MemoryBlobStore } from '../../src/core/blobs/memoryBlobStore.js';
import { openVerified, putVerified } from '../../src/core/blobs/verifiedBlobs.js';
import { chunkCount, readVerified, verifyAll } from '../../src/core/integrity.js';
import { searchPattern } from '../../src/core/runs/patternSearch.js';
import { clearVerifiedChunks, verifiedChunkStats } from '../../src/core/verifiedChunks.js';
import { openStore } from './runs/helpers.js';

const REPO = path.resolve(__dirname, '..', '..');

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

/**
 * Chunks verified at write time (docs/contracts.md §1.1): the process that wrote a blob
 * marks every chunk verified under the identity of the file as written, so its first
 * search hashes nothing; another process, or any change of identity, hashes again.
 */
describe('verified-chunk cache: chunks verified at write time', () => {
  let dir: string;
  const key = { tenant: 't', runId: 'r1', callId: 'c1' };
  // 9 MiB (two lanes on a first page, §2.10) plus a tail; one NEEDLE in the second half.
  const content = Buffer.alloc(144 * 65536 + 1000, 'abcdefghij\n');
  content.write('NEEDLE', 100 * 65536 + 5);
  const chunks = chunkCount(content.length, 65536);
  const options = { pattern: 'NEEDLE', offset: 0, limit: 10, maxLineChars: 200, maxContentChars: 4000, budgetMs: 20_000, cutMarker: '…' };
  let store: FsBlobStore;
  let file: string;
  let expected: { sha256: string; byteCount: number; manifestDigest: string };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vchunks-written-'));
    clearVerifiedChunks();
    store = await FsBlobStore.open(path.join(dir, 'blobs'));
    const put = await putVerified(store, key, content);
    file = path.join(dir, 'blobs', 't', 'r1', 'c1');
    expected = { sha256: put.manifest.sha256, byteCount: put.manifest.byteCount, manifestDigest: put.manifestDigest };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const search = async (): Promise<number> => {
    const { source, manifest } = await openVerified(store, key, expected);
    return (await searchPattern(source, manifest, options)).totalMatches;
  };
  /**
   * The file's identity kept the `kept` fields of `before` and changed `changed`; the next
   * search fails as a digest mismatch and no write-time mark was used.
   */
  const caughtNext = async (before: fs.BigIntStats, kept: readonly ('dev' | 'ino' | 'size' | 'mtimeNs')[], changed: 'ino' | 'ctimeNs'): Promise<void> => {
    const after = fs.statSync(file, { bigint: true });
    assert.deepEqual(kept.map((k) => after[k]), kept.map((k) => before[k]));
    assert.notEqual(after[changed], before[changed]);
    await assert.rejects(search(), (e: Error & { code?: string }) => e.code === 'digestMismatch');
    assert.equal(verifiedChunkStats.skipped, 0, 'no mark applied to the changed file');
  };
  /**
   * Waits until a change to the file gets a later timestamp than its write did. Within the
   * same file-system timestamp tick a change keeps mtime and ctime (the race §1.1 accepts,
   * git's "racy" entries); kernels with fine-grained timestamps never need the wait.
   */
  const pastTheWriteTick = async (): Promise<void> => {
    const written = fs.statSync(file, { bigint: true }).ctimeNs;
    while (BigInt(Date.now()) * 1_000_000n <= written + 20_000_000n) await new Promise((r) => setTimeout(r, 5));
  };

  it('a search right after a capture hashes no chunk: the writer marked them all', async () => {
    const runsDir = path.join(dir, 'runs');
    const runs = await openStore(runsDir, { blobs: await FsBlobStore.open(path.join(runsDir, 'blobs')), offloadThresholdBytes: 1 });
    const run = await runs.startRun();
    async function* pieces(): AsyncGenerator<Uint8Array> { for (let p = 0; p < content.length; p += 1 << 20) yield content.subarray(p, p + (1 << 20)); }
    clearVerifiedChunks();
    const handle = (await run.recordStream('import_file', { path: 'big.log' }, pieces())).handle!;
    assert.deepEqual(verifiedChunkStats, { hashed: 0, skipped: 0 }, 'capture itself hashes while writing, not through the cache');
    const r = await runs.readToolOutput({ handle, pattern: 'NEEDLE' });
    assert.deepEqual([r.total_matches, r.matches![0]!.byte_offset], [1, 100 * 65536 + 5]);
    assert.deepEqual(verifiedChunkStats, { hashed: 0, skipped: chunks });
  });

  it('another process does not inherit the marks: its first search hashes every chunk', async function () {
    this.timeout(120_000);
    const src = (m: string): string => JSON.stringify(path.join(REPO, 'src', 'core', m));
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `
      const { FsBlobStore } = require(${src('blobs/fsBlobStore.ts')});
      const { openVerified } = require(${src('blobs/verifiedBlobs.ts')});
      const { searchPattern } = require(${src('runs/patternSearch.ts')});
      const { verifiedChunkStats } = require(${src('verifiedChunks.ts')});
      (async () => {
        const store = await FsBlobStore.open(${JSON.stringify(path.join(dir, 'blobs'))});
        const { source, manifest } = await openVerified(store, ${JSON.stringify(key)}, ${JSON.stringify(expected)});
        const r = await searchPattern(source, manifest, ${JSON.stringify(options)});
        process.stdout.write(JSON.stringify({ total: r.totalMatches, stats: verifiedChunkStats }));
        process.exit(0);
      })().catch((e) => { console.error(e); process.exit(1); });`], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(out), { total: 1, stats: { hashed: chunks, skipped: 0 } });
    // The writer's own marks still hold: reading the file changed no part of its identity.
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: 0, skipped: chunks });
  });

  it('a byte flipped after the write (mtime and ctime change) is caught by the next search', async () => {
    await pastTheWriteTick();
    const before = fs.statSync(file, { bigint: true });
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 3 * 65536);
    fs.closeSync(fd);
    await caughtNext(before, ['dev', 'ino', 'size'], 'ctimeNs');
  });

  it('a same-size rewrite with the written mtime restored to the nanosecond is caught (ctime changed)', async () => {
    const ref = `${file}.ref`;
    execFileSync('touch', ['-r', file, ref]);
    await pastTheWriteTick();
    const before = fs.statSync(file, { bigint: true });
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 100 * 65536 + 5);
    fs.closeSync(fd);
    execFileSync('touch', ['-r', ref, file]);
    await caughtNext(before, ['dev', 'ino', 'size', 'mtimeNs'], 'ctimeNs');
  });

  it('a file replaced by another of the same size with the written mtime restored is caught (inode and ctime changed)', async () => {
    const before = fs.statSync(file, { bigint: true });
    const other = Buffer.from(content);
    other.write('X', 100 * 65536 + 5);
    const replacement = `${file}.new`;
    fs.writeFileSync(replacement, other);
    execFileSync('touch', ['-r', file, replacement]);
    fs.renameSync(replacement, file);
    await caughtNext(before, ['dev', 'size', 'mtimeNs'], 'ino');
  });

  it('Verify and a range read still re-hash every chunk they cover right after the write', async () => {
    const { source, manifest } = await openVerified(store, key, expected);
    assert.equal(await verifyAll(source, manifest), true);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0 });
    assert.equal(Buffer.from(await readVerified(source, manifest, 100 * 65536 + 5, 100 * 65536 + 11)).toString(), 'NEEDLE');
    assert.deepEqual(verifiedChunkStats, { hashed: chunks + 1, skipped: 0 });
  });

  it('a store that reports no file identity (memory, S3) marks nothing', async () => {
    const memory = new MemoryBlobStore();
    const put = await putVerified(memory, key, content);
    const { source, manifest } = await openVerified(memory, key, { sha256: put.manifest.sha256, byteCount: put.manifest.byteCount, manifestDigest: put.manifestDigest });
    assert.equal((await searchPattern(source, manifest, options)).totalMatches, 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0 });
  });
});
