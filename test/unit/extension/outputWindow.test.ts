import * as assert from 'node:assert/strict';
import { linkedWindow, windowProblem } from '../../../src/extension/documents/outputWindow.js';

const text = { handle: 'out_t_stdout', byteCount: 5000, binary: false, lineCount: 400 };
const binary = { handle: 'out_b_stdout', byteCount: 64, binary: true, lineCount: 0 };

describe('one check of a window against an output (src/extension/documents/outputWindow.ts, docs/contracts.md §3.4)', () => {
  it('a link, Save Excerpt As and Compare refuse a window that does not fit with the same sentence', () => {
    const cases: [typeof text, Parameters<typeof linkedWindow>[1], Parameters<typeof windowProblem>[1], string][] = [
      [
        text,
        { line: 401 },
        { lines: { first: 401, last: 401 } },
        'out_t_stdout has 400 line(s); line 401 does not exist',
      ],
      [
        text,
        { line: 399, endLine: 402 },
        { lines: { first: 399, last: 402 } },
        'out_t_stdout has 400 line(s); line 402 does not exist',
      ],
      [
        text,
        { start: 10, end: 5001 },
        { bytes: { start: 10, end: 5001 } },
        'out_t_stdout has 5000 byte(s); bytes 10-5001 lie past its end',
      ],
      [
        binary,
        { line: 1 },
        { lines: { first: 1, last: 1 } },
        'out_b_stdout is binary: it has no lines; give bytes START-END',
      ],
    ];
    for (const [src, link, excerpt, sentence] of cases) {
      assert.equal(linkedWindow(src, link), sentence);
      assert.equal(windowProblem(src, excerpt), sentence);
    }
  });

  it("a window that fits is given in the panel's terms: lines as a 0-based offset and count, bytes as [start, end)", () => {
    assert.deepEqual(linkedWindow(text, { line: 398, endLine: 400 }), { kind: 'lines', offset: 397, count: 3 });
    assert.deepEqual(linkedWindow(text, { line: 7 }), { kind: 'lines', offset: 6, count: 1 });
    assert.deepEqual(linkedWindow(binary, { start: 0, end: 64 }), { kind: 'bytes', start: 0, end: 64 });
    // An empty output has one (empty) line.
    assert.deepEqual(linkedWindow({ ...text, byteCount: 0, lineCount: 0 }, { line: 1 }), {
      kind: 'lines',
      offset: 0,
      count: 1,
    });
  });
});
