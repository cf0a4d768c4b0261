/**
 * Listing from the catalog (docs/architecture.md §6): pages of calls sorted and
 * filtered in memory over the catalog's small rows, runs for pickers, run summaries.
 * Only the rows of the page are read back from the catalog file, and their runs are
 * checked against their logs first (a stale row is re-indexed, then the page is
 * computed again).
 */
import { EvidenceError } from '../errors.js';
import type { CallRow, Catalog, RowList, RunRow } from './catalog.js';
import { outcomeOf, type CallEntry, type CallStartEntry } from './catalogFormat.js';
import type { CallErrorCode, CallFilter, CallPage, CallQuery, CallStatus, CallSummary, ListedRunSource, RunQuery, RunStatus, RunSummary, StorageState } from './types.js';

/** An unfinished run whose log was written to within this window counts as running (another window may own it). */
export const RUNNING_GRACE_MS = 10 * 60 * 1000;

/** Largest page. */
const MAX_LIMIT = 1000;

const SOURCE_KINDS = new Set(['tool', 'participant', 'hook', 'cli', 'mcp', 'command', 'api']);

/** True when the run is open in this process. */
export type IsLive = (runId: string) => boolean;

/** A run's status as read back. */
export function runStatusOf(row: RunRow, isLive: IsLive, now = Date.now()): RunStatus {
  if (row.status) return row.status;
  return isLive(row.id) || now - row.m < RUNNING_GRACE_MS ? 'running' : 'interrupted';
}

/** What `listRuns` reports for one row. */
export function summaryOf(row: RunRow, tenant: string, isLive: IsLive): RunSummary {
  return {
    runId: row.id, tenant, label: row.label, startedAt: row.startedAt, finishedAt: row.finishedAt, status: runStatusOf(row, isLive),
    pinned: row.pinned, source: sourceOf(row), profileHash: row.profileHash, callCount: row.callCount, totalBytes: row.z + row.blobBytes,
    tornTail: row.tornTail, problems: row.problems,
  };
}

/** The run's source as recorded (`tool` when absent or not understood). */
export function sourceOf(row: RunRow): ListedRunSource {
  const s = row.source as { kind?: unknown; agent?: unknown; sessionId?: unknown } | undefined;
  if (!s || typeof s !== 'object' || typeof s.kind !== 'string' || !SOURCE_KINDS.has(s.kind)) return { kind: 'tool' };
  return {
    kind: s.kind as ListedRunSource['kind'],
    ...(typeof s.agent === 'string' ? { agent: s.agent } : {}), ...(typeof s.sessionId === 'string' ? { sessionId: s.sessionId } : {}),
  };
}

function callStatusOf(c: CallRow, isLive: IsLive, now: number): CallSummary['status'] {
  if (c.finished) return c.status as CallStatus;
  return runStatusOf(c.run, isLive, now) === 'running' ? 'running' : 'interrupted';
}

function positive(name: string, v: unknown, max: number, min = 1): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) throw new EvidenceError('invalidArgument', `${name} must be an integer from ${min} to ${max}`);
  return v;
}

function optionalString(name: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 1024) throw new EvidenceError('invalidArgument', `${name} must be a string of at most 1024 characters`);
  return v;
}

/** Checks a query from an untrusted caller (a webview): one sentence per mistake. */
export function validateCallQuery(q: CallQuery): CallQuery {
  if (q === null || typeof q !== 'object') throw new EvidenceError('invalidArgument', 'query must be an object');
  positive('offset', q.offset, Number.MAX_SAFE_INTEGER, 0);
  positive('limit', q.limit, MAX_LIMIT);
  if (q.order !== undefined && !['newest', 'oldest', 'largest'].includes(q.order)) throw new EvidenceError('invalidArgument', 'order must be newest, oldest or largest');
  if (q.outcome !== undefined && !['ok', 'failed', 'running'].includes(q.outcome)) throw new EvidenceError('invalidArgument', 'outcome must be ok, failed or running');
  if (q.source !== undefined && !SOURCE_KINDS.has(q.source)) throw new EvidenceError('invalidArgument', 'source is not a known kind');
  optionalString('runId', q.runId);
  optionalString('callId', q.callId);
  if (q.callId !== undefined && q.runId === undefined) throw new EvidenceError('invalidArgument', 'callId needs the runId it belongs to');
  optionalString('tool', q.tool);
  optionalString('text', q.text);
  return q;
}

/** An array of rows as a list. */
function listOf<T extends { slot: number }>(rows: readonly T[]): RowList<T> {
  return { length: rows.length, at: (i) => rows[i]!, slotAt: (i) => rows[i]!.slot };
}

/**
 * The rows a query walks (oldest first) and its filter test by slot; undefined when the
 * query names a run that is not listed (nothing matches).
 */
