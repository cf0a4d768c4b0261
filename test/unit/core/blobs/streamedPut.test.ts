/**
 * The memory of a capture, in small: a streamed verified put keeps its chunk tables on disk
 * past `heldChunks` chunks and streams the sidecar from them, byte for byte the sidecar
 * `encodeManifest` makes from the whole manifest (docs/contracts.md §2.10, "Memory of a
 * capture"); the builder's tables drained piecewise are the tables it would have kept; the
 * verified-chunk cache stays bounded in bytes (§1.1). The 10 GiB run is
 * test/unit/core/runs/captureMemory.test.ts.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { manifestKeyOf, putVerifiedStream } from '../../../../src/core/blobs/verifiedBlobs.js';
import { readRange } from '../../../../src/core/blobs/blobStore.js';
import {
  encodeManifest,
  ManifestBuilder,
  manifestDigest,
  manifestOf,
  type Manifest,
} from '../../../../src/core/integrity/integrity.js';
import {
  clearVerifiedChunks,
  lookupVerified,
  rememberVerified,
  rememberWritten,
  verifiedChunkMemory,
} from '../../../../src/core/integrity/verifiedChunks.js';

/** 10 chunks of 64 KiB and 1,000 bytes, not repeating (each 32-byte block its own digest), lines every so often. */
function content(): Buffer {
  const out = Buffer.alloc(10 * 65536 + 1000);
  for (let i = 0, block = 0; i < out.length; i += 32, block++)
    createHash('sha256').update(String(block)).digest().copy(out, i);
  for (let i = 77; i < out.length; i += 313) out[i] = 10;
  return out;
}

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let p = 0; p < bytes.length; p += size) yield bytes.subarray(p, Math.min(p + size, bytes.length));
}

describe('streamed verified put: chunk tables kept on disk', () => {
  let dir: string;
  const key = { tenant: 't', runId: 'r1', callId: 'c1' };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'streamed-put-'));
    clearVerifiedChunks();
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    clearVerifiedChunks();
  });

  for (const held of [1, 3, 10, 11, 1000]) {
    it(`holding ${held} chunk(s) at most: the sidecar is encodeManifest's, byte for byte; nothing is left beside the blob`, async () => {
      const bytes = content();
      const whole = manifestOf(bytes);
      const expected = encodeManifest(whole);
      const store = await FsBlobStore.open(dir, { sweep: false });
      const put = await putVerifiedStream(store, key, pieces(bytes, 50_001), { heldChunks: held });
      assert.deepEqual(put.summary, {
        byteCount: bytes.length,
        sha256: whole.sha256,
        chunkSize: 65536,
        utf8: false,
        chunks: 11,
        newlines: bytes.reduce((n, x) => n + (x === 10 ? 1 : 0), 0),
      });
      assert.equal(put.manifestDigest, manifestDigest(whole));
      const sidecar = await readRange(store, manifestKeyOf(key), 0, expected.length + 1);
      assert.equal(Buffer.compare(Buffer.from(sidecar), Buffer.from(expected)), 0);
      assert.deepEqual(Buffer.from(await readRange(store, key, 0, bytes.length + 1)).equals(bytes), true);
      // The scratch files were unlinked at once: only the blob and its sidecar are in the folder.
      assert.deepEqual(fs.readdirSync(path.join(dir, 't', 'r1')).sort(), ['c1', 'c1._manifest']);
      // The writer's chunks are verified (held as a count), as putVerified's are.
      const identity = await store.identity(key);
      const bits = lookupVerified(identity!, whole);
      assert.deepEqual(bits && Array.from(bits), [0xff, 0x07]);
      assert.equal(verifiedChunkMemory().bitsBytes, 0);
    });
  }

  it('a store with no folder of its own (memory) keeps the tables in the temporary folder: the same sidecar', async () => {
    const bytes = content();
    const store = new MemoryBlobStore();
    const put = await putVerifiedStream(store, key, pieces(bytes, 65536), { heldChunks: 2 });
    assert.equal(
      Buffer.compare(
        Buffer.from(await readRange(store, manifestKeyOf(key), 0, 1 << 20)),
        Buffer.from(encodeManifest(manifestOf(bytes))),
      ),
      0,
    );
    assert.equal(put.manifestDigest, manifestDigest(manifestOf(bytes)));
  });

  it('the builder: tables drained as they fill are the tables finish() returns; with tables: false none are kept', () => {
    const bytes = content();
    const whole = manifestOf(bytes);
    const b = new ManifestBuilder();
    const digests: Buffer[] = [];
    const newlines: number[] = [];
    for (let p = 0; p < bytes.length; p += 100_000) {
      b.update(bytes.subarray(p, p + 100_000));
      const t = b.drainTables();
      digests.push(Buffer.from(t.digests));
      newlines.push(...t.newlines);
    }
    const s = b.end();
    const t = b.drainTables();
    digests.push(Buffer.from(t.digests));
    newlines.push(...t.newlines);
    assert.equal(Buffer.concat(digests).equals(Buffer.from(whole.chunkDigests)), true);
    assert.deepEqual(newlines, Array.from(whole.chunkNewlines));
    assert.deepEqual(b.end(), s);
    assert.throws(() => b.finish(), /the manifest's tables were not kept/);
    const none = new ManifestBuilder(65536, { tables: false });
    none.update(bytes);
    assert.deepEqual(none.end(), s);
    assert.equal(none.heldChunks, 0);
  });

  it('the verified-chunk cache: a whole file costs no bits whatever its size; partial bitsets stay within 2 MiB', async () => {
    // A 10 GiB file's manifest (163,840 chunks): verified whole, it is held as its count.
    const chunks = 163_840;
    const big: Manifest = {
      byteCount: chunks * 65536,
      sha256: '0'.repeat(64),
      chunkSize: 65536,
      chunkDigests: new Uint8Array(chunks * 32),
      chunkNewlines: new Uint32Array(chunks),
      utf8: true,
    };
    await rememberWritten('1:2:3:4:5', big);
    assert.deepEqual(verifiedChunkMemory(), { files: 1, bitsBytes: 0 });
    assert.equal(lookupVerified('1:2:3:4:5', big)!.length, chunks / 8);
    // 200 files each with half their chunks verified: 20 KiB of bits each would be 4 MiB.
    const half = new Uint8Array(chunks / 8).fill(0x55);
    for (let i = 0; i < 200; i++) await rememberVerified(`9:${i}:3:4:5`, big, half);
    const held = verifiedChunkMemory();
    assert.ok(held.bitsBytes <= 2 * 1024 * 1024, `${held.bitsBytes} bytes of bits held`);
    assert.equal(held.bitsBytes, (held.files - (lookupVerified('1:2:3:4:5', big) ? 1 : 0)) * half.length);
    // The newest are kept, the oldest dropped.
    assert.deepEqual(
      lookupVerified('9:199:3:4:5', big) && Array.from(lookupVerified('9:199:3:4:5', big)!.subarray(0, 2)),
      [0x55, 0x55],
    );
    assert.equal(lookupVerified('9:0:3:4:5', big), undefined);
  });
});
