/**
 * Artifacts (docs/contracts.md §1.1, §2.8, §2.9): identity records, and the store as
 * content-addressed keys of the blob store, run over each adapter (memory, filesystem, S3 on
 * a real s3rver); then what only a filesystem store has (its layout, a FIFO, a killed writer,
 * marks) and the upgrade from the old `evidence/artifacts/<tenant>/artifact-<sha>` layout.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { makeArtifactRef } from '../../../../src/core/artifacts/artifactRef.js';
import { ArtifactStore } from '../../../../src/core/artifacts/artifacts.js';
import type { BlobKey } from '../../../../src/core/blobs/blobKey.js';
import { readRange as readBlob, type BlobStore } from '../../../../src/core/blobs/blobStore.js';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { S3BlobStore } from '../../../../src/core/blobs/s3BlobStore.js';
import { BoundedEvidenceWorkspace } from '../../../../src/core/workspace/evidenceWorkspace.js';
import { encodeManifest, manifestDigest, manifestOf } from '../../../../src/core/integrity/integrity.js';
import { clearVerifiedChunks, verifiedChunkStats } from '../../../../src/core/integrity/verifiedChunks.js';
import { VERIFIED_MARKS_FILE } from '../../../../src/core/integrity/verifiedMarks.js';
import { startS3Server, type S3Server } from '../blobs/s3Fixture.js';
import { ScriptedWorkspace, sha256hex, tempDir } from '../evidence/helpers.js';
import { CountingStore } from '../runs/helpers.js';

const ID_RE = /artifact id/;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const DIGEST = /^EvidenceError: artifact digest does not match its recorded identity$/;
const NOT_AVAILABLE = /^EvidenceError: artifact is not available in this store$/;

/** Bytes 0..n-1 of a deterministic pattern with newlines, as a Uint8Array. */
function pattern(n: number, seed = 0): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i + seed) % 61 === 60 ? 10 : 65 + ((i * 7 + seed) % 26);
  return out;
}

describe('artifacts: identity records (1.1)', () => {
  const sha = sha256hex('hello');
  const id = `artifact-${sha}`;

  it('builds a record whose id is "artifact-" + sha256', () => {
    assert.deepEqual(makeArtifactRef(id, 5, sha), { artifactId: id, byteCount: 5, sha256: sha });
    assert.deepEqual(makeArtifactRef(`artifact-${sha256hex('')}`, 0, sha256hex('')).byteCount, 0);
  });

  it('rejects a malformed id with "artifact id", checked before anything else', () => {
    for (const bad of [
      '',
      sha,
      `artifact-${sha.toUpperCase()}`,
      `artifact-${sha}0`,
      `artifact-${sha.slice(1)}`,
      ` ${id}`,
      `${id}\n`,
      42,
      null,
    ]) {
      assert.throws(
        () => makeArtifactRef(bad, 5, sha),
        (e: Error) => ID_RE.test(e.message) && !/must match/.test(e.message),
      );
    }
    // Also a bad count, a bad digest and a mismatch: the id is still what is reported.
    assert.throws(() => makeArtifactRef('artifact-XYZ', -1, 'nope'), ID_RE);
  });

  it('rejects a bad byte count with "byte count", before the digest', () => {
    for (const bad of [-1, 1.5, Number.NaN, Infinity, 2 ** 53, '5', null]) {
      assert.throws(
        () => makeArtifactRef(id, bad, sha),
        (e: Error) => /byte count/.test(e.message) && !ID_RE.test(e.message),
      );
    }
    assert.throws(() => makeArtifactRef(id, -1, 'nope'), /byte count/);
  });

  it('rejects a bad digest with "digest", before the match', () => {
    for (const bad of [sha.toUpperCase(), sha.slice(1), `${sha}0`, '', 7]) {
      assert.throws(
        () => makeArtifactRef(id, 5, bad),
        (e: Error) => /digest/.test(e.message) && !/must match/.test(e.message) && !ID_RE.test(e.message),
      );
    }
  });

  it('rejects an id that does not match its digest with "must match"', () => {
    const other = sha256hex('other');
    assert.throws(
      () => makeArtifactRef(id, 5, other),
      (e: Error) => /must match/.test(e.message) && !ID_RE.test(e.message) && !/digest/.test(e.message),
    );
  });
});

const NOT_AVAILABLE_TEXT = 'artifact is not available in this store';

