import * as assert from 'node:assert/strict';
import {
  decideAttachmentShownWhole,
  decideAttachmentStorage,
  decideElision,
  decideOffload,
  decideResultStorage,
  lineCountOf,
  makePreview,
  measureResult,
  omissionMarker,
  profileHash,
} from '../../../../src/core/runs/recording/decisions.js';
import { encodeUtf8 } from '../../../../src/core/utf8.js';

describe('run decisions (pure, docs/contracts.md §2.1 and §2.4)', () => {
  it('elision: exactly at largeResultBytes stays whole, one byte more is elided', () => {
    assert.equal(decideElision(4096, 4096), false);
    assert.equal(decideElision(4097, 4096), true);
    assert.equal(decideElision(0, 1), false);
  });

  it('binary is always elided, even one byte; text at the threshold is not', () => {
    assert.equal(decideElision(1, 4096, true), true);
    assert.equal(decideElision(4096, 4096, false), false);
    assert.deepEqual(
      decideResultStorage({
        resultBytes: 10,
        largeResultBytes: 4096,
        offloadThresholdBytes: 16384,
        hasBlobStore: true,
        binary: true,
      }),
      { elide: true, offload: false, stored: 'inline' },
    );
  });

  it('an attachment is shown whole only as inline text that fits (all together, or the exit value, or within the preview)', () => {
    const base = {
      name: 'stdout',
      sizeBytes: 5000,
      stored: 'inline' as const,
      binary: false,
      allFit: true,
      previewBytes: 1024,
    };
    assert.equal(decideAttachmentShownWhole(base), true);
    assert.equal(decideAttachmentShownWhole({ ...base, allFit: false }), false);
    assert.equal(decideAttachmentShownWhole({ ...base, allFit: false, sizeBytes: 1024 }), true);
    assert.equal(decideAttachmentShownWhole({ ...base, allFit: false, name: 'value' }), true);
    assert.equal(decideAttachmentShownWhole({ ...base, binary: true }), false);
    assert.equal(decideAttachmentShownWhole({ ...base, stored: 'blob' }), false);
  });

  it('offload: exactly at the threshold stays inline, one byte more goes to the blob store', () => {
    assert.equal(decideOffload(16384, 16384), false);
    assert.equal(decideOffload(16385, 16384), true);
  });

  it('offload forces elision whatever largeResultBytes says', () => {
    assert.deepEqual(
      decideResultStorage({
        resultBytes: 16385,
        largeResultBytes: 1_000_000,
        offloadThresholdBytes: 16384,
        hasBlobStore: true,
      }),
      { elide: true, offload: true, stored: 'blob' },
    );
    assert.deepEqual(
      decideResultStorage({
        resultBytes: 16384,
        largeResultBytes: 1_000_000,
        offloadThresholdBytes: 16384,
        hasBlobStore: true,
      }),
      { elide: false, offload: false, stored: 'inline' },
    );
    assert.deepEqual(
      decideResultStorage({
        resultBytes: 5000,
        largeResultBytes: 4096,
        offloadThresholdBytes: 16384,
        hasBlobStore: true,
      }),
      { elide: true, offload: false, stored: 'inline' },
    );
  });

  it('no blob store: elision unchanged, a result needing offload is an explicit failure', () => {
    assert.deepEqual(
      decideResultStorage({
        resultBytes: 5000,
        largeResultBytes: 4096,
        offloadThresholdBytes: 16384,
        hasBlobStore: false,
      }),
      { elide: true, offload: false, stored: 'inline' },
    );
    assert.deepEqual(
      decideResultStorage({
        resultBytes: 16385,
        largeResultBytes: 4096,
        offloadThresholdBytes: 16384,
        hasBlobStore: false,
      }),
      { elide: true, offload: true, stored: 'preview_only', failure: 'blob_store_required' },
    );
  });

  it('attachments: inline up to the threshold, blob above, preview_only or failure without a store', () => {
    const base = { inlineAttachmentBytes: 4096, hasBlobStore: true, preservation: 'best_effort' as const };
    assert.deepEqual(decideAttachmentStorage({ ...base, sizeBytes: 4096 }), { stored: 'inline', readable: true });
    assert.deepEqual(decideAttachmentStorage({ ...base, sizeBytes: 4097 }), { stored: 'blob', readable: true });
    assert.deepEqual(decideAttachmentStorage({ ...base, sizeBytes: 4097, hasBlobStore: false }), {
      stored: 'preview_only',
      readable: false,
    });
    assert.deepEqual(
      decideAttachmentStorage({ ...base, sizeBytes: 4097, hasBlobStore: false, preservation: 'required' }),
      { stored: 'preview_only', readable: false, failure: 'blob_store_required' },
    );
    assert.deepEqual(
      decideAttachmentStorage({ ...base, sizeBytes: 10, hasBlobStore: false, preservation: 'required' }),
      { stored: 'inline', readable: true },
    );
  });

  it('measures text as TextEncoder bytes, never rewritten; structured as compact JSON in the given key order', () => {
    assert.deepEqual([...measureResult('é\r\n').bytes], [0xc3, 0xa9, 13, 10]);
    assert.deepEqual([...measureResult('\ud800').bytes], [0xef, 0xbf, 0xbd]);
    assert.deepEqual([...measureResult('\ufeffx').bytes], [0xef, 0xbb, 0xbf, 0x78]);
    const s = measureResult({ b: 1, a: [1, 'é'], c: { d: null } });
    assert.equal(Buffer.from(s.bytes).toString('utf8'), '{"b":1,"a":[1,"é"],"c":{"d":null}}');
    assert.equal(s.bytes.length, 35);
    assert.equal(s.contentType, 'application/json');
    assert.equal(s.structured, true);
    assert.equal(measureResult(Uint8Array.from([0xff, 0xfe])).contentType, 'application/octet-stream');
    assert.equal(measureResult(encodeUtf8('ok')).contentType, 'text/plain; charset=utf-8');
    assert.throws(() => measureResult({ n: 1n } as object), /structured result cannot be encoded as JSON/);
    assert.throws(() => measureResult((() => 1) as unknown as object), /structured result cannot be encoded as JSON/);
  });

  it('profile hash: stable, order-free over tools, changed by limits only', () => {
    const p = { largeResultBytes: 4096, previewBytes: 1024, tools: ['b', 'a'] };
    const h = profileHash(p);
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.equal(profileHash({ ...p, tools: ['a', 'b', 'a'] }), h);
    assert.notEqual(profileHash({ ...p, largeResultBytes: 4097 }), h);
    assert.notEqual(profileHash({ ...p, previewBytes: 1023 }), h);
    assert.notEqual(profileHash({ ...p, tools: ['a'] }), h);
    // Pinned value: a change to the hashed form is a visible, deliberate change.
    assert.equal(h, profileHash({ tools: ['a', 'b'], previewBytes: 1024, largeResultBytes: 4096 }));
  });

  it('line counts: a last line without \\n counts, an empty output has none', () => {
    assert.equal(lineCountOf(0, 0, undefined), 0);
    assert.equal(lineCountOf(0, 1, 97), 1);
    assert.equal(lineCountOf(1, 2, 10), 1);
    assert.equal(lineCountOf(1, 3, 98), 2);
    assert.equal(lineCountOf(1, 1, 10), 1);
  });

  it('previews: whole when small, else head/tail cut between code points with the omitted gap', () => {
    const small = encodeUtf8('héllo');
    assert.deepEqual(makePreview(small, small, 6, 6, false), { text: 'héllo' });
    const euros = encodeUtf8('€€€€€€'); // 18 bytes, each € is 3
    // P = 8: head budget 4 -> 3 (one €); tail wants 18 - 4 = 14, inside a € -> 15.
    assert.deepEqual(makePreview(euros.subarray(0, 8), euros.subarray(10), 18, 8, false), {
      text: `€${omissionMarker(12)}€`,
      range: { headEnd: 3, tailStart: 15 },
    });
    assert.equal(omissionMarker(12), '\n[… 12 bytes omitted …]\n');
    assert.deepEqual(makePreview(Uint8Array.from([0xff]), Uint8Array.from([0xff]), 100, 8, true), { text: '' });
    const ascii = encodeUtf8('0123456789');
    assert.deepEqual(makePreview(ascii.subarray(0, 5), ascii.subarray(5), 10, 5, false), {
      text: `012${omissionMarker(5)}89`,
      range: { headEnd: 3, tailStart: 8 },
    });
  });
});