function filterOf(catalog: Catalog, q: CallFilter, isLive: IsLive): { all: RowList<CallRow>; match: (slot: number) => boolean } | undefined {
  const now = Date.now();
  const text = q.text?.toLowerCase();
  const runRow = q.runId !== undefined ? catalog.run(q.runId) : undefined;
  if (q.runId !== undefined && !runRow) return undefined;
  const all = runRow ? listOf(q.callId !== undefined ? runRow.calls.filter((c) => c.id === q.callId) : runRow.calls) : catalog.callsOldestFirst();
  const x = catalog.index;
  // The cheap tests read the columns by slot; a view is made only for a filter that needs one.
  const tool = q.tool !== undefined ? x.tableIndexOf(q.tool) : undefined;
  const sourceOk = new Map<number, boolean>();
  // The text's tests of a tool name and of a run's id and label, once each (a run has many calls).
  const toolText = new Map<number, boolean>();
  const runText = new Map<number, boolean>();
  const textOk = (slot: number, c: CallRow): boolean => {
    const t = x.callTool(slot);
    let ok = toolText.get(t);
    if (ok === undefined) { ok = c.tool.toLowerCase().includes(text!); toolText.set(t, ok); }
    if (ok) return true;
    ok = runText.get(c.runSlot);
    if (ok === undefined) { const r = c.run; ok = r.id.toLowerCase().includes(text!) || (r.label?.toLowerCase().includes(text!) ?? false); runText.set(c.runSlot, ok); }
    return ok || c.id.includes(text!);
  };
  const match = (slot: number): boolean => {
    if (x.callDead(slot) || !x.runOk(x.callRunSlot(slot))) return false;
    if (tool !== undefined && x.callTool(slot) !== tool) return false;
    if (q.outcome === undefined && q.source === undefined && text === undefined) return true;
    const c = x.call(slot);
    if (q.outcome !== undefined && outcomeOf(callStatusOf(c, isLive, now)) !== q.outcome) return false;
    if (q.source !== undefined) {
      let ok = sourceOk.get(c.runSlot);
      if (ok === undefined) { ok = sourceOf(c.run).kind === q.source; sourceOk.set(c.runSlot, ok); }
      if (!ok) return false;
    }
    if (text !== undefined && !textOk(slot, c)) return false;
    return true;
  };
  return { all, match };
}

/** The `largest` order: result plus attachment bytes, then newest, then last indexed first. */
function largestFirst(x: Catalog['index']): (a: number, b: number) => number {
  return (a, b) => x.callBytes(b) - x.callBytes(a) || x.compareCalls(b, a);
}

/** The rows matching the filters, in the asked order, and how many there are. */
function selectCalls(catalog: Catalog, q: CallQuery, isLive: IsLive): { total: number; rows: CallRow[] } {
  const f = filterOf(catalog, q, isLive);
  if (!f) return { total: 0, rows: [] };
  const { all, match } = f;
  const x = catalog.index;
  const order = q.order ?? 'newest';
  const end = q.offset + q.limit;
  if (order === 'largest') {
    const matched: number[] = [];
    for (let i = 0; i < all.length; i++) { const c = all.slotAt(i); if (match(c)) matched.push(c); }
    matched.sort(largestFirst(x));
    return { total: matched.length, rows: matched.slice(q.offset, end).map((c) => x.call(c)) };
  }
  // Newest or oldest: walk the sorted rows, keeping only the page (no copy of every match).
  const rows: CallRow[] = [];
  let total = 0;
  const take = (c: number): void => {
    if (!match(c)) return;
    if (total >= q.offset && total < end) rows.push(x.call(c));
    total++;
  };
  if (order === 'newest') for (let i = all.length - 1; i >= 0; i--) take(all.slotAt(i));
  else for (let i = 0; i < all.length; i++) take(all.slotAt(i));
  return { total, rows };
}

/**
 * `RunStore.callIndex`: the position of one call in the list a query gives
 * (docs/contracts.md §3.4, "Reveal"), or undefined when the filters hide it or it is not
 * listed. One pass over the columns and no sort: the calls before it in the query's
 * order are counted (`largest` compares each match with it, as the sort would).
 */