/** One adapter under the artifact store: a fresh empty blob store per test. */
interface Backend {
  readonly name: string;
  make(): Promise<{ blobs: BlobStore; cleanup(): Promise<void> }>;
}

const keyOf = (id: string, tenant = 't'): BlobKey => ({
  tenant,
  runId: 'artifacts',
  callId: id.slice('artifact-'.length),
});
const sidecarOf = (id: string, tenant = 't'): BlobKey => ({
  ...keyOf(id, tenant),
  callId: `${id.slice('artifact-'.length)}._manifest`,
});

/** Replaces the stored bytes of an artifact behind the store's back (through the adapter itself). */
async function tamper(blobs: BlobStore, id: string, change: (b: Uint8Array) => Uint8Array): Promise<void> {
  const key = keyOf(id);
  const size = (await blobs.size(key))!;
  await blobs.put(key, change(Uint8Array.from(await readBlob(blobs, key, 0, size))));
}

let s3: S3Server | undefined;
let s3Prefix = 0;
const backends: Backend[] = [
  { name: 'memory', make: async () => ({ blobs: new MemoryBlobStore(), cleanup: async () => undefined }) },
  {
    name: 'filesystem',
    make: async () => {
      const t = tempDir('artifacts');
      return { blobs: await FsBlobStore.open(t.dir, { sweep: false }), cleanup: async () => t.cleanup() };
    },
  },
  {
    name: 's3',
    make: async () => {
      s3 ??= await startS3Server();
      const blobs = new S3BlobStore({
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        prefix: `artifacts-${++s3Prefix}`,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        partSizeBytes: 5 * 1024 * 1024,
      });
      return { blobs, cleanup: async () => blobs.dispose() };
    },
  },
];
after(async () => {
  await s3?.close();
  s3 = undefined;
});

