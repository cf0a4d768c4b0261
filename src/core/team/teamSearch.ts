/** One answer from several stores (docs/contracts.md §7.2), totals summed so `total_matches` stays honest. */
import type { SearchAllResult } from '../runs/reading/searchAll.js';

export function mergeSearches(results: readonly SearchAllResult[], limit: number): SearchAllResult {
  const [first, ...rest] = results;
  if (!first || rest.length === 0) return first!;
  const all = results.flatMap((r) => r.matches);
  const matches = all.slice(0, limit);
  const stopped = results.filter((r) => r.complete === false);
  const sum = (f: (r: SearchAllResult) => number | undefined): number => results.reduce((n, r) => n + (f(r) ?? 0), 0);
  return {
    pattern: first.pattern,
    total_matches: sum((r) => r.total_matches),
    outputs_searched: sum((r) => r.outputs_searched),
    outputs_matched: sum((r) => r.outputs_matched),
    returned: matches.length,
    truncated: results.some((r) => r.truncated) || all.length > matches.length,
    matches,
    ...(stopped.length > 0 && {
      complete: false as const,
      time_limit_ms: stopped[0]!.time_limit_ms,
      // Of the stores the time limit stopped: the others were searched whole.
      calls_searched: stopped.reduce((n, r) => n + (r.calls_searched ?? 0), 0),
      calls_total: stopped.reduce((n, r) => n + (r.calls_total ?? 0), 0),
    }),
  };
}
