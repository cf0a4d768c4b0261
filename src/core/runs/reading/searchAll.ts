/**
 * One pattern over every kept output, newest call first (docs/contracts.md §2.11), each searched by the
 * `read_tool_output` reader. One time limit covers the whole search; when it passes the answer covers the calls
 * searched so far and says so, rather than losing what was found.
 */
import { EvidenceError } from '../../errors.js';
import { SEARCH_CANCELLED_MESSAGE, SearchDeadlineError } from '../search/patternSearch.js';
import { checkPattern } from './reader.js';
import type { CallSummary, ReadToolOutputMatch, ReadToolOutputResult, RunStoreApi } from '../types.js';

export const DEFAULT_SEARCH_LIMIT = 20;

export interface SearchAllQuery {
  readonly pattern: string;
  readonly tool?: string;
  readonly run?: string;
  /** 1–100; the total counts them all. */
  readonly limit?: number;
}

export interface SearchAllOptions {
  readonly signal?: AbortSignal;
  /** Default: the run store's `searchTimeoutMs`. */
  readonly timeoutMs?: number;
  readonly onProgress?: (callsDone: number, callsTotal: number) => void;
}

interface SearchAllMatch extends ReadToolOutputMatch {
  readonly handle: string;
  readonly tool: string;
  readonly runId: string;
  /** Whole, or a window around the match. */
  readonly text: string;
}

export interface SearchAllResult {
  readonly pattern: string;
  readonly total_matches: number;
  readonly outputs_searched: number;
  readonly outputs_matched: number;
  readonly returned: number;
  readonly truncated: boolean;
  readonly matches: readonly SearchAllMatch[];
  /** Present when the time limit stopped the search: totals and matches are those of the calls searched. */
  readonly complete?: false;
  readonly time_limit_ms?: number;
  readonly calls_searched?: number;
  readonly calls_total?: number;
}

/** A command's result summarises its attachments: searching it too would count the same lines twice. */
function handlesOf(c: CallSummary): string[] {
  const out: string[] = [];
  if (c.handle && c.stored !== 'preview_only' && c.attachments.length === 0) out.push(c.handle);
  for (const a of c.attachments)
    if (a.name !== 'value' && a.stored !== 'preview_only' && a.sizeBytes > 0) out.push(a.handle);
  return out;
}

function checkSearchAllQuery(q: SearchAllQuery): Required<Omit<SearchAllQuery, 'tool' | 'run'>> & SearchAllQuery {
  checkPattern(q.pattern);
  const limit = q.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100)
    throw new EvidenceError('invalidArgument', 'limit must be an integer from 1 to 100');
  return { ...q, limit };
}

const PAGE = 200;

/** Two searches at once overlap file reads and use both cores; more ahead was slower (docs/measured.md). */
const AHEAD = 1;

type Outcome =
  | { readonly r: ReadToolOutputResult }
  | { readonly skip: true }
  | { readonly stop: true }
  | { readonly error: unknown };

/**
 * An output that fails for a reason of its own is skipped; a cancellation or catastrophic pattern stops the search. A
 * call is searched whole or not at all.
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
  /** Settled as a value: never a rejection left waiting in the look-ahead. */
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
    // Each call ended by a marker; results are taken strictly in order.
    const items: { call: CallSummary; handle?: string }[] = [];
    for (const call of page.rows) {
      for (const handle of call.status === 'running' ? [] : handlesOf(call)) items.push({ call, handle });
      items.push({ call });
    }
    const running: (Promise<Outcome> | undefined)[] = [];
    let launched = 0;
    let inFlight = 0;
    // A call cut by the time limit adds nothing.
    let found: { handle: string; r: ReadToolOutputResult }[] = [];
    for (let i = 0; i < items.length; i++) {
      if (options.signal?.aborted) throw cancelled();
      for (; launched < items.length && (items[launched]!.handle === undefined || inFlight <= AHEAD); launched++) {
        const h = items[launched]!.handle;
        if (h === undefined) continue;
        inFlight++;
        // Past the deadline nothing more is started.
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
        // `onProgress?.(++n)` would skip the increment without a listener.
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