for (const backend of backends) {
  describe(`artifacts: the store over the ${backend.name} blob store (1.1, 2.8)`, function () {
    let blobs: BlobStore;
    let cleanup: () => Promise<void>;
    /** A store as a process opens it (nothing in memory), over the same blob store. */
    const open = (tenant = 't', chunkSize?: number): ArtifactStore =>
      new ArtifactStore({ blobs, tenant, ...(chunkSize !== undefined && { chunkSize }) });
    beforeEach(async () => {
      ({ blobs, cleanup } = await backend.make());
      clearVerifiedChunks();
    });
    afterEach(async () => {
      await cleanup();
    });

    it('stores the exact bytes under <tenant>/artifacts/<sha256>, its manifest beside them', async () => {
      const store = open();
      const text = 'héllo 😀 wörld\n';
      const bytes = enc(text);
      const ref = await store.put(text);
      assert.deepEqual(ref, {
        artifactId: `artifact-${sha256hex(bytes)}`,
        byteCount: bytes.length,
        sha256: sha256hex(bytes),
      });
      assert.deepEqual(Buffer.from(await readBlob(blobs, keyOf(ref.artifactId), 0, 100)), Buffer.from(bytes));
      assert.deepEqual(
        Buffer.from(await readBlob(blobs, sidecarOf(ref.artifactId), 0, 10_000)),
        Buffer.from(encodeManifest(manifestOf(bytes))),
      );
      assert.deepEqual(await open().readRange(ref.artifactId, 0, bytes.length), bytes);
      assert.deepEqual(await store.manifestFor(ref.artifactId), {
        manifest: manifestOf(bytes),
        manifestDigest: manifestDigest(manifestOf(bytes)),
      });
    });

    it('encodes text as TextEncoder does, keeps invalid UTF-8 raw, and stores an empty result', async () => {
      const store = open();
      const surrogate = await store.put('a\uD800b');
      assert.deepEqual(
        [...(await store.readRange(surrogate.artifactId, 0, surrogate.byteCount))],
        [0x61, 0xef, 0xbf, 0xbd, 0x62],
      );
      const binary = Uint8Array.of(0xff, 0xfe, 0x00, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x9f);
      const b = await store.put(binary);
      assert.deepEqual(b, makeArtifactRef(`artifact-${sha256hex(binary)}`, 10, sha256hex(binary)));
      assert.deepEqual(await open().readRange(b.artifactId, 3, 5), Uint8Array.of(0xc3, 0x28));
      const empty = await store.put('');
      assert.deepEqual(empty, makeArtifactRef(`artifact-${sha256hex('')}`, 0, sha256hex('')));
      assert.equal(await open().verify(empty.artifactId), true);
      await assert.rejects(
        store.readRange(empty.artifactId, 0, 1),
        /^EvidenceError: artifact range exceeds the stored byte count$/,
      );
      assert.deepEqual(await open().refOf(empty.artifactId), empty);
    });

    it('putStream gives the record put gives, whatever the piece sizes (property), and one copy', async () => {
      const store = open('t', 1024);
      const data = pattern(20_000, 3);
      const whole = await store.put(data);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 12 }), async (cuts) => {
          async function* pieces(): AsyncGenerator<Uint8Array> {
            let p = 0;
            for (const c of cuts) {
              yield data.subarray(p, Math.min(p + c, data.length));
              p = Math.min(p + c, data.length);
            }
            yield data.subarray(p);
          }
          assert.deepEqual(await store.putStream(pieces()), whole);
        }),
        { numRuns: backend.name === 's3' ? 8 : 30 },
      );
      assert.deepEqual(
        await open('t', 1024).readRange(whole.artifactId, 19_000, 20_000),
        data.subarray(19_000, 20_000),
      );
      assert.equal(await open().verify(whole.artifactId), true);
    });

    it('rejects what is not text or bytes and a stream that fails, leaving nothing under the id', async () => {
      const store = open();
      await assert.rejects(store.put(42 as unknown as string), TypeError);
      await assert.rejects(
        store.putStream(
          (async function* () {
            yield 'text' as unknown as Uint8Array;
          })(),
        ),
        TypeError,
      );
      const data = pattern(2_000_000);
      await assert.rejects(
        store.putStream(
          (async function* () {
            yield data;
            throw new Error('source broke');
          })(),
        ),
        /source broke/,
      );
      const id = `artifact-${sha256hex(data)}`;
      assert.equal(await blobs.size(keyOf(id)), undefined);
      await assert.rejects(store.readRange(id, 0, 1), NOT_AVAILABLE);
    });

    it('is safe when many promises put the same bytes at once, across two store instances', async () => {
      const one = open();
      const two = open();
      const data = pattern(300_000);
      const refs = await Promise.all([
        ...Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).put(data)),
        ...Array.from({ length: 4 }, (_, i) =>
          (i % 2 ? one : two).putStream(
            (async function* () {
              for (let p = 0; p < data.length; p += 70_001) yield data.subarray(p, p + 70_001);
            })(),
          ),
        ),
      ]);
      for (const r of refs) assert.deepEqual(r, refs[0]);
      assert.equal(refs[0]!.sha256, sha256hex(data));
      assert.deepEqual(await open().readRange(refs[0]!.artifactId, 123_456, 130_000), data.subarray(123_456, 130_000));
      assert.equal(await two.verify(refs[0]!.artifactId), true);
    });

    it('returns the exact bytes of any range (property)', async () => {
      const data = pattern(10_000, 1);
      const ref = await open('t', 1000).put(data);
      const store = open();
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 9_999 }), fc.integer({ min: 1, max: 3000 }), async (s, len) => {
          const e = Math.min(10_000, s + len);
          assert.deepEqual(await store.readRange(ref.artifactId, s, e), data.subarray(s, e));
        }),
        { numRuns: backend.name === 's3' ? 40 : 200 },
      );
    });

    it("fails in the contract's order: id, range, availability, digest, stored count", async () => {
      const data = pattern(10_000, 1);
      const ref = await open().put(data);
      const store = open();
      const unknown = `artifact-${sha256hex('never put')}`;
      await assert.rejects(store.readRange('artifact-nope', 5, 5), /^EvidenceError: artifact id is invalid$/);
      await assert.rejects(
        store.readRange(unknown, 5, 5),
        /^EvidenceError: artifact range must satisfy 0 <= start < end$/,
      );
      for (const [s, e] of [
        [6, 5],
        [-1, 5],
        [0.5, 5],
        [0, 2 ** 53],
        [0, Infinity],
        [Number.NaN, 1],
      ] as const) {
        await assert.rejects(store.readRange(ref.artifactId, s, e), /0 <= start < end/);
      }
      await assert.rejects(store.readRange(unknown, 0, 1e9), NOT_AVAILABLE);
      await assert.rejects(
        store.readRange(ref.artifactId, 9_000, 10_001),
        /^EvidenceError: artifact range exceeds the stored byte count$/,
      );
      await tamper(blobs, ref.artifactId, (b) => Buffer.concat([b, Buffer.from('x')]));
      // A changed size is reported before the range is compared with the count.
      await assert.rejects(store.readRange(ref.artifactId, 9_000, 10_001), DIGEST);
      await assert.rejects(open().readRange(ref.artifactId, 0, 1), DIGEST);
    });

    it("refuses forged ids with the contract's sentences: never a storage address from the model", async () => {
      const a = open('a');
      const b = open('b');
      const ref = await a.put('tenant a only');
      const sha = ref.sha256;
      const forged = [
        'artifact-../x',
        `artifact-${sha.toUpperCase()}`,
        `artifact-${sha.slice(1)}`,
        `artifact-${sha}0`,
        `artifact-../../a/artifacts/${sha}`,
        `artifact-${sha}/../x`,
        sha,
        `ARTIFACT-${sha}`,
        '',
      ];
      for (const id of forged) {
        await assert.rejects(b.readRange(id, 0, 1), /^EvidenceError: artifact id is invalid$/, id);
        await assert.rejects(b.refOf(id), /^EvidenceError: artifact id is invalid$/, id);
        await assert.rejects(
          b.openRecorded({ artifactId: id, byteCount: 13, sha256: sha }, 'f'.repeat(64)),
          /artifact id is invalid/,
          id,
        );
      }
      // Another tenant's id is well-formed, and not available to this tenant: its key is under `a`.
      await assert.rejects(b.readRange(ref.artifactId, 0, 1), NOT_AVAILABLE);
      await assert.rejects(b.openRecorded(ref, manifestDigest(manifestOf(enc('tenant a only')))), NOT_AVAILABLE);
      assert.equal(await b.delete(ref.artifactId), undefined);
      // The model's range path: the same sentences as `error:` replies (docs/contracts.md §1.3).
      const ws = new BoundedEvidenceWorkspace(new ScriptedWorkspace(() => 'never'), b);
      assert.equal(
        await ws.execute({ tool: 'read_file', arguments: { path: `.tool-artifacts/${ref.artifactId}/bytes/0-4` } }),
        `error: ${NOT_AVAILABLE_TEXT}`,
      );
      for (const id of forged) {
        assert.equal(
          await ws.execute({ tool: 'read_file', arguments: { path: `.tool-artifacts/${id}/bytes/0-4` } }),
          'error: artifact range path is malformed',
          id,
        );
      }
      assert.equal(new TextDecoder().decode(await a.readRange(ref.artifactId, 0, 6)), 'tenant');
    });

    it('two tenants putting the same bytes each keep and serve their own copy', async () => {
      const a = open('a');
      const b = open('b');
      const ra = await a.put('shared bytes');
      const rb = await b.put('shared bytes');
      assert.deepEqual(rb, ra);
      assert.equal(await a.delete(ra.artifactId), 12);
      await assert.rejects(a.readRange(ra.artifactId, 0, 6), NOT_AVAILABLE);
      assert.equal(new TextDecoder().decode(await b.readRange(rb.artifactId, 0, 6)), 'shared');
    });

    it('never returns a tampered byte; a tamper outside the range leaves it readable; verify is a full check', async () => {
      const data = pattern(10_000, 1);
      const ref = await open('t', 1024).put(data);
      for (const store of [open(), open()]) {
        assert.deepEqual(await store.readRange(ref.artifactId, 0, 10), data.subarray(0, 10));
        await tamper(blobs, ref.artifactId, (b) => {
          b[5_000] = b[5_000]! ^ 1;
          return b;
        }); // chunk 4
        assert.deepEqual(await store.readRange(ref.artifactId, 0, 1024), data.subarray(0, 1024));
        assert.deepEqual(await store.readRange(ref.artifactId, 6_000, 10_000), data.subarray(6_000, 10_000));
        await assert.rejects(store.readRange(ref.artifactId, 5_000, 5_001), DIGEST);
        await assert.rejects(store.readRange(ref.artifactId, 4_100, 4_200), DIGEST); // same chunk, other bytes
        assert.equal(await store.verify(ref.artifactId), false);
        await tamper(blobs, ref.artifactId, () => data);
        assert.equal(await store.verify(ref.artifactId), true);
      }
      // A process that never trusted it: the full verification at its first read catches a tamper anywhere.
      await tamper(blobs, ref.artifactId, (b) => {
        b[9_999] = b[9_999]! ^ 1;
        return b;
      });
      await assert.rejects(open().readRange(ref.artifactId, 0, 10), DIGEST);
      await assert.rejects(open().refOf(ref.artifactId), DIGEST);
      assert.equal(await open().verify(ref.artifactId), false);
    });

    it('a forged manifest with forged bytes under a real id is caught; a lost or foreign manifest is rebuilt from true bytes', async () => {
      const data = pattern(200_000, 2);
      const ref = await open().put(data);
      const forgedBytes = Uint8Array.from(data);
      forgedBytes[150_000] = forgedBytes[150_000]! ^ 1;
      // Chunk digests of the forged bytes, claiming the real identity: consistent except for the whole sha256.
      const forgedManifest = { ...manifestOf(forgedBytes), sha256: ref.sha256 };
      await blobs.put(keyOf(ref.artifactId), forgedBytes);
      await blobs.put(sidecarOf(ref.artifactId), encodeManifest(forgedManifest));
      await assert.rejects(open().readRange(ref.artifactId, 0, 10), DIGEST);
      // Not even a record's digest of that forged manifest makes a handle read other bytes than the record's.
      await assert.rejects(open().openRecorded(ref, manifestDigest(manifestOf(data))), DIGEST);
      await blobs.put(keyOf(ref.artifactId), data);
      await blobs.delete(sidecarOf(ref.artifactId));
      assert.deepEqual(await open().readRange(ref.artifactId, 150_000, 150_010), data.subarray(150_000, 150_010));
      assert.deepEqual(
        Buffer.from(await readBlob(blobs, sidecarOf(ref.artifactId), 0, 100_000)),
        Buffer.from(encodeManifest(manifestOf(data))),
      );
      await blobs.put(sidecarOf(ref.artifactId), encodeManifest(manifestOf(pattern(100, 9))));
      assert.deepEqual(await open().readRange(ref.artifactId, 5, 9), data.subarray(5, 9));
      await blobs.put(sidecarOf(ref.artifactId), Uint8Array.of(1, 2, 3));
      assert.equal(await open().verify(ref.artifactId), true);
    });

    it('a handle (a recorded manifest digest) is trusted at once: the first read reads its sidecar and one chunk', async () => {
      const data = pattern(300_000, 5);
      const ref = await open().put(data);
      const digest = manifestDigest(manifestOf(data));
      const counting = new CountingStore(blobs);
      const store = new ArtifactStore({ blobs: counting, tenant: 't' });
      const { manifest, source } = await store.openRecorded(ref, digest);
      assert.deepEqual(manifest, manifestOf(data));
      assert.equal((await source.read(200_000, 200_010)).length, 10);
      assert.deepEqual(await store.readRange(ref.artifactId, 200_000, 200_010), data.subarray(200_000, 200_010));
      // Sidecar, the source's own 10 bytes, and chunk 3 (196,608..262,144) for the verified read.
      assert.equal(counting.bytesRead, encodeManifest(manifest).length + 10 + 65_536);
      // Without a record, a store that never saw it (and no mark on disk) hashes it whole once, then reads by chunk.
      const bare = new CountingStore(blobs);
      const fresh = new ArtifactStore({ blobs: bare, tenant: 't' });
      assert.deepEqual(await fresh.readRange(ref.artifactId, 0, 4), data.subarray(0, 4));
      assert.ok(bare.bytesRead >= 300_000 || backend.name === 'filesystem', `${bare.bytesRead} bytes read`);
      const before = bare.bytesRead;
      assert.deepEqual(await fresh.readRange(ref.artifactId, 0, 4), data.subarray(0, 4));
      assert.equal(bare.bytesRead - before, 65_536);
      // A record of other bytes is refused: another byte count, another digest that the bytes do not bear out.
      await assert.rejects(store.openRecorded({ ...ref, byteCount: 1 }, digest), DIGEST);
    });

    it('deletes an artifact and its manifest; bytes gone from under a reader are "not available"', async () => {
      const store = open();
      const x = await store.put('x'.repeat(100));
      const y = await store.put('y');
      assert.deepEqual(await store.refOf(x.artifactId), x);
      assert.equal(await store.delete(x.artifactId), 100);
      assert.equal(await store.delete(x.artifactId), undefined);
      assert.equal(await blobs.size(keyOf(x.artifactId)), undefined);
      assert.equal(await blobs.size(sidecarOf(x.artifactId)), undefined);
      await assert.rejects(store.readRange(x.artifactId, 0, 1), NOT_AVAILABLE);
      await assert.rejects(store.delete('artifact-../x'), /artifact id is invalid/);
      // Deleted by another process while this one trusts it.
      await open().delete(y.artifactId);
      await assert.rejects(store.readRange(y.artifactId, 0, 1), NOT_AVAILABLE);
      assert.equal(await store.verify(y.artifactId), false);
    });
  });
}

