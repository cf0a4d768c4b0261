import { EvidenceError, searchAllOutputs, type RunStoreApi } from '../../core/index.js';
import type { HostToWebview, WebviewRequest } from '../../shared/protocol.js';

const searchProgressMs = 250;
/** A new one beyond this is refused. */
const maxSearches = 2;

/** docs/contracts.md §3.4. */
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
