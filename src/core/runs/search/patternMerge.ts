/**
 * Joining the two lanes of a split search (docs/contracts.md §2.10); tested against one matcher over the whole
 * content.
 */
import { matchChars } from './patternAnalysis.js';
import type { PatternSearchResult } from './patternProtocol.js';

export interface LaneResult extends PatternSearchResult {
  readonly stoppedByBudget: boolean;
}

/**
 * Exactly what one matcher over the whole content returns: the second lane continues the first's page by the same
 * rule `found` applies.
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
