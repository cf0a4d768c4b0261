/**
 * One pattern over every kept output of this tenant, newest call first
 * (docs/contracts.md §2.11): the core of `evidence_search` and of the inspector's search
 * box. Outputs are enumerated through the run store's call listing (`queryCalls`), each
 * searched by the same reader as `read_tool_output` (so positions, long lines, binary
 * content and time limits are §2.10's), and the matches are gathered until `limit`
 * while every output still adds to the honest total. One time limit (the reader's
 * `searchTimeoutMs`) covers the whole search: when it passes, the answer covers the
 * newest calls searched so far and says so (`complete: false`), rather than failing and
 * losing what was found.
 */
import { EvidenceError } from '../../errors.js';
import { SEARCH_CANCELLED_MESSAGE, SearchDeadlineError } from '../search/patternSearch.js';
import { checkPattern } from './reader.js';
import type { CallSummary, ReadToolOutputMatch, ReadToolOutputResult, RunStoreApi } from '../types.js';

/** Matches returned when the query names no limit. */
export const DEFAULT_SEARCH_LIMIT = 20;

/** What to search. */
export interface SearchAllQuery {
  /** A JavaScript regular expression (no flags), as `read_tool_output`'s. */
  readonly pattern: string;
  /** Only calls of this tool. */
  readonly tool?: string;
  /** Only calls of this run. */
  readonly run?: string;
  /** Matches returned at most (1–100, default 20); the total counts them all. */
  readonly limit?: number;
}

/** How to run it. */
export interface SearchAllOptions {
  /** Aborting stops the search (the current output's search too). */
  readonly signal?: AbortSignal;
  /** The whole search's time limit (ms); default the run store's `searchTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Called after each call's outputs were searched: calls done, of how many. */
  readonly onProgress?: (callsDone: number, callsTotal: number) => void;
}

/** One match, with where it is. */
interface SearchAllMatch extends ReadToolOutputMatch {
  readonly handle: string;
  readonly tool: string;
  readonly runId: string;
  /** The matching line as `read_tool_output` shows it (whole, or a window around the match). */
  readonly text: string;
}

/** The answer. */
export interface SearchAllResult {
  readonly pattern: string;
  /** Matching lines over every searched output. */
  readonly total_matches: number;
  readonly outputs_searched: number;
  /** Outputs that matched at least once. */
  readonly outputs_matched: number;
  readonly returned: number;
  /** True when more matches exist than were returned. */
  readonly truncated: boolean;
  readonly matches: readonly SearchAllMatch[];
  /**
   * Present when the time limit stopped the search: it then covers the newest
   * `calls_searched` of `calls_total` calls in scope (totals and matches are theirs).
   */
  readonly complete?: false;
  readonly time_limit_ms?: number;
  readonly calls_searched?: number;
  readonly calls_total?: number;
}

/**
 * The outputs of one call that can be read by handle: its attachments (not the exit
 * value) or, for a call without any, its result. A command's result is the summary of its
 * attachments (their previews): searching it too would count the same lines twice.
 */
function handlesOf(c: CallSummary): string[] {
  const out: string[] = [];
  if (c.handle && c.stored !== 'preview_only' && c.attachments.length === 0) out.push(c.handle);
  for (const a of c.attachments)
    if (a.name !== 'value' && a.stored !== 'preview_only' && a.sizeBytes > 0) out.push(a.handle);
  return out;
}

/** Checks the query (a bad one is one sentence, like every tool input). */
function checkSearchAllQuery(q: SearchAllQuery): Required<Omit<SearchAllQuery, 'tool' | 'run'>> & SearchAllQuery {
  checkPattern(q.pattern);
  const limit = q.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100)
    throw new EvidenceError('invalidArgument', 'limit must be an integer from 1 to 100');
  return { ...q, limit };
}

/** Page size of the call listing. */
const PAGE = 200;

/**
 * Output searches started ahead of the one being taken, so two run at once (their file
 * reads overlap, and a matching-bound search uses both cores). Measured (contracts §2.11):
 * three ahead made large outputs three times slower (the pool keeps two idle workers; the
 * others are started and torn down per search, on two cores).
 */
const AHEAD = 1;

/** How one output's search ended. */
type Outcome =
  | { readonly r: ReadToolOutputResult }
  | { readonly skip: true }
  | { readonly stop: true }
  | { readonly error: unknown };

/**
 * Searches every kept output (newest call first) for `pattern`. An output whose search
 * fails for a reason of its own (not kept, tampered) is skipped; a cancellation or a
 * catastrophic pattern stops the whole search with its error; the time limit
 * (`runs.searchTimeoutMs`, or `options.timeoutMs`) ends it with what the calls searched
 * so far hold (`complete: false`). A call is searched whole or not at all.
 */
