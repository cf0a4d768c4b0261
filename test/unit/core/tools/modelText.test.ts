import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  boundModelText,
  CUT_MARKER,
  decodeUtf8Strict,
  fitsModel,
  MODEL_TEXT_LIMIT_BYTES,
  runLabel,
  utf8Bytes,
} from '../../../../src/core/index.js';

describe('model text bound (under 8 KiB, cut between code points)', () => {
  it('keeps text that fits unchanged, byte for byte', () => {
    const t = 'x'.repeat(MODEL_TEXT_LIMIT_BYTES - 1);
    assert.equal(boundModelText(t), t);
    assert.equal(fitsModel('x'.repeat(MODEL_TEXT_LIMIT_BYTES)), false, 'exactly 8 KiB is not under it');
  });

  it('cuts longer text to a valid UTF-8 prefix plus the marker, under the limit', () => {
    // Mixtures of 1-, 2-, 3- and 4-byte characters around the limit.
    const text = fc
      .array(fc.constantFrom('a', '\n', 'é', '€', '😀', '"'), { minLength: 1500, maxLength: 5000 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(text, (s) => {
        const out = boundModelText(s);
        assert.ok(utf8Bytes(out) < MODEL_TEXT_LIMIT_BYTES);
        if (out !== s) {
          assert.ok(out.endsWith(CUT_MARKER));
          const kept = out.slice(0, -CUT_MARKER.length);
          // The kept part is exactly the first bytes of the input's UTF-8 encoding.
          assert.ok(Buffer.from(s, 'utf8').subarray(0, utf8Bytes(kept)).equals(Buffer.from(kept, 'utf8')));
          decodeUtf8Strict(Buffer.from(kept, 'utf8'));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('never splits a 4-byte character at the cut', () => {
    const out = boundModelText('😀'.repeat(3000));
    const kept = out.slice(0, -CUT_MARKER.length);
    assert.equal(utf8Bytes(kept) % 4, 0);
    assert.ok(!kept.includes('\uFFFD'));
  });

  it('labels runs with one line of at most 400 characters (a command line whole: the text filter finds its end)', () => {
    assert.equal(runLabel('mcp run', 'echo  a\n b'), 'mcp run: echo a b');
    assert.equal(runLabel('read', 'x'.repeat(400)), `read: ${'x'.repeat(400)}`);
    assert.equal(runLabel('read', 'x'.repeat(401)), `read: ${'x'.repeat(399)}…`);
  });
});
