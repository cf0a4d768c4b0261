/** The hook's own SHA-256 (src/core/reach/sha256.ts) gives node:crypto's digest for every text it may be given. */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../../../src/core/reach/sha256.js';

describe('sha256Hex', () => {
  it("equals node:crypto's digest at every padding boundary, for any UTF-8 text (property)", () => {
    const crypto = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (let n = 0; n <= 300; n++) assert.equal(sha256Hex('a'.repeat(n)), crypto('a'.repeat(n)), `${n} bytes`);
    // A fixed seed: the same texts every run.
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = ['a', '/', ' ', 'é', '€', '𝄞', '\n', '\u0000', "'", 'Z'];
    for (let k = 0; k < 2000; k++) {
      let t = '';
      for (let n = next() % 90; n > 0; n--) t += alphabet[next() % alphabet.length];
      assert.equal(sha256Hex(t), crypto(t), JSON.stringify(t));
    }
  });
});