describe('artifacts: a filesystem blob store (1.1)', function () {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir('fsartifacts');
    clearVerifiedChunks();
  });
  afterEach(() => t.cleanup());
  const fsStore = async (dir = t.dir, chunkSize?: number): Promise<ArtifactStore> =>
    new ArtifactStore({
      blobs: await FsBlobStore.open(dir, { sweep: false }),
      tenant: 't',
      ...(chunkSize !== undefined && { chunkSize }),
    });
  const folder = (): string => path.join(t.dir, 't', 'artifacts');

  it('keeps <root>/<tenant>/artifacts/<sha256> and <sha256>._manifest, nothing else; same bytes again stay one file', async () => {
    const store = await fsStore();
    const ref = await store.put('same bytes');
    const b = await store.put(enc('same bytes'));
    const c = await store.putStream(
      (async function* () {
        yield enc('same ');
        yield enc('bytes');
      })(),
    );
    assert.deepEqual(b, ref);
    assert.deepEqual(c, ref);
    assert.deepEqual((await fsp.readdir(folder())).sort(), [ref.sha256, `${ref.sha256}._manifest`]);
    assert.equal(await fsp.readFile(path.join(folder(), ref.sha256), 'utf8'), 'same bytes');
    assert.deepEqual(await fsp.readdir(path.join(t.dir, 't')), ['artifacts']);
  });

  it('marks a written artifact verified on disk: a new process trusts it by its mark and hashes nothing', async () => {
    const data = pattern(2 * 1024 * 1024, 7);
    const streamed = await (
      await fsStore()
    ).putStream(
      (async function* () {
        for (let p = 0; p < data.length; p += 300_000) yield data.subarray(p, p + 300_000);
      })(),
    );
    assert.ok((await fsp.stat(path.join(t.dir, 't', VERIFIED_MARKS_FILE))).size > 0);
    clearVerifiedChunks();
    const counting = new CountingStore(await FsBlobStore.open(t.dir, { sweep: false }));
    const fresh = new ArtifactStore({ blobs: counting, tenant: 't' });
    assert.deepEqual(
      await fresh.readRange(streamed.artifactId, 1_000_000, 1_000_100),
      data.subarray(1_000_000, 1_000_100),
    );
    assert.equal(verifiedChunkStats.marksUsed, 1);
    assert.equal(counting.bytesRead, encodeManifest(manifestOf(data)).length + 65_536);
    // A changed byte changes the file's identity: the mark no longer applies, and the full verification fails.
    const file = path.join(folder(), streamed.sha256);
    const bytes = await fsp.readFile(file);
    bytes[1_500_000] = bytes[1_500_000]! ^ 1;
    await fsp.writeFile(file, bytes);
    clearVerifiedChunks();
    await assert.rejects((await fsStore()).readRange(streamed.artifactId, 0, 10), DIGEST);
  });

  it('reports a truncated or extended file as a digest mismatch, a missing one as not available', async () => {
    const data = pattern(10_000, 1);
    const store = await fsStore(t.dir, 1024);
    const ref = await store.put(data);
    const file = path.join(folder(), ref.sha256);
    for (const damaged of [data.subarray(0, 9_999), Buffer.concat([data, Buffer.from('\n')])]) {
      await fsp.writeFile(file, damaged);
      await assert.rejects(store.readRange(ref.artifactId, 0, 10), DIGEST);
      await assert.rejects((await fsStore()).readRange(ref.artifactId, 0, 10), DIGEST);
      assert.equal(await store.verify(ref.artifactId), false);
    }
    await fsp.rm(file);
    await assert.rejects(store.readRange(ref.artifactId, 0, 10), NOT_AVAILABLE);
    await assert.rejects((await fsStore()).readRange(ref.artifactId, 0, 10), NOT_AVAILABLE);
    await fsp.writeFile(file, data);
    assert.deepEqual(await store.readRange(ref.artifactId, 0, 10), data.subarray(0, 10));
  });

  it("does not hang on a FIFO planted under an artifact's name", async () => {
    const store = await fsStore();
    const ref = await store.put(pattern(10_000));
    const file = path.join(folder(), ref.sha256);
    await fsp.rm(file);
    assert.equal(spawnSync('mkfifo', [file]).status, 0);
    await assert.rejects(store.readRange(ref.artifactId, 0, 10), NOT_AVAILABLE);
    await assert.rejects((await fsStore()).readRange(ref.artifactId, 0, 10), NOT_AVAILABLE);
  });

  it("a whole temporary key a writer killed before its move left is swept at the next open; a live writer's is kept", async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    await fsp.mkdir(folder(), { recursive: true });
    const left = [`tmp-${dead}-0123456789abcdef`, `tmp-${dead}-0123456789abcdef._manifest`];
    const live = `tmp-${process.pid}-fedcba9876543210`;
    for (const n of [...left, live]) await fsp.writeFile(path.join(folder(), n), 'x'.repeat(10));
    const kept = await (await fsStore()).put('kept');
    const swept = await FsBlobStore.open(t.dir);
    assert.deepEqual(await swept.orphanSweep, { files: 2, bytes: 20 });
    assert.deepEqual((await fsp.readdir(folder())).sort(), [kept.sha256, `${kept.sha256}._manifest`, live].sort());
  });

  it("a process killed during putStream leaves nothing under the artifact's name; the next open's sweep removes its temporary file", async function () {
    this.timeout(30_000);
    const script = path.join(__dirname, '..', 'evidence', 'killedPut.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, t.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (b: Buffer) => {
        if (b.toString().includes('writing')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited early: ${code}`)));
    });
    // The child has written at least 2 MiB of a 16 MiB stream and is waiting for more.
    const temps = (await fsp.readdir(folder())).filter((n) => /^tmp-\d+-[0-9a-f]{16}~\d+\.[0-9a-f]{12}\.tmp$/.test(n));
    assert.equal(temps.length, 1);
    const tempSize = (await fsp.stat(path.join(folder(), temps[0]!))).size;
    assert.ok(tempSize >= 2 * 1024 * 1024, `${tempSize} bytes written`);
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');

    const full = killedPutBytes();
    const fullId = `artifact-${sha256hex(full)}`;
    assert.deepEqual(await fsp.readdir(folder()), temps);
    const swept = await FsBlobStore.open(t.dir);
    // Its writer's pid names no process now: removed at once (docs/contracts.md §2.6).
    assert.deepEqual(await swept.orphanSweep, { files: 1, bytes: tempSize });
    const store = new ArtifactStore({ blobs: swept, tenant: 't' });
    const ref = await store.put(full);
    assert.equal(ref.artifactId, fullId);
    assert.equal(await (await fsStore()).verify(fullId), true);
    assert.deepEqual((await fsp.readdir(folder())).sort(), [ref.sha256, `${ref.sha256}._manifest`]);
  });
});

describe('artifacts: the upgrade from evidence/artifacts/<tenant>/artifact-<sha> (docs/architecture.md §3)', function () {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir('legacy');
    clearVerifiedChunks();
  });
  afterEach(() => t.cleanup());
  const legacyRoot = (): string => path.join(t.dir, 'artifacts');
  const blobsDir = (): string => path.join(t.dir, 'blobs');
  const upgraded = async (tenant = 't'): Promise<ArtifactStore> =>
    new ArtifactStore({
      blobs: await FsBlobStore.open(blobsDir(), { sweep: false }),
      tenant,
      legacyRoot: legacyRoot(),
    });

  /** Writes an artifact as the store of the old layout did: the file, and its manifest in `.manifests/`. */
  async function oldLayout(
    bytes: Uint8Array,
    tenant = 't',
  ): Promise<{ id: string; file: string; manifestFile: string; digest: string }> {
    const dir = path.join(legacyRoot(), tenant);
    await fsp.mkdir(path.join(dir, '.manifests'), { recursive: true });
    const id = `artifact-${sha256hex(bytes)}`;
    const file = path.join(dir, id);
    const manifestFile = path.join(dir, '.manifests', `${id}.manifest`);
    await fsp.writeFile(file, bytes);
    await fsp.writeFile(manifestFile, encodeManifest(manifestOf(bytes)));
    return { id, file, manifestFile, digest: manifestDigest(manifestOf(bytes)) };
  }

  it('an old-layout artifact stays readable: moved into the blob store on its first read, byte for byte', async () => {
    const data = pattern(300_000, 8);
    const old = await oldLayout(data);
    const store = await upgraded();
    assert.deepEqual(await store.readRange(old.id, 250_000, 250_100), data.subarray(250_000, 250_100));
    await assert.rejects(fsp.stat(old.file), /ENOENT/);
    await assert.rejects(fsp.stat(old.manifestFile), /ENOENT/);
    const moved = path.join(blobsDir(), 't', 'artifacts', old.id.slice('artifact-'.length));
    assert.equal(sha256hex(await fsp.readFile(moved)), sha256hex(data));
    assert.deepEqual(await fsp.readFile(`${moved}._manifest`), Buffer.from(encodeManifest(manifestOf(data))));
    // Another process after the move reads it from the blob store, as does a handle by the record's (old) manifest digest.
    assert.deepEqual(await (await upgraded()).readRange(old.id, 0, 10), data.subarray(0, 10));
    const { manifest } = await (
      await upgraded()
    ).openRecorded({ artifactId: old.id, byteCount: data.length, sha256: sha256hex(data) }, old.digest);
    assert.equal(manifest.byteCount, 300_000);
  });

  it('a handle reads an old-layout artifact too (migrated on that read), and retention deletes an old copy', async () => {
    const data = enc('recorded before the upgrade\n'.repeat(50));
    const old = await oldLayout(data);
    const { manifest, source } = await (
      await upgraded()
    ).openRecorded({ artifactId: old.id, byteCount: data.length, sha256: sha256hex(data) }, old.digest);
    assert.deepEqual(await source.read(0, 8), enc('recorded'));
    assert.equal(manifest.sha256, sha256hex(data));
    const other = await oldLayout(enc('never read after the upgrade'));
    assert.equal(await (await upgraded()).delete(other.id), 28);
    await assert.rejects(fsp.stat(other.file), /ENOENT/);
    await assert.rejects(fsp.stat(other.manifestFile), /ENOENT/);
  });

  it("an old-layout file that does not hash to its id is refused and left as it was; a symlink or another tenant's file is not read", async () => {
    const data = pattern(5_000, 3);
    const old = await oldLayout(data);
    await fsp.writeFile(old.file, pattern(5_000, 4));
    await assert.rejects((await upgraded()).readRange(old.id, 0, 10), DIGEST);
    assert.equal(sha256hex(await fsp.readFile(old.file)), sha256hex(pattern(5_000, 4)));
    assert.equal(
      await fsp.stat(path.join(blobsDir(), 't', 'artifacts', old.id.slice('artifact-'.length))).catch(() => undefined),
      undefined,
    );

    const linked = enc('behind a symlink');
    const target = path.join(t.dir, 'target');
    await fsp.writeFile(target, linked);
    const linkedId = `artifact-${sha256hex(linked)}`;
    await fsp.symlink(target, path.join(legacyRoot(), 't', linkedId));
    await assert.rejects((await upgraded()).readRange(linkedId, 0, 1), NOT_AVAILABLE);

    const theirs = await oldLayout(enc('tenant u'), 'u');
    await assert.rejects((await upgraded('t')).readRange(theirs.id, 0, 1), NOT_AVAILABLE);
    assert.equal(new TextDecoder().decode(await (await upgraded('u')).readRange(theirs.id, 0, 6)), 'tenant');
  });

  it('two processes reading the same old artifact at once both get its bytes; one copy remains', async () => {
    const data = pattern(1_500_000, 6);
    const old = await oldLayout(data);
    const [a, b] = await Promise.all([
      (await upgraded()).readRange(old.id, 0, 1_500_000),
      (await upgraded()).readRange(old.id, 1_400_000, 1_500_000),
    ]);
    assert.equal(sha256hex(a), sha256hex(data));
    assert.deepEqual(b, data.subarray(1_400_000));
    const names = (await fsp.readdir(path.join(blobsDir(), 't', 'artifacts'))).sort();
    assert.deepEqual(names, [old.id.slice('artifact-'.length), `${old.id.slice('artifact-'.length)}._manifest`]);
    assert.deepEqual(await fsp.readdir(path.join(legacyRoot(), 't')), ['.manifests']);
  });
});

/** The stream the killed child was putting (16 MiB), see evidence/killedPut.ts. */
function killedPutBytes(): Uint8Array {
  const out = new Uint8Array(16 * 1024 * 1024);
  for (let i = 0; i < 16; i++) out.fill(i + 1, i * 1024 * 1024, (i + 1) * 1024 * 1024);
  return out;
}
