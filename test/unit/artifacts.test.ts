import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { artifactRangePath, makeArtifactRef, type ArtifactRef } from '../../src/core/artifactRef.js';
import { ArtifactStore } from '../../src/core/artifacts.js';
import { VERIFIED_MARKS_FILE } from '../../src/core/verifiedMarks.js';
import { sha256hex, tempDir } from './evidence/helpers.js';

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

/** Names in a folder that are not the store's dot-named metadata. */
async function artifactNames(dir: string): Promise<string[]> {
  return (await fsp.readdir(dir)).filter((n) => !n.startsWith('.')).sort();
}

async function flipByte(file: string, offset: number): Promise<void> {
  const bytes = await fsp.readFile(file);
  bytes[offset] = bytes[offset]! ^ 0x01;
  await fsp.writeFile(file, bytes);
}

describe('artifacts: identity records (1.1)', () => {
  const sha = sha256hex('hello');
  const id = `artifact-${sha}`;

  it('builds a record whose id is "artifact-" + sha256', () => {
    assert.deepEqual(makeArtifactRef(id, 5, sha), { artifactId: id, byteCount: 5, sha256: sha });
    assert.deepEqual(makeArtifactRef(`artifact-${sha256hex('')}`, 0, sha256hex('')).byteCount, 0);
  });

  it('rejects a malformed id with "artifact id", checked before anything else', () => {
    for (const bad of ['', sha, `artifact-${sha.toUpperCase()}`, `artifact-${sha}0`, `artifact-${sha.slice(1)}`, ` ${id}`, `${id}\n`, 42, null]) {
      assert.throws(() => makeArtifactRef(bad, 5, sha), (e: Error) => ID_RE.test(e.message) && !/must match/.test(e.message));
    }
    // Also a bad count, a bad digest and a mismatch: the id is still what is reported.
    assert.throws(() => makeArtifactRef('artifact-XYZ', -1, 'nope'), ID_RE);
  });

  it('rejects a bad byte count with "byte count", before the digest', () => {
    for (const bad of [-1, 1.5, Number.NaN, Infinity, 2 ** 53, '5', null]) {
      assert.throws(() => makeArtifactRef(id, bad, sha), (e: Error) => /byte count/.test(e.message) && !ID_RE.test(e.message));
    }
    assert.throws(() => makeArtifactRef(id, -1, 'nope'), /byte count/);
  });

  it('rejects a bad digest with "digest", before the match', () => {
    for (const bad of [sha.toUpperCase(), sha.slice(1), `${sha}0`, '', 7]) {
      assert.throws(() => makeArtifactRef(id, 5, bad), (e: Error) => /digest/.test(e.message) && !/must match/.test(e.message) && !ID_RE.test(e.message));
    }
  });

  it('rejects an id that does not match its digest with "must match"', () => {
    const other = sha256hex('other');
    assert.throws(() => makeArtifactRef(id, 5, other), (e: Error) => /must match/.test(e.message) && !ID_RE.test(e.message) && !/digest/.test(e.message));
  });

  it('formats range paths and refuses bad ones', () => {
    assert.equal(artifactRangePath(id, 0, 10), `.tool-artifacts/${id}/bytes/0-10`);
    assert.throws(() => artifactRangePath('x', 0, 1), /artifact id is invalid/);
    assert.throws(() => artifactRangePath(id, 3, 3), /0 <= start < end/);
  });
});

