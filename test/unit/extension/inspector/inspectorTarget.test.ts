/**
 * The Open Inspector command's argument is checked before the panel sees it
 * (docs/contracts.md §3.4, "Links"): a window needs a handle, is capped to one panel
 * window, and a malformed one is dropped rather than posted.
 */
import * as assert from 'node:assert/strict';
import { targetOf } from '../../../../src/extension/inspector/target.js';

describe('inspector target from the Open Inspector command', () => {
  it('keeps a handle with a window of lines or bytes, capped to one panel window', () => {
    assert.deepEqual(targetOf({ handle: 'out_a_stdout', window: { kind: 'lines', offset: 30, count: 2 } }), {
      handle: 'out_a_stdout',
      window: { kind: 'lines', offset: 30, count: 2 },
    });
    assert.deepEqual(targetOf({ handle: 'out_a_stdout', window: { kind: 'lines', offset: 0, count: 5000 } }), {
      handle: 'out_a_stdout',
      window: { kind: 'lines', offset: 0, count: 1000 },
    });
    assert.deepEqual(targetOf({ handle: 'out_a_stdout', window: { kind: 'bytes', start: 10, end: 17 } }), {
      handle: 'out_a_stdout',
      window: { kind: 'bytes', start: 10, end: 17 },
    });
    assert.deepEqual(targetOf({ handle: 'out_a_stdout', window: { kind: 'bytes', start: 100, end: 1_000_000 } }), {
      handle: 'out_a_stdout',
      window: { kind: 'bytes', start: 100, end: 100 + 65536 },
    });
  });

  it('drops a malformed window, a window without a handle, and anything that is not a target', () => {
    const bad: unknown[] = [
      { kind: 'lines', offset: -1, count: 1 },
      { kind: 'lines', offset: 0, count: 0 },
      { kind: 'lines', offset: 1.5, count: 1 },
      { kind: 'bytes', start: 5, end: 5 },
      { kind: 'bytes', start: '0', end: 4 },
      { kind: 'pattern', pattern: 'x', index: 0 },
      { kind: 'bytes', start: 0, end: Number.MAX_SAFE_INTEGER + 2 },
      'lines 1-2',
      null,
    ];
    for (const window of bad)
      assert.deepEqual(
        targetOf({ handle: 'out_a_stdout', window }),
        { handle: 'out_a_stdout' },
        JSON.stringify(window),
      );
    assert.deepEqual(targetOf({ runId: 'run-1', window: { kind: 'lines', offset: 0, count: 1 } }), { runId: 'run-1' });
    assert.equal(targetOf({ handle: '', window: { kind: 'lines', offset: 0, count: 1 } }), undefined);
    assert.equal(targetOf({ handle: 'x'.repeat(257) }), undefined);
    assert.equal(targetOf('out_a_stdout'), undefined);
    assert.equal(targetOf(undefined), undefined);
  });
});
