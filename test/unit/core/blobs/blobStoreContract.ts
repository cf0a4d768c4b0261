/**
 * The one contract suite every `BlobStore` adapter runs (docs/contracts.md §2.3). An adapter's test
 * file calls `blobStoreContract(name, setup)`; `setup` returns a fresh, empty store.
 * Tampering is done through the adapter's own `put`/`delete`, i.e. "behind the log's
 * back", so the same cases run against every backend.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readRange, type BlobStore } from '../../../../src/core/blobs/blobStore.js';
import type { BlobKey } from '../../../../src/core/blobs/blobKey.js';
import { manifestKeyOf, openVerified, putVerified, ManifestCache } from '../../../../src/core/blobs/verifiedBlobs.js';
import { encodeManifest, manifestOf, readVerified, streamVerified } from '../../../../src/core/integrity/integrity.js';

/** A fresh store and how to dispose of it. */
export interface ContractFixture {
  readonly store: BlobStore;
  cleanup(): Promise<void>;
}

/** The key of a run's output: the suite's default. */
export const RUN_KEY: BlobKey = { tenant: 'tenant-a', runId: 'run-1', callId: 'c1' };
/** The key of an artifact (docs/contracts.md §1.1: `<tenant>/artifacts/<sha256>`): the suite runs for it too. */
export const ARTIFACT_KEY: BlobKey = {
  tenant: 'tenant-a',
  runId: 'artifacts',
  callId: createHash('sha256').update('an artifact').digest('hex'),
};

/** Deterministic bytes: `n` bytes of a repeating pattern with newlines. */
export function patterned(n: number, seed = 0): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i + seed) % 61 === 60 ? 10 : 33 + ((i * 7 + seed) % 90);
  return out;
}

async function* pieces(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let p = 0,
    i = 0;
  while (p < bytes.length) {
    const n = sizes[i++ % sizes.length]!;
    yield bytes.slice(p, p + n);
    p += n;
  }
}

async function* failingAfter(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
  throw new Error('source broke');
}

