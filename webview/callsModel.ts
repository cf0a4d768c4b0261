/**
 * The calls list's data: runs and calls kept by key, live upserts, and the flattened
 * rows (run headers, calls, attachment sub-rows) after filtering and sorting. Pure: no
 * DOM, so 10,000-call behaviour is unit-tested in Node.
 */
import { outcomeOf } from '../src/shared/outcome.js';
import type { CallDto, LiveStreamDto, OutcomeFilterDto, PartDto, PartRef, RunDto } from '../src/shared/protocol.js';

export { outcomeOf, type Outcome } from '../src/shared/outcome.js';

/** What the toolbar filters and sorts by. */
export interface Filters {
  /** A tool name, or '' for all. */
  readonly tool: string;
  /** A run id, or '' for all. */
  readonly run: string;
  /** Case-insensitive text over tool, ids, handles, digests, arguments and names. */
  readonly text: string;
  readonly sort: 'time' | 'size';
  /** Only calls with this outcome ('' for all). */
  readonly outcome?: OutcomeFilterDto;
  /** Only calls of runs started by this source (`tool`, `participant`, `hook:<agent>`, `cli`, `mcp`, `command`, `api`), or '' for all. */
  readonly source?: string;
}


/** A running call's streams so far (from `live` messages; docs/contracts.md §3.4). */
export type LiveOf = { -readonly [K in 'stdout' | 'stderr']?: { bytes: number; tail: string } };

/** One row of the list. */
export type Row =
  | { readonly kind: 'run'; readonly key: string; readonly run: RunDto; readonly shown: number; readonly collapsed: boolean }
  | { readonly kind: 'call'; readonly key: string; readonly call: CallDto }
  | { readonly kind: 'part'; readonly key: string; readonly call: CallDto; readonly part: PartDto };

/** Key of a call (and of its result row). */
export function callKey(runId: string, callId: string): string {
  return `${runId}/${callId}`;
}

/** Key of the row showing a part: the call row for `result`, else the attachment's sub-row. */
export function partKey(ref: PartRef): string {
  return ref.part === 'result' ? callKey(ref.runId, ref.callId) : `${callKey(ref.runId, ref.callId)}#${ref.part}`;
}

/** The part a row stands for (a run header stands for none). */
export function rowRef(row: Row): PartRef | undefined {
  if (row.kind === 'run') return undefined;
  return { runId: row.call.runId, callId: row.call.callId, part: row.kind === 'part' ? row.part.name : 'result' };
}

const finished = (status: string): boolean => status !== 'running' && status !== 'interrupted';

/** Runs and calls of the store as the panel knows them. */
export class CallsModel {
  private readonly runs = new Map<string, RunDto>();
  private readonly calls = new Map<string, CallDto>();
  private readonly live = new Map<string, LiveOf>();

  /** Replaces everything (a snapshot). */
  setAll(runs: readonly RunDto[], calls: readonly CallDto[]): void {
    this.runs.clear();
    this.calls.clear();
    this.live.clear();
    this.upsert(runs, calls);
  }

  /** Applies a live update; a finished call never goes back to running. */
  upsert(runs: readonly RunDto[], calls: readonly CallDto[]): void {
    for (const r of runs) this.runs.set(r.runId, r);
    for (const c of calls) {
      const key = callKey(c.runId, c.callId);
      const prev = this.calls.get(key);
      if (prev && finished(prev.status) && !finished(c.status)) continue;
      this.calls.set(key, c);
      // Finished: its recorded sizes replace the live ones.
      if (finished(c.status)) this.live.delete(key);
    }
  }

  /** Applies progress of running calls (ignored for a call already finished). */
  applyLive(streams: readonly LiveStreamDto[]): void {
    for (const s of streams) {
      const key = callKey(s.runId, s.callId);
      const c = this.calls.get(key);
      if (c && finished(c.status)) continue;
      const l = this.live.get(key) ?? {};
      l[s.stream] = { bytes: s.bytes, tail: s.tail };
      this.live.set(key, l);
    }
  }

  /** A running call's streams so far. */
  liveOf(runId: string, callId: string): LiveOf | undefined {
    return this.live.get(callKey(runId, callId));
  }

  /** Number of calls known. */
  get size(): number {
    return this.calls.size;
  }

  /** Tool names, sorted. */
  tools(): string[] {
    return [...new Set([...this.calls.values()].map((c) => c.tool))].sort();
  }

  /** Run sources present (`tool`, `cli`, `hook:claude`…), sorted. */
  sources(): string[] {
    return [...new Set([...this.runs.values()].map(sourceOf))].sort();
  }

  /** Runs, newest first. */
  runList(): RunDto[] {
    return [...this.runs.values()].sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
  }