export async function searchAllOutputs(
  runs: Pick<RunStoreApi, 'queryCalls' | 'readToolOutput' | 'searchTimeoutMs'>,
  query: SearchAllQuery,
  options: SearchAllOptions = {},
): Promise<SearchAllResult> {
  const q = checkSearchAllQuery(query);
  const timeLimit = options.timeoutMs ?? runs.searchTimeoutMs;
  const deadline = Date.now() + timeLimit;
  const matches: SearchAllMatch[] = [];
  let total = 0;
  let searched = 0;
  let matched = 0;
  let callsDone = 0;
  let callsTotal: number;
  let stopped = false;
  const cancelled = (): EvidenceError => new EvidenceError('invalidArgument', SEARCH_CANCELLED_MESSAGE);
  /** One output's search, settled as a value (never a rejection left waiting in the look-ahead). */
  const searchOne = (handle: string, want: number): Promise<Outcome> =>
    runs
      .readToolOutput({ handle, pattern: q.pattern, limit: want }, undefined, {
        deadline,
        ...(options.signal && { signal: options.signal }),
      })
      .then(
        (r): Outcome => ({ r }),
        (e: unknown): Outcome => {
          if (e instanceof SearchDeadlineError) return { stop: true };
          // This output cannot be read (gone, not kept, tampered): the others still can.
          if (
            e instanceof EvidenceError &&
            (e.code === 'missing' || e.code === 'accessDenied' || e.code === 'digestMismatch')
          )
            return { skip: true };
          return { error: e };
        },
      );
  pages: for (let offset = 0; ; offset += PAGE) {
    const page = await runs.queryCalls({
      offset,
      limit: PAGE,
      order: 'newest',
      ...(q.tool !== undefined && { tool: q.tool }),
      ...(q.run !== undefined && { runId: q.run }),
    });
    callsTotal = page.total;
    // The page's outputs in order, each call ended by a marker (a running call's outputs are
    // still being written: nothing to verify yet). AHEAD + 1 searches run at once, so one
    // output's file reads overlap another's; results are taken strictly in order.
    const items: { call: CallSummary; handle?: string }[] = [];
    for (const call of page.rows) {
      for (const handle of call.status === 'running' ? [] : handlesOf(call)) items.push({ call, handle });
      items.push({ call });
    }
    const running: (Promise<Outcome> | undefined)[] = [];
    let launched = 0;
    /** Outputs started and not yet taken: at most AHEAD + 1 (call markers do not count). */
    let inFlight = 0;
    // One call's outputs count together: a call cut by the time limit adds nothing.
    let found: { handle: string; r: ReadToolOutputResult }[] = [];
    for (let i = 0; i < items.length; i++) {
      if (options.signal?.aborted) throw cancelled();
      for (; launched < items.length && (items[launched]!.handle === undefined || inFlight <= AHEAD); launched++) {
        const h = items[launched]!.handle;
        if (h === undefined) continue;
        inFlight++;
        // Past the deadline nothing more is started: the first unstarted output ends the search.
        if (Date.now() < deadline) running[launched] = searchOne(h, Math.max(1, q.limit - matches.length));
      }
      const item = items[i]!;
      if (item.handle === undefined) {
        for (const { handle, r } of found) {
          searched++;
          const n = r.total_matches ?? 0;
          if (n === 0) continue;
          total += n;
          matched++;
          const texts = r.content.split('\n');
          (r.matches ?? []).forEach((m, k) => {
            if (matches.length >= q.limit) return;
            const text = texts[k]!.slice(String(m.line_number).length + 1);
            matches.push({ handle, tool: item.call.tool, runId: item.call.runId, ...m, text });
          });
        }
        found = [];
        // Counted apart from the call: `onProgress?.(++n)` skips the increment without a listener.
        callsDone++;
        options.onProgress?.(callsDone, page.total);
        continue;
      }
      const outcome = await running[i];
      running[i] = undefined;
      inFlight--;
      if (outcome === undefined || 'stop' in outcome) {
        stopped = true;
        break pages;
      }
      if ('error' in outcome) throw outcome.error;
      if ('r' in outcome) found.push({ handle: item.handle, r: outcome.r });
    }
    if (offset + PAGE >= page.total) break;
  }
  return {
    pattern: q.pattern,
    total_matches: total,
    outputs_searched: searched,
    outputs_matched: matched,
    returned: matches.length,
    truncated: total > matches.length,
    matches,
    ...(stopped && {
      complete: false as const,
      time_limit_ms: timeLimit,
      calls_searched: callsDone,
      calls_total: callsTotal,
    }),
  };
}