/** Byte equality whatever the Uint8Array subclass (adapters may return Buffers). */
export function sameBytes(actual: Uint8Array, expected: Uint8Array): void {
  assert.deepEqual(
    Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength),
    Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength),
  );
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Registers the shared suite for one adapter, over keys shaped like `key` (a run's output by default). */
export function blobStoreContract(name: string, setup: () => Promise<ContractFixture>, key: BlobKey = RUN_KEY): void {
  describe(`BlobStore contract: ${name}, keys like ${key.tenant}/${key.runId}/${key.callId.slice(0, 12)}`, function () {
    let fx: ContractFixture;
    let store: BlobStore;
    beforeEach(async () => {
      fx = await setup();
      store = fx.store;
    });
    afterEach(async () => {
      await fx.cleanup();
    });
    /**
     * What a put returns: the exact size; a store with file identities also returns the
     * written file's identity, which must be the one the file has right after (§1.1).
     */
    const putReturns = async (body: Uint8Array | AsyncIterable<Uint8Array>, sizeBytes: number): Promise<void> => {
      const r = await store.put(key, body);
      assert.deepEqual(r, store.identity ? { sizeBytes, identity: await store.identity(key) } : { sizeBytes });
    };

    it('round-trips a buffer put: exact size and exact ranges', async () => {
      const data = patterned(10_000);
      await putReturns(data, 10_000);
      assert.equal(await store.size(key), 10_000);
      sameBytes(await readRange(store, key, 0, 10_000), data);
      sameBytes(await readRange(store, key, 4096, 8192), data.subarray(4096, 8192));
      sameBytes(await readRange(store, key, 9_999, 10_000), data.subarray(9_999));
    });

    it('round-trips a streamed put of irregular pieces byte for byte (no aws-chunked trailer stored)', async () => {
      const data = patterned(300_001, 3);
      await putReturns(pieces(data, [1, 65_535, 7, 100_000, 4096]), 300_001);
      assert.equal(await store.size(key), 300_001);
      const back = await readRange(store, key, 0, 300_001);
      assert.equal(sha(back), sha(data));
    });

    it('streams a body larger than one S3 part (6 MiB + 17 bytes)', async () => {
      const data = patterned(6 * 1024 * 1024 + 17, 5);
      await putReturns(pieces(data, [1024 * 1024 + 3]), data.length);
      assert.equal(await store.size(key), data.length);
      sameBytes(
        await readRange(store, key, 5 * 1024 * 1024 - 10, 5 * 1024 * 1024 + 10),
        data.subarray(5 * 1024 * 1024 - 10, 5 * 1024 * 1024 + 10),
      );
      sameBytes(await readRange(store, key, data.length - 5, data.length), data.subarray(data.length - 5));
    });

    it('returns bytes the caller owns: changing them never changes what is stored', async () => {
      const data = patterned(1000);
      await store.put(key, data);
      const got = await readRange(store, key, 0, 1000);
      got.fill(0);
      sameBytes(await readRange(store, key, 0, 1000), data);
    });

    it('stores an empty blob', async () => {
      await putReturns(new Uint8Array(0), 0);
      assert.equal(await store.size(key), 0);
      assert.equal((await readRange(store, key, 0, 0)).length, 0);
    });

    it('returns fewer bytes past the end and none beyond it', async () => {
      await store.put(key, patterned(100));
      sameBytes(await readRange(store, key, 90, 200), patterned(100).subarray(90));
      assert.equal((await readRange(store, key, 150, 200)).length, 0);
    });

    it('reports a missing key as undefined size and a missing read as "missing"', async () => {
      assert.equal(await store.size(key), undefined);
      await assert.rejects(
        readRange(store, key, 0, 10),
        (e: Error & { code?: string }) => e.code === 'missing' && e.message === 'stored bytes are missing',
      );
    });

    it('replaces on put, and a failed streamed put leaves the previous bytes', async () => {
      await store.put(key, patterned(50, 1));
      await store.put(key, patterned(70, 2));
      sameBytes(await readRange(store, key, 0, 70), patterned(70, 2));
      await assert.rejects(store.put(key, failingAfter(patterned(1000, 9))), /source broke/);
      assert.equal(await store.size(key), 70);
      sameBytes(await readRange(store, key, 0, 70), patterned(70, 2));
      const fresh: BlobKey = { ...key, callId: 'never-completed' };
      await assert.rejects(store.put(fresh, failingAfter(patterned(1000, 9))), /source broke/);
      assert.equal(await store.size(fresh), undefined);
    });

    it('deletes one key (twice is fine) and one run, nothing else', async () => {
      const other: BlobKey = { ...key, callId: 'c2' };
      const otherRun: BlobKey = { ...key, runId: 'run-2' };
      const otherTenant: BlobKey = { ...key, tenant: 'tenant-b' };
      for (const k of [key, other, otherRun, otherTenant]) await store.put(k, patterned(10));
      await store.delete(key);
      await store.delete(key);
      assert.equal(await store.size(key), undefined);
      assert.equal(await store.size(other), 10);
      await store.deleteRun(key.tenant, key.runId);
      assert.equal(await store.size(other), undefined);
      assert.equal(await store.size(otherRun), 10);
      assert.equal(await store.size(otherTenant), 10);
    });

    it('moves bytes to another key, replacing what it held; the source is gone; a missing source is "missing"', async () => {
      const to: BlobKey = { ...key, callId: `${key.callId}-moved` };
      const data = patterned(70_001, 6);
      await store.put(key, data);
      await store.put(to, patterned(10, 7));
      const moved = await store.move(key, to);
      assert.deepEqual(moved, store.identity ? { identity: await store.identity(to) } : {});
      assert.equal(await store.size(key), undefined);
      assert.equal(await store.size(to), 70_001);
      sameBytes(await readRange(store, to, 0, 70_001), data);
      await assert.rejects(
        store.move(key, to),
        (e: Error & { code?: string }) => e.code === 'missing' && e.message === 'stored bytes are missing',
      );
      sameBytes(await readRange(store, to, 65_530, 65_540), data.subarray(65_530, 65_540));
      await assert.rejects(store.move({ ...key, callId: '../x' }, to), /blob key callId is not a safe path segment$/);
      await assert.rejects(store.move(to, { ...key, tenant: '..' }), /blob key tenant is not a safe path segment$/);
      assert.equal(await store.size(to), 70_001);
    });

    it('folds the tenant into the address: equal run and call ids never collide', async () => {
      await store.put({ ...key, tenant: 't1' }, patterned(10, 1));
      await store.put({ ...key, tenant: 't2' }, patterned(20, 2));
      sameBytes(await readRange(store, { ...key, tenant: 't1' }, 0, 100), patterned(10, 1));
      sameBytes(await readRange(store, { ...key, tenant: 't2' }, 0, 100), patterned(20, 2));
    });

    it('rejects unsafe key segments before any address is built', async () => {
      const bad = [
        '',
        '.',
        '..',
        '../x',
        'a/b',
        'a\\b',
        'a\u0000b',
        '\u2024\u2024',
        'a\uff0fb',
        'a\u2215b',
        'x'.repeat(129),
        ' a',
        'é',
      ];
      for (const field of ['tenant', 'runId', 'callId'] as const) {
        for (const v of bad) {
          const k = { ...key, [field]: v };
          const re = new RegExp(`blob key ${field} is not a safe path segment$`);
          await assert.rejects(
            store.put(k, patterned(1)),
            (e: Error & { code?: string }) => e.code === 'invalidArgument' && re.test(e.message),
          );
          await assert.rejects(store.size(k), re);
          await assert.rejects(readRange(store, k, 0, 1), re);
          await assert.rejects(store.delete(k), re);
        }
      }
      await assert.rejects(store.deleteRun('..', 'r'), /tenant is not a safe path segment/);
      await assert.rejects(store.deleteRun('t', 'a/b'), /runId is not a safe path segment/);
      assert.equal(await store.size({ ...key, callId: 'x'.repeat(128) }), undefined);
    });

    describe('under the verification system (manifest sidecar)', () => {
      const data = patterned(200_000, 4);
      let identity: { sha256: string; byteCount: number; manifestDigest: string };
      beforeEach(async () => {
        const put = await putVerified(store, key, pieces(data, [70_000]));
        identity = {
          sha256: put.manifest.sha256,
          byteCount: put.manifest.byteCount,
          manifestDigest: put.manifestDigest,
        };
        assert.equal(put.manifest.sha256, sha(data));
        assert.equal(put.manifestDigest, sha(encodeManifest(manifestOf(data))));
      });

      it('stores the sidecar under <callId>._manifest and reads back verified ranges', async () => {
        assert.deepEqual(manifestKeyOf(key), { ...key, callId: `${key.callId}._manifest` });
        assert.equal(await store.size(manifestKeyOf(key)), encodeManifest(manifestOf(data)).length);
        const { manifest, source } = await openVerified(store, key, identity);
        sameBytes(await readVerified(source, manifest, 65_530, 65_545), data.subarray(65_530, 65_545));
        let n = 0;
        for await (const p of streamVerified(source, manifest)) n += p.length;
        assert.equal(n, 200_000);
      });

      it('a tampered byte, a changed size and a rewritten manifest are digest mismatches', async () => {
        const { manifest, source } = await openVerified(store, key, identity);
        const tampered = Uint8Array.from(data);
        tampered[150_000] = tampered[150_000]! ^ 1;
        await store.put(key, tampered);
        await assert.rejects(
          readVerified(source, manifest, 140_000, 140_010),
          /artifact digest does not match its recorded identity/,
        );
        await assert.rejects(
          readVerified(source, manifest, 0, 10).then(() => readVerified(source, manifest, 131_072, 131_073)),
          /artifact digest does not match/,
        );
        sameBytes(await readVerified(source, manifest, 0, 10), data.subarray(0, 10));
        await store.put(key, Buffer.concat([data, Buffer.from('x')]));
        await assert.rejects(
          readVerified(source, manifest, 0, 10),
          /artifact digest does not match its recorded identity/,
        );
        await store.put(key, data);
        await store.put(manifestKeyOf(key), encodeManifest(manifestOf(tampered)));
        await assert.rejects(
          openVerified(store, key, identity),
          /artifact digest does not match its recorded identity/,
        );
        await store.put(manifestKeyOf(key), encodeManifest(manifestOf(data)).slice(0, -4));
        await assert.rejects(
          openVerified(store, key, identity),
          /artifact digest does not match its recorded identity/,
        );
      });

      it('a blob or sidecar deleted behind the log\'s back answers "missing", never bytes', async () => {
        const cache = new ManifestCache();
        const { manifest, source } = await openVerified(store, key, identity, cache);
        await store.delete(key);
        await assert.rejects(
          readVerified(source, manifest, 0, 10),
          (e: Error & { code?: string }) => e.code === 'missing' && e.message === 'stored bytes are missing',
        );
        await store.put(key, data);
        await store.delete(manifestKeyOf(key));
        await assert.rejects(
          openVerified(store, key, identity),
          (e: Error & { code?: string }) => e.code === 'missing',
        );
        // A cached (already verified) manifest still guards the data itself.
        const again = await openVerified(store, key, identity, cache);
        sameBytes(await readVerified(again.source, again.manifest, 5, 9), data.subarray(5, 9));
        await store.delete(key);
        await store.delete(manifestKeyOf(key));
        assert.equal(await store.size(key), undefined);
      });

      it('a record that promises other bytes is refused even with an intact sidecar', async () => {
        await assert.rejects(
          openVerified(store, key, { ...identity, sha256: '0'.repeat(64) }),
          /artifact digest does not match/,
        );
        await assert.rejects(openVerified(store, key, { ...identity, byteCount: 1 }), /artifact digest does not match/);
        await assert.rejects(
          openVerified(store, key, { ...identity, manifestDigest: 'f'.repeat(64) }),
          /artifact digest does not match/,
        );
      });
    });
  });
}
