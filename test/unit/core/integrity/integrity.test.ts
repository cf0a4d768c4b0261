import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  decodeManifest,
  encodeManifest,
  ManifestBuilder,
  manifestOf,
  readVerified,
  streamVerified,
  verifyAll,
  locateLine,
  type RangeSource,
} from '../../../../src/core/integrity/integrity.js';
import { Utf8Validator } from '../../../../src/core/utf8.js';
import fc from 'fast-check';

function memorySource(bytes: Uint8Array): RangeSource & { bytes: Uint8Array } {
  const src = {
    bytes,
    async size() {
      return src.bytes.length;
    },
    async read(s: number, e: number) {
      return src.bytes.slice(s, e);
    },
  };
  return src;
}

describe('integrity: chunk manifests and verified reads', () => {
  const data = new Uint8Array(200_000).map((_, i) => (i % 97 === 0 ? 10 : 65 + (i % 26)));

  it('records the whole sha256, per-chunk digests and newline counts', () => {
    const m = manifestOf(data, 65536);
    assert.equal(m.sha256, createHash('sha256').update(data).digest('hex'));
    assert.equal(m.byteCount, 200_000);
    assert.equal(m.chunkNewlines.length, 4);
    assert.equal(m.chunkDigests.length, 4 * 32);
    assert.equal(
      [...m.chunkNewlines].reduce((a, b) => a + b, 0),
      data.filter((b) => b === 10).length,
    );
  });

  it('gives the same manifest whatever the piece sizes fed', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 70000 }), { minLength: 1, maxLength: 8 }), (cuts) => {
        const b = new ManifestBuilder(65536);
        let p = 0;
        for (const c of cuts) {
          b.update(data.subarray(p, Math.min(p + c, data.length)));
          p = Math.min(p + c, data.length);
        }
        b.update(data.subarray(p));
        assert.deepEqual(encodeManifest(b.finish()), encodeManifest(manifestOf(data, 65536)));
      }),
      { numRuns: 200 },
    );
  });

  it('round-trips through its encoding and rejects a damaged one', () => {
    const m = manifestOf(data);
    assert.deepEqual(decodeManifest(encodeManifest(m)), m);
    const bad = encodeManifest(m).slice(0, -1);
    assert.throws(() => decodeManifest(bad), /artifact digest does not match its recorded identity/);
  });

  it('returns exact bytes and refuses a tampered chunk, a changed size and bad bounds', async () => {
    const src = memorySource(Uint8Array.from(data));
    const m = manifestOf(data, 65536);
    assert.deepEqual(await readVerified(src, m, 70_000, 74_096), data.subarray(70_000, 74_096));
    await assert.rejects(readVerified(src, m, 5, 5), /0 <= start < end/);
    await assert.rejects(readVerified(src, m, 0, 200_001), /exceeds the stored byte count/);
    src.bytes[131_072] = src.bytes[131_072]! ^ 1; // inside chunk 2, outside the first range
    assert.deepEqual(await readVerified(src, m, 70_000, 74_096), data.subarray(70_000, 74_096));
    await assert.rejects(readVerified(src, m, 131_000, 131_100), /digest does not match/);
    assert.equal(await verifyAll(src, m), false);
    src.bytes = Uint8Array.from(data).subarray(0, 199_999);
    await assert.rejects(readVerified(src, m, 0, 10), /digest does not match/);
  });

  it('streams verified pieces that concatenate to the range', async () => {
    const src = memorySource(Uint8Array.from(data));
    const m = manifestOf(data, 4096);
    const parts: Uint8Array[] = [];
    for await (const p of streamVerified(src, m, 1234, 150_000)) parts.push(p);
    assert.deepEqual(Buffer.concat(parts), Buffer.from(data.subarray(1234, 150_000)));
    assert.equal(await verifyAll(src, m), true);
  });

  it('refuses a missing or grown file even for empty content', async () => {
    const m = manifestOf(new Uint8Array(0));
    assert.equal(await verifyAll(memorySource(new Uint8Array(0)), m), true);
    assert.equal(await verifyAll(memorySource(new Uint8Array(1)), m), false);
    const gone: RangeSource = {
      async size() {
        return undefined;
      },
      async read() {
        return new Uint8Array(0);
      },
    };
    assert.equal(await verifyAll(gone, m), false);
  });

  it('locates a line through the sparse index', () => {
    const m = manifestOf(data, 4096);
    const loc = locateLine(m, 100)!;
    // newline k (1-based) sits at byte 97*(k-1); line 100 starts after newline 100.
    const lineStart = 97 * 99 + 1;
    assert.equal(loc.chunk, Math.floor((lineStart - 1) / 4096));
  });
});

describe('utf8: streaming validation', () => {
  it('agrees with a strict decoder for any split of any bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.array(fc.nat(64), { maxLength: 5 }),
        fc.string({ unit: 'binary' }),
        (raw, cuts, text) => {
          for (const bytes of [raw, new TextEncoder().encode(text)]) {
            let expected = true;
            try {
              new TextDecoder('utf-8', { fatal: true }).decode(bytes);
            } catch {
              expected = false;
            }
            const v = new Utf8Validator();
            let p = 0;
            for (const c of [...cuts].sort((a, b) => a - b)) {
              v.update(bytes.subarray(p, Math.max(p, Math.min(c, bytes.length))));
              p = Math.max(p, Math.min(c, bytes.length));
            }
            v.update(bytes.subarray(p));
            assert.equal(v.finish(), expected);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
