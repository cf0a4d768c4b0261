import * as assert from 'node:assert/strict';
import { matchChars } from '../../../../src/core/runs/search/patternAnalysis.js';
import { mergeLanes } from '../../../../src/core/runs/search/patternMerge.js';
import type { MatcherSetup, PatternMatch } from '../../../../src/core/runs/search/patternProtocol.js';
import { PatternMatcher } from '../../../../src/core/runs/search/patternWorker.js';

const match = (line: number, text: string): PatternMatch => ({ line_number: line, byte_offset: 0, column: 1, text });

describe('one match cost for the matcher and the join of two lanes (docs/contracts.md §2.10)', () => {
  it('a match costs "<line_number>:<text>", plus one separator after another match', () => {
    assert.equal(matchChars(false, 7, 'error'), '7:error'.length);
    assert.equal(matchChars(true, 1234, 'é€'), '\n1234:é€'.length);
  });

  it('the matcher and mergeLanes stop at the same budget: a page filled to exactly maxContentChars, one character less cuts it', () => {
    // Lines 1, 3 and 4 match; the page costs "1:hit 1" + "\n3:hit 2" + "\n4:hit 3" = 23 characters.
    const content = Buffer.from('hit 1\nmiss\nhit 2\nhit 3\n');
    const setup = (maxContentChars: number): PatternMatcher => {
      const s: MatcherSetup = {
        pattern: 'hit',
        binary: false,
        offset: 0,
        limit: 10,
        maxContentChars,
        maxLineChars: 100,
        maxLineBytes: 400,
        cutMarker: '[…]',
        chunkSize: content.length,
        chunkNewlines: [4],
      };
      const m = new PatternMatcher(s);
      m.piece(content, 0);
      return m;
    };
    const full = setup(23);
    assert.deepEqual(full.end(), {
      totalMatches: 3,
      cut: false,
      matches: [
        { line_number: 1, byte_offset: 0, column: 1, text: 'hit 1' },
        { line_number: 3, byte_offset: 11, column: 1, text: 'hit 2' },
        { line_number: 4, byte_offset: 17, column: 1, text: 'hit 3' },
      ],
    });
    const lanes = (max: number): ReturnType<typeof mergeLanes> =>
      mergeLanes(
        { totalMatches: 1, matches: [match(1, 'hit 1')], cut: false, stoppedByBudget: false },
        { totalMatches: 2, matches: [match(3, 'hit 2'), match(4, 'hit 3')], cut: false, stoppedByBudget: false },
        10,
        max,
      );
    assert.deepEqual([lanes(23).matches.length, lanes(23).cut], [3, false]);
    assert.deepEqual([lanes(22).matches.length, lanes(22).cut], [2, true]);
    const short = setup(22);
    const r = short.end();
    assert.deepEqual([r.matches.length, r.cut, short.stoppedByBudget], [2, true, true]);
  });
});