describe('artifacts: the store (1.1)', function () {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => { t = tempDir('store'); });
  afterEach(() => t.cleanup());

  describe('opening', () => {
    it('needs an existing real directory as root (a symlinked parent is fine)', async () => {
      await assert.rejects(ArtifactStore.open(path.join(t.dir, 'missing')), /does not exist/);
      await fsp.writeFile(path.join(t.dir, 'file'), 'x');
      await assert.rejects(ArtifactStore.open(path.join(t.dir, 'file')), /must be a directory/);
      await fsp.mkdir(path.join(t.dir, 'real'));
      await fsp.symlink(path.join(t.dir, 'real'), path.join(t.dir, 'link'));
      await assert.rejects(ArtifactStore.open(path.join(t.dir, 'link')), /must not be a symlink/);
      await fsp.mkdir(path.join(t.dir, 'real', 'inner'));
      const store = await ArtifactStore.open(path.join(t.dir, 'link', 'inner'));
      assert.equal(store.root, path.join(t.dir, 'link', 'inner'));
      const ref = await store.put('through a symlinked parent');
      assert.equal(await fsp.readFile(path.join(t.dir, 'real', 'inner', ref.artifactId), 'utf8'), 'through a symlinked parent');
    });

    it('resolves root to an absolute path, tenant or not', async () => {
      const rel = path.relative(process.cwd(), t.dir);
      assert.equal((await ArtifactStore.open(rel)).root, t.dir);
      const tenanted = await ArtifactStore.open(rel, { tenant: 'ws-1' });
      assert.equal(tenanted.root, t.dir);
      assert.equal(tenanted.tenant, 'ws-1');
    });

    it('refuses tenants that are not one safe path segment', async () => {
      for (const tenant of ['', '.', '..', 'a/b', 'a\\b', '../x', 'a\0b', 'é', 'x'.repeat(129)]) {
        await assert.rejects(ArtifactStore.open(t.dir, { tenant }), /tenant must be one safe path segment/);
      }
    });

    it('refuses a tenant folder that is a symlink', async () => {
      await fsp.mkdir(path.join(t.dir, 'elsewhere'));
      await fsp.symlink(path.join(t.dir, 'elsewhere'), path.join(t.dir, 'ws'));
      await assert.rejects(ArtifactStore.open(t.dir, { tenant: 'ws' }), /must not be a symlink/);
    });
  });

  describe('put', () => {
    it('stores the exact bytes at <root>/<artifactId>, metadata only under dot names (manifests, verified marks)', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const text = 'héllo 😀 wörld\n';
      const ref = await store.put(text);
      const bytes = enc(text);
      assert.deepEqual(ref, { artifactId: `artifact-${sha256hex(bytes)}`, byteCount: bytes.length, sha256: sha256hex(bytes) });
      assert.deepEqual(new Uint8Array(await fsp.readFile(path.join(t.dir, ref.artifactId))), bytes);
      assert.deepEqual(await artifactNames(t.dir), [ref.artifactId]);
      assert.deepEqual((await fsp.readdir(t.dir)).filter((n) => n.startsWith('.')), ['.manifests', VERIFIED_MARKS_FILE]);
    });

    it('puts a tenant\'s artifacts in <root>/<tenant>/, created by the store', async () => {
      const store = await ArtifactStore.open(t.dir, { tenant: 'team_a.1', durable: false });
      const ref = await store.put('tenant bytes');
      assert.equal(await fsp.readFile(path.join(t.dir, 'team_a.1', ref.artifactId), 'utf8'), 'tenant bytes');
      assert.deepEqual(await artifactNames(t.dir), ['team_a.1']);
    });

    it('encodes text as TextEncoder does: a lone surrogate is stored as U+FFFD', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const ref = await store.put('a\uD800b');
      assert.deepEqual([...(await store.readRange(ref.artifactId, 0, ref.byteCount))], [0x61, 0xef, 0xbf, 0xbd, 0x62]);
      assert.equal(ref.sha256, sha256hex(Uint8Array.of(0x61, 0xef, 0xbf, 0xbd, 0x62)));
    });

    it('keeps invalid UTF-8 of a binary put as raw bytes', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const binary = Uint8Array.of(0xff, 0xfe, 0x00, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x9f);
      const ref = await store.put(binary);
      assert.equal(ref.sha256, sha256hex(binary));
      assert.equal(ref.byteCount, 10);
      assert.deepEqual(await store.readRange(ref.artifactId, 0, 10), binary);
      assert.deepEqual(await store.readRange(ref.artifactId, 3, 5), Uint8Array.of(0xc3, 0x28));
      assert.equal(await store.verify(ref.artifactId), true);
    });

    it('stores an empty result', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const ref = await store.put('');
      assert.deepEqual(ref, makeArtifactRef(`artifact-${sha256hex('')}`, 0, sha256hex('')));
      assert.equal(await store.verify(ref.artifactId), true);
      await assert.rejects(store.readRange(ref.artifactId, 0, 1), /exceeds the stored byte count/);
      await fsp.rm(path.join(t.dir, ref.artifactId));
      assert.equal(await store.verify(ref.artifactId), false);
    });

    it('returns an equal record for the same bytes twice and writes nothing new', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const a = await store.put('same bytes');
      const file = path.join(t.dir, a.artifactId);
      const before = await fsp.stat(file);
      const manifestBefore = await fsp.stat(path.join(t.dir, '.manifests', `${a.artifactId}.manifest`));
      const b = await store.put(enc('same bytes'));
      const c = await store.putStream((async function* () { yield enc('same '); yield enc('bytes'); })());
      assert.deepEqual(b, a);
      assert.deepEqual(c, a);
      const after = await fsp.stat(file);
      assert.equal(after.ino, before.ino);
      assert.equal(after.mtimeMs, before.mtimeMs);
      assert.equal((await fsp.stat(path.join(t.dir, '.manifests', `${a.artifactId}.manifest`))).mtimeMs, manifestBefore.mtimeMs);
      assert.deepEqual(await fsp.readdir(t.dir), ['.manifests', VERIFIED_MARKS_FILE, a.artifactId]);
    });

    it('fails with a conflict when a file under the name holds other bytes', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const id = `artifact-${sha256hex('the real bytes')}`;
      await fsp.writeFile(path.join(t.dir, id), 'impostor bytes');
      await assert.rejects(store.put('the real bytes'), /^EvidenceError: artifact contents conflict with their identity$/);
      await assert.rejects(store.putStream((async function* () { yield enc('the real bytes'); })()), /artifact contents conflict with their identity/);
      assert.equal(await fsp.readFile(path.join(t.dir, id), 'utf8'), 'impostor bytes');
      assert.equal(store.has(id), false);
      assert.deepEqual((await fsp.readdir(t.dir)).filter((n) => n.startsWith('.tmp-')), []);
      // A symlink under the name is not followed, even to identical bytes: also a conflict.
      const id2 = `artifact-${sha256hex('linked')}`;
      await fsp.writeFile(path.join(t.dir, 'target'), 'linked');
      await fsp.symlink(path.join(t.dir, 'target'), path.join(t.dir, id2));
      await assert.rejects(store.put('linked'), /artifact contents conflict with their identity/);
    });

    it('is safe when many promises put the same bytes at once, across two store instances', async () => {
      const one = await ArtifactStore.open(t.dir, { durable: false });
      const two = await ArtifactStore.open(t.dir, { durable: false });
      const data = pattern(300_000);
      const refs = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).put(data)),
        ...Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).putStream((async function* () {
          for (let p = 0; p < data.length; p += 70_001) yield data.subarray(p, p + 70_001);
        })())),
      ]);
      for (const r of refs) assert.deepEqual(r, refs[0]);
      assert.deepEqual(await fsp.readdir(t.dir), ['.manifests', VERIFIED_MARKS_FILE, refs[0]!.artifactId]);
      assert.deepEqual(await fsp.readdir(path.join(t.dir, '.manifests')), [`${refs[0]!.artifactId}.manifest`]);
      assert.deepEqual(await one.readRange(refs[0]!.artifactId, 123_456, 130_000), data.subarray(123_456, 130_000));
      assert.equal(await two.verify(refs[0]!.artifactId), true);
    });

    it('rejects what is not text or bytes, and a stream that fails, leaving no file behind', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      await assert.rejects(store.put(42 as unknown as string), TypeError);
      await assert.rejects(store.putStream((async function* () { yield 'text' as unknown as Uint8Array; })()), TypeError);
      await assert.rejects(store.putStream((async function* () { yield pattern(2_000_000); throw new Error('source broke'); })()), /source broke/);
      assert.deepEqual(await fsp.readdir(t.dir), ['.manifests']);
    });

    it('putStream gives the record put gives, whatever the piece sizes (property)', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false, chunkSize: 1024 });
      const data = pattern(20_000, 3);
      const whole = await store.put(data);
      await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 12 }), async (cuts) => {
        async function* pieces(): AsyncGenerator<Uint8Array> {
          let p = 0;
          for (const c of cuts) { yield data.subarray(p, Math.min(p + c, data.length)); p = Math.min(p + c, data.length); }
          yield data.subarray(p);
        }
        assert.deepEqual(await store.putStream(pieces()), whole);
      }), { numRuns: 40 });
      assert.deepEqual(await fsp.readdir(t.dir), ['.manifests', VERIFIED_MARKS_FILE, whole.artifactId]);
    });
  });

  describe('readRange and verify', () => {
    const data = pattern(10_000, 1);

    async function stored(chunkSize = 1024): Promise<{ store: ArtifactStore; ref: ArtifactRef; file: string }> {
      const store = await ArtifactStore.open(t.dir, { durable: false, chunkSize });
      const ref = await store.put(data);
      return { store, ref, file: path.join(t.dir, ref.artifactId) };
    }

    it('returns the exact bytes of any range (property)', async () => {
      const { store, ref } = await stored(1000);
      await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 9_999 }), fc.integer({ min: 1, max: 3000 }), async (s, len) => {
        const e = Math.min(10_000, s + len);
        assert.deepEqual(await store.readRange(ref.artifactId, s, e), data.subarray(s, e));
      }), { numRuns: 200 });
    });

    it('fails in the contract\'s order: id, range, availability, digest, stored count', async () => {
      const { store, ref, file } = await stored();
      const unknown = `artifact-${sha256hex('never put')}`;
      await assert.rejects(store.readRange('artifact-nope', 5, 5), /^EvidenceError: artifact id is invalid$/);
      await assert.rejects(store.readRange(unknown, 5, 5), /^EvidenceError: artifact range must satisfy 0 <= start < end$/);
      await assert.rejects(store.readRange(ref.artifactId, 6, 5), /0 <= start < end/);
      await assert.rejects(store.readRange(ref.artifactId, -1, 5), /0 <= start < end/);
      await assert.rejects(store.readRange(ref.artifactId, 0.5, 5), /0 <= start < end/);
      await assert.rejects(store.readRange(unknown, 0, 1e9), NOT_AVAILABLE);
      await assert.rejects(store.readRange(ref.artifactId, 9_000, 10_001), /^EvidenceError: artifact range exceeds the stored byte count$/);
      await fsp.appendFile(file, 'x');
      // A changed size is reported before the range is compared with the count.
      await assert.rejects(store.readRange(ref.artifactId, 9_000, 10_001), /^EvidenceError: artifact digest does not match its recorded identity$/);
    });

    it('refuses bounds too large for any integer type', async () => {
      const { store, ref } = await stored();
      for (const [s, e] of [[0, 2 ** 53], [0, Number.MAX_VALUE], [0, Infinity], [2 ** 64, 2 ** 64 + 4096], [Number.NaN, 1]] as const) {
        await assert.rejects(store.readRange(ref.artifactId, s, e), /0 <= start < end/);
      }
      assert.throws(() => store.rangePath(ref.artifactId, 0, 2 ** 53), /0 <= start < end/);
    });

    it('never returns a tampered byte; a tamper outside the range leaves the range readable', async () => {
      const { store, ref, file } = await stored(1024);
      await flipByte(file, 5_000); // chunk 4
      assert.deepEqual(await store.readRange(ref.artifactId, 0, 1024), data.subarray(0, 1024));
      assert.deepEqual(await store.readRange(ref.artifactId, 6_000, 10_000), data.subarray(6_000, 10_000));
      await assert.rejects(store.readRange(ref.artifactId, 5_000, 5_001), DIGEST);
      await assert.rejects(store.readRange(ref.artifactId, 4_100, 4_200), DIGEST); // same chunk, other bytes
      assert.equal(await store.verify(ref.artifactId), false);
    });

    it('reports a truncated, extended, deleted or symlinked artifact file as a digest mismatch', async () => {
      const { store, ref, file } = await stored();
      const original = await fsp.readFile(file);
      const cases: [string, () => Promise<void>][] = [
        ['truncated', () => fsp.writeFile(file, original.subarray(0, 9_999))],
        ['extended', () => fsp.writeFile(file, Buffer.concat([original, Buffer.from('\n')]))],
        ['deleted', () => fsp.rm(file)],
        ['symlink to identical bytes', async () => {
          await fsp.writeFile(path.join(t.dir, 'copy'), original);
          await fsp.rm(file);
          await fsp.symlink(path.join(t.dir, 'copy'), file);
        }],
        ['folder', async () => { await fsp.rm(file); await fsp.mkdir(file); }],
      ];
      for (const [name, damage] of cases) {
        await damage();
        await assert.rejects(store.readRange(ref.artifactId, 0, 10), DIGEST, name);
        assert.equal(await store.verify(ref.artifactId), false, name);
        await fsp.rm(file, { recursive: true, force: true });
        await fsp.writeFile(file, original);
        assert.deepEqual(await store.readRange(ref.artifactId, 0, 10), data.subarray(0, 10), `${name}: restored`);
      }
    });

    it('does not hang on a FIFO planted under an artifact\'s name', async () => {
      const { store, ref, file } = await stored();
      await fsp.rm(file);
      assert.equal(spawnSync('mkfifo', [file]).status, 0);
      await assert.rejects(store.readRange(ref.artifactId, 0, 10), DIGEST);
    });

    it('detects a manifest rewritten or removed behind its back', async () => {
      const { store, ref } = await stored();
      const manifest = path.join(t.dir, '.manifests', `${ref.artifactId}.manifest`);
      const fresh = await ArtifactStore.open(t.dir, { durable: false });
      fresh.register(ref, store.manifestDigestOf(ref.artifactId));
      // A well-formed manifest of other bytes, written over ours.
      const other = await ArtifactStore.open(t.dir, { durable: false, chunkSize: 512 });
      const otherRef = await other.put(pattern(10_000, 2));
      await fsp.copyFile(path.join(t.dir, '.manifests', `${otherRef.artifactId}.manifest`), manifest);
      await assert.rejects(fresh.readRange(ref.artifactId, 0, 10), DIGEST);
      assert.equal(await fresh.verify(ref.artifactId), false);
      await fsp.rm(manifest);
      const again = await ArtifactStore.open(t.dir, { durable: false });
      again.register(ref, store.manifestDigestOf(ref.artifactId));
      await assert.rejects(again.readRange(ref.artifactId, 0, 10), DIGEST);
    });

    it('verify is a full check: a change anywhere is reported, an intact artifact passes', async () => {
      const { store, ref, file } = await stored(4096);
      assert.equal(await store.verify(ref.artifactId), true);
      await flipByte(file, 9_999); // the last byte, in the last (short) chunk
      assert.equal(await store.verify(ref.artifactId), false);
      await assert.rejects(store.verify(`artifact-${sha256hex('unknown')}`), /not available/);
      await assert.rejects(store.verify('nope'), /artifact id is invalid/);
    });
  });

  describe('knowing artifacts', () => {
    it('a second store over another root cannot read an artifact it never registered', async () => {
      const a = await ArtifactStore.open(t.dir, { durable: false });
      const ref = await a.put('secret result');
      await fsp.mkdir(path.join(t.dir, 'other'));
      const b = await ArtifactStore.open(path.join(t.dir, 'other'), { durable: false });
      await assert.rejects(b.readRange(ref.artifactId, 0, 3), NOT_AVAILABLE);
      // Even with the very file copied under its name, knowing the name is not enough.
      await fsp.copyFile(path.join(t.dir, ref.artifactId), path.join(t.dir, 'other', ref.artifactId));
      await assert.rejects(b.readRange(ref.artifactId, 0, 3), NOT_AVAILABLE);
      assert.equal(b.has(ref.artifactId), false);
      assert.deepEqual(b.list(), []);
    });

    it('two tenants putting the same bytes each keep and serve their own copy', async () => {
      const a = await ArtifactStore.open(t.dir, { tenant: 'a', durable: false });
      const b = await ArtifactStore.open(t.dir, { tenant: 'b', durable: false });
      const ra = await a.put('shared bytes');
      await assert.rejects(b.readRange(ra.artifactId, 0, 6), NOT_AVAILABLE);
      const rb = await b.put('shared bytes');
      assert.deepEqual(rb, ra);
      await fsp.rm(path.join(t.dir, 'a', ra.artifactId));
      await assert.rejects(a.readRange(ra.artifactId, 0, 6), DIGEST);
      assert.equal(new TextDecoder().decode(await b.readRange(rb.artifactId, 0, 6)), 'shared');
    });

    it('re-registers artifacts from records: with a manifest digest, or by a full verification', async () => {
      const first = await ArtifactStore.open(t.dir, { durable: false, chunkSize: 2048 });
      const data = pattern(9_000, 4);
      const ref = await first.put(data);
      const digest = first.manifestDigestOf(ref.artifactId)!;
      assert.match(digest, /^[0-9a-f]{64}$/);

      const withDigest = await ArtifactStore.open(t.dir, { durable: false });
      withDigest.register(ref, digest);
      assert.deepEqual(await withDigest.readRange(ref.artifactId, 100, 5_000), data.subarray(100, 5_000));

      const without = await ArtifactStore.open(t.dir, { durable: false });
      without.register(ref);
      assert.equal(without.manifestDigestOf(ref.artifactId), undefined);
      assert.deepEqual(await without.readRange(ref.artifactId, 8_000, 9_000), data.subarray(8_000, 9_000));
      assert.equal(without.manifestDigestOf(ref.artifactId), digest);

      // No manifest at all and no digest: rebuilt from the file once the file matches the identity.
      await fsp.rm(path.join(t.dir, '.manifests', `${ref.artifactId}.manifest`));
      const rebuilt = await ArtifactStore.open(t.dir, { durable: false });
      rebuilt.register(ref);
      assert.deepEqual(await rebuilt.readRange(ref.artifactId, 0, 10), data.subarray(0, 10));
      assert.equal(await rebuilt.verify(ref.artifactId), true);

      // Without a digest, a tampered file is caught by the full verification, wherever the change is.
      await flipByte(path.join(t.dir, ref.artifactId), 8_999);
      const late = await ArtifactStore.open(t.dir, { durable: false });
      late.register(ref);
      await assert.rejects(late.readRange(ref.artifactId, 0, 10), DIGEST);
    });

    it('validates what it registers', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const sha = sha256hex('x');
      assert.throws(() => store.register({ artifactId: `artifact-${sha}`, byteCount: -1, sha256: sha }), /byte count/);
      assert.throws(() => store.register({ artifactId: `artifact-${sha}`, byteCount: 1, sha256: sha }, 'not-a-digest'), /manifest digest/);
    });

    it('lists, forgets and deletes', async () => {
      const store = await ArtifactStore.open(t.dir, { durable: false });
      const x = await store.put('x');
      const y = await store.put('y');
      assert.deepEqual(store.list(), [x, y].sort((p, q) => (p.artifactId < q.artifactId ? -1 : 1)));
      assert.deepEqual(store.ref(x.artifactId), x);
      assert.equal(store.forget(x.artifactId), true);
      await assert.rejects(store.readRange(x.artifactId, 0, 1), NOT_AVAILABLE);
      assert.equal(await store.delete(y.artifactId), true);
      assert.equal(await store.delete(y.artifactId), false);
      assert.deepEqual(await fsp.readdir(t.dir), ['.manifests', VERIFIED_MARKS_FILE, x.artifactId]);
      assert.equal(store.rangePath(x.artifactId, 0, 1), `.tool-artifacts/${x.artifactId}/bytes/0-1`);
    });
  });

  describe('crashes', () => {
    it('a process killed during putStream leaves nothing under the artifact\'s name; the store still works', async function () {
      this.timeout(30_000);
      const script = path.join(__dirname, 'evidence', 'killedPut.ts');
      const child = spawn(process.execPath, ['--import', 'tsx', script, t.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (b: Buffer) => { if (b.toString().includes('writing')) resolve(); });
        child.on('exit', (code) => reject(new Error(`child exited early: ${code}`)));
      });
      // The child has written at least 2 MiB of a 16 MiB stream and is waiting for more.
      const temps = (await fsp.readdir(t.dir)).filter((n) => n.startsWith('.tmp-'));
      assert.equal(temps.length, 1);
      assert.ok((await fsp.stat(path.join(t.dir, temps[0]!))).size >= 2 * 1024 * 1024);
      const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');

      const fullId = `artifact-${sha256hex(killedPutBytes())}`;
      assert.deepEqual(await artifactNames(t.dir), []);
      await assert.rejects(fsp.stat(path.join(t.dir, fullId)), /ENOENT/);

      const store = await ArtifactStore.open(t.dir, { durable: false });
      const ref = await store.put(killedPutBytes());
      assert.equal(ref.artifactId, fullId);
      assert.equal(await store.verify(fullId), true);
      // The abandoned temp file is dot-named metadata; once stale, opening removes it.
      const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
      await fsp.utimes(path.join(t.dir, temps[0]!), old, old);
      await ArtifactStore.open(t.dir);
      assert.deepEqual(await fsp.readdir(t.dir), ['.manifests', VERIFIED_MARKS_FILE, fullId]);
    });
  });
});

/** The stream the killed child was putting (16 MiB), see evidence/killedPut.ts. */
function killedPutBytes(): Uint8Array {
  const out = new Uint8Array(16 * 1024 * 1024);
  for (let i = 0; i < 16; i++) out.fill(i + 1, i * 1024 * 1024, (i + 1) * 1024 * 1024);
  return out;
}

