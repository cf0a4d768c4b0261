/**
 * Joining the two lanes of a split pattern search (docs/contracts.md §2.10): pure, used by
 * the file search (`fileSearch.ts`) and tested against one matcher over the whole content.
 */
import { matchChars } from './patternAnalysis.js';
import type { PatternSearchResult } from './patternProtocol.js';

/** One lane's answer: the page it collected from offset 0, and whether the content budget stopped it. */
export interface LaneResult extends PatternSearchResult {
  readonly stoppedByBudget: boolean;
}

/**
 * The answer of one search split in two lanes at a chunk boundary (docs/contracts.md §2.10),
 * both run with offset 0: exactly what one matcher over the whole content returns. The
 * first lane's page is taken whole; the second lane's matches continue it while the page
 * has room by the same rule `found` applies (`limit`, then `maxContentChars` counted by
 * `matchChars`), and `cut` says what it says for one matcher:
 * a returned match shown as a window, or the content budget stopping the page.
 */
export function mergeLanes(a: LaneResult, b: LaneResult, limit: number, maxContentChars: number): PatternSearchResult {
  const matches = [...a.matches];
  let cut = a.cut;
  let chars = 0;
  matches.forEach((m, i) => {
    chars += matchChars(i > 0, m.line_number, m.text);
  });
  if (!a.stoppedByBudget && matches.length < limit) {
    let all = true;
    for (const m of b.matches) {
      if (matches.length >= limit) {
        all = false;
        break;
      }
      if (m.window) cut = true;
      const need = matchChars(matches.length > 0, m.line_number, m.text);
      if (chars + need > maxContentChars) {
        cut = true;
        all = false;
        break;
      }
      chars += need;
      matches.push(m);
    }
    // The second lane's own budget stopped it before the page was full: so would one matcher.
    if (all && b.stoppedByBudget && matches.length < limit) cut = true;
  }
  return { totalMatches: a.totalMatches + b.totalMatches, matches, cut };
}