  /** The call and part a reference names. */
  find(ref: PartRef): { call: CallDto; part: PartDto } | undefined {
    const call = this.calls.get(callKey(ref.runId, ref.callId));
    if (!call) return undefined;
    const part = ref.part === 'result' ? call.result : call.attachments.find((a) => a.name === ref.part);
    return part ? { call, part } : undefined;
  }

  /** The part that holds a handle (result or attachment). */
  findHandle(handle: string): PartRef | undefined {
    for (const c of this.calls.values()) {
      if (c.result.handle === handle) return { runId: c.runId, callId: c.callId, part: 'result' };
      const a = c.attachments.find((x) => x.handle === handle);
      if (a) return { runId: c.runId, callId: c.callId, part: a.name };
    }
    return undefined;
  }

  /** The newest call of a run. */
  newestOfRun(runId: string): PartRef | undefined {
    let best: CallDto | undefined;
    for (const c of this.calls.values()) if (c.runId === runId && (!best || c.startedAt > best.startedAt)) best = c;
    return best ? { runId: best.runId, callId: best.callId, part: 'result' } : undefined;
  }

  /** Flattened rows: runs (newest first, or by largest call), their calls, then each call's attachments. */
  rows(f: Filters, collapsed: ReadonlySet<string>): Row[] {
    const needle = f.text.trim().toLowerCase();
    const byRun = new Map<string, CallDto[]>();
    for (const c of this.calls.values()) {
      if (f.tool && c.tool !== f.tool) continue;
      if (f.run && c.runId !== f.run) continue;
      if (f.outcome && outcomeOf(c).kind !== f.outcome) continue;
      if (f.source && sourceOf(this.runs.get(c.runId)) !== f.source) continue;
      if (needle && !matches(c, this.runs.get(c.runId), needle)) continue;
      let list = byRun.get(c.runId);
      if (!list) byRun.set(c.runId, (list = []));
      list.push(c);
    }
    // Without a tool or text filter every run shows, even one with no calls (yet): a
    // snapshot's run headers appear before their calls arrive.
    if (!f.tool && !needle && !f.outcome) {
      for (const [runId, run] of this.runs) if (!byRun.has(runId) && (!f.run || f.run === runId) && (!f.source || sourceOf(run) === f.source)) byRun.set(runId, []);
    }
    const bySize = f.sort === 'size';
    const cmp = bySize
      ? (a: CallDto, b: CallDto): number => b.result.sizeBytes - a.result.sizeBytes || cmpTime(a, b)
      : cmpTime;
    const groups = [...byRun.entries()].map(([runId, list]) => {
      list.sort(cmp);
      const run = this.runs.get(runId) ?? placeholderRun(runId, list);
      return { run, list, largest: list[0]?.result.sizeBytes ?? 0 };
    });
    groups.sort((a, b) => (bySize ? b.largest - a.largest : 0) || (a.run.startedAt < b.run.startedAt ? 1 : a.run.startedAt > b.run.startedAt ? -1 : 0));
    const rows: Row[] = [];
    for (const g of groups) {
      const isCollapsed = collapsed.has(g.run.runId);
      rows.push({ kind: 'run', key: `run:${g.run.runId}`, run: g.run, shown: g.list.length, collapsed: isCollapsed });
      if (isCollapsed) continue;
      for (const c of g.list) {
        rows.push({ kind: 'call', key: callKey(c.runId, c.callId), call: c });
        for (const a of c.attachments) rows.push({ kind: 'part', key: `${callKey(c.runId, c.callId)}#${a.name}`, call: c, part: a });
      }
    }
    return rows;
  }
}

/** A run's source; a run not known (yet) or listed without one was started by a tool (docs/contracts.md §3.4). */
function sourceOf(run: RunDto | undefined): string {
  return run?.source ?? 'tool';
}

/** Newest first; equal times by call id, so the order is stable. */
function cmpTime(a: CallDto, b: CallDto): number {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? 1 : -1;
  return a.callId < b.callId ? 1 : a.callId > b.callId ? -1 : 0;
}

function placeholderRun(runId: string, calls: readonly CallDto[]): RunDto {
  const startedAt = calls.reduce((m, c) => (c.startedAt < m ? c.startedAt : m), calls[0]?.startedAt ?? '');
  return { runId, startedAt, status: 'running', pinned: false, callCount: calls.length, totalBytes: 0 };
}

function matches(c: CallDto, run: RunDto | undefined, needle: string): boolean {
  const fields = [c.tool, c.callId, c.runId, c.status, outcomeOf(c).label, c.argsSummary, c.result.handle, c.result.sha256, run?.label, run?.source];
  for (const a of c.attachments) fields.push(a.name, a.handle, a.sha256);
  return fields.some((s) => s !== undefined && s.toLowerCase().includes(needle));
}
