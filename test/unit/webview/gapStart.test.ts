/** The gap's window starts at the start of the line the preview's head cut. */
import * as assert from 'node:assert/strict';
import { gapStart } from '../../../webview/detail/gapStart.js';

describe('gapStart', () => {
  it('goes back to the start of the cut line, counting UTF-8 bytes', () => {
    assert.equal(gapStart('line 1\nline 2\nli', 16), 14);
    assert.equal(gapStart('a\néé', 6), 2);
  });
  it('stays at the cut when the head ends a line', () => {
    assert.equal(gapStart('line 1\n', 7), 7);
  });
  it('stays at the cut when the cut line is over 4 KiB', () => {
    assert.equal(gapStart(`a\n${'x'.repeat(4097)}`, 4099), 4099);
    assert.equal(gapStart(`a\n${'x'.repeat(4096)}`, 4098), 2);
  });
  it('a head of one line goes back to byte 0', () => {
    assert.equal(gapStart('abc', 3), 0);
  });
});
