/**
 * One search across every kept output for the panel: the core's `searchAllOutputs`,
 * cancellable by `cancelSearch`, with throttled progress.
 */
import { EvidenceError, searchAllOutputs, type RunStoreApi } from '../../core/index.js';
import type { HostToWebview, WebviewRequest } from '../../shared/protocol.js';

/** Least time between two progress messages of one search (ms): at most a few a second. */
const searchProgressMs = 250;
/** Searches across outputs one panel may run at once (a new one beyond this is refused). */
const maxSearches = 2;

/**
 * One search across every kept output (docs/contracts.md §3.4): the core's
 * `searchAllOutputs`, cancellable by `cancelSearch`, with throttled progress. The reply
 * holds at most `limit` (≤ 100) matches, each a bounded line window from the reader.
 */
export async function searchOutputs(
  msg: Extract<WebviewRequest, { type: 'searchOutputs' }>,
  openStore: () => Promise<RunStoreApi>,
  searches: Map<number, AbortController>,
  post: (message: HostToWebview) => void,
): Promise<void> {
  if (searches.size >= maxSearches)
    throw new EvidenceError('invalidArgument', 'another search is still running: cancel it or wait for it');
  // Registered before the first await, so a Cancel sent right after the request finds it.
  const controller = new AbortController();
  searches.set(msg.id, controller);
  let last = 0;
  try {
    const store = await openStore();
    const r = await searchAllOutputs(
      store,
      {
        pattern: msg.pattern,
        limit: msg.limit,
        ...(msg.tool !== undefined ? { tool: msg.tool } : {}),
        ...(msg.run !== undefined ? { run: msg.run } : {}),
      },
      {
        signal: controller.signal,
        onProgress: (callsDone, callsTotal) => {
          const now = performance.now();
          if (now - last < searchProgressMs && callsDone < callsTotal) return;
          last = now;
          post({ type: 'searchProgress', searchId: msg.id, callsDone, callsTotal });
        },
      },
    );
    post({
      type: 'searchResults',
      id: msg.id,
      pattern: r.pattern,
      totalMatches: r.total_matches,
      outputsSearched: r.outputs_searched,
      outputsMatched: r.outputs_matched,
      truncated: r.truncated,
      ...(r.complete === false && {
        stopped: { timeLimitMs: r.time_limit_ms!, callsSearched: r.calls_searched!, callsTotal: r.calls_total! },
      }),
      matches: r.matches.map((m) => ({
        handle: m.handle,
        tool: m.tool,
        runId: m.runId,
        lineNumber: m.line_number,
        byteOffset: m.byte_offset,
        column: m.column,
        text: m.text,
        ...(m.window ? { window: m.window } : {}),
      })),
    });
  } finally {
    searches.delete(msg.id);
  }
}