export async function callIndex(catalog: Catalog, q: CallFilter, runId: string, callId: string, isLive: IsLive): Promise<number | undefined> {
  validateCallQuery({ ...q, offset: 0, limit: 1 });
  await catalog.sync();
  const x = catalog.index;
  const run = x.findRun(runId);
  const slot = run < 0 ? -1 : x.findCall(run, callId);
  const f = filterOf(catalog, q, isLive);
  // The run and call filters are the walk itself (its calls), not a test: another call is not in it.
  if (slot < 0 || !f || (q.runId !== undefined && q.runId !== runId) || (q.callId !== undefined && q.callId !== callId) || !f.match(slot)) return undefined;
  const { all, match } = f;
  let before = 0;
  if (q.order === 'largest') {
    const cmp = largestFirst(x);
    for (let i = 0; i < all.length; i++) { const c = all.slotAt(i); if (c !== slot && cmp(c, slot) < 0 && match(c)) before++; }
    return before;
  }
  // Oldest: matches before it in the walk; newest: matches after it.
  let after = 0;
  let seen = false;
  for (let i = 0; i < all.length; i++) {
    const c = all.slotAt(i);
    if (c === slot) { seen = true; continue; }
    if (!match(c)) continue;
    if (seen) after++; else before++;
  }
  if (!seen) return undefined;
  return q.order === 'oldest' ? before : after;
}

/** One listed call from its row and its catalog entry. */
function callSummaryOf(c: CallRow, e: CallEntry | CallStartEntry | undefined, isLive: IsLive, now: number): CallSummary {
  const source = sourceOf(c.run);
  const base = { runId: c.run.id, callId: c.id, tool: c.tool, source, ...(c.run.label !== undefined ? { runLabel: c.run.label } : {}) };
  if (!e || e.k === 'cs') {
    return { ...base, startedAt: e?.s ?? new Date(c.startedMs).toISOString(), status: callStatusOf(c, isLive, now), resultBytes: 0, attachments: [] };
  }
  return {
    ...base, startedAt: e.s, finishedAt: e.f, status: e.st as CallStatus,
    ...(e.e !== undefined ? { errorCode: e.e as CallErrorCode } : {}),
    ...(e.x !== undefined ? { exitCode: e.x } : {}), ...(e.sg !== undefined ? { signal: e.sg } : {}),
    ...(e.to ? { timedOut: true } : {}), ...(e.ca ? { cancelled: true } : {}),
    resultBytes: e.b, stored: e.sto as StorageState, sha256Prefix: e.sha.slice(0, 12), sha256: e.sha, ...(e.md ? { manifestDigest: e.md } : {}), ...(e.h ? { handle: `res_${e.c}` } : {}),
    attachments: e.a.map(([name, slot, sizeBytes, stored]) => ({ name, handle: `out_${e.c}_${slot}`, sizeBytes, stored: stored as StorageState })),
    logRecord: { offset: e.o, length: e.n },
  };
}

/** `RunStore.queryCalls`: one page, its runs checked against their logs first. */
export async function queryCalls(catalog: Catalog, q: CallQuery, isLive: IsLive): Promise<CallPage> {
  validateCallQuery(q);
  await catalog.sync();
  let page = selectCalls(catalog, q, isLive);
  // A stale row is re-indexed from its log, and the page computed again (once: the logs win).
  if (await catalog.verifyRuns(page.rows.map((c) => c.run.id))) page = selectCalls(catalog, q, isLive);
  const entries = await catalog.entriesOf(page.rows);
  const now = Date.now();
  return { total: page.total, offset: q.offset, rows: page.rows.map((c) => callSummaryOf(c, entries.get(c), isLive, now)) };
}

/** `RunStore.queryRuns`: newest first, id or label containing the text. */
export async function queryRuns(catalog: Catalog, q: RunQuery, tenant: string, isLive: IsLive): Promise<RunSummary[]> {
  if (q === null || typeof q !== 'object') throw new EvidenceError('invalidArgument', 'query must be an object');
  positive('limit', q.limit, MAX_LIMIT);
  const skip = q.offset === undefined ? 0 : positive('offset', q.offset, Number.MAX_SAFE_INTEGER, 0);
  const text = optionalString('text', q.text)?.toLowerCase();
  if (q.runIds !== undefined && (!Array.isArray(q.runIds) || q.runIds.length > q.limit || q.runIds.some((id) => typeof id !== 'string'))) {
    throw new EvidenceError('invalidArgument', 'runIds must be at most limit run ids');
  }
  await catalog.sync();
  const pick = (): RunRow[] => {
    if (q.runIds !== undefined) return q.runIds.flatMap((id) => { const r = catalog.run(id); return r && !r.dead && r.ok ? [r] : []; });
    const out: RunRow[] = [];
    const runs = catalog.runsOldestFirst();
    let skipped = 0;
    for (let i = runs.length - 1; i >= 0 && out.length < q.limit; i--) {
      const r = runs.at(i);
      if (r.dead || !r.ok) continue;
      if (text !== undefined && !r.id.toLowerCase().includes(text) && !(r.label?.toLowerCase().includes(text) ?? false)) continue;
      if (skipped++ < skip) continue;
      out.push(r);
    }
    return out;
  };
  let rows = pick();
  if (await catalog.verifyRuns(rows.map((r) => r.id))) rows = pick();
  return rows.map((r) => summaryOf(r, tenant, isLive));
}
