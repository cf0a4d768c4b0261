/**
 * The pages of the current query the host has answered (docs/contracts.md §3.4): the host sorts, filters and counts,
 * so 100,000 runs cost what one screen costs. Pure, unit-tested in Node.
 */
import type {
  CallDto,
  ListQueryDto,
  LiveStreamDto,
  OutcomeFilterDto,
  PageReply,
  PartDto,
  PartRef,
  RunDto,
} from '../src/shared/protocol.js';

export { outcomeOf, runOutcomeOf } from '../src/shared/outcome.js';

export const PAGE_SIZE = 100;

export interface Filters {
  readonly tool: string;
  readonly run: string;
  /** A whole handle finds its call. */
  readonly text: string;
  readonly sort: 'time' | 'size';
  readonly outcome?: OutcomeFilterDto;
  readonly source?: string;
}

export function queryOf(f: Filters): ListQueryDto {
  const text = f.text.trim();
  return {
    order: f.sort === 'size' ? 'largest' : 'newest',
    ...(f.tool ? { tool: f.tool } : {}),
    ...(f.run ? { run: f.run } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
    ...(f.source ? { source: f.source } : {}),
    ...(text ? { text } : {}),
  };
}

/** docs/contracts.md §3.4. */
export type LiveOf = { -readonly [K in 'stdout' | 'stderr']?: { bytes: number; tail: string } };

/** `index` is the position of its call in the query's order. */
export type Row =
  | {
      readonly kind: 'run';
      readonly key: string;
      readonly index: number;
      readonly run: RunDto;
      shown: number;
      readonly collapsed: boolean;
    }
  | { readonly kind: 'call'; readonly key: string; readonly index: number; readonly call: CallDto }
  | {
      readonly kind: 'part';
      readonly key: string;
      readonly index: number;
      readonly call: CallDto;
      readonly part: PartDto;
    }
  | { readonly kind: 'pending'; readonly key: string; readonly index: number };

function callKey(runId: string, callId: string): string {
  return `${runId}/${callId}`;
}

export function partKey(ref: PartRef): string {
  return ref.part === 'result' ? callKey(ref.runId, ref.callId) : `${callKey(ref.runId, ref.callId)}#${ref.part}`;
}

export function rowRef(row: Row): PartRef | undefined {
  if (row.kind === 'run' || row.kind === 'pending') return undefined;
  return { runId: row.call.runId, callId: row.call.callId, part: row.kind === 'part' ? row.part.name : 'result' };
}

const finished = (status: string): boolean => status !== 'running' && status !== 'interrupted';

/** Loaded pages are arrays, the rest counted: no object per call not fetched. */
export class RowSource {
  private readonly starts: number[] = [];
  private readonly segs: ({ rows: Row[] } | { from: number; count: number })[] = [];
  length = 0;

  /** @internal */ pushRows(rows: Row[]): void {
    if (rows.length === 0) return;
    this.starts.push(this.length);
    this.segs.push({ rows });
    this.length += rows.length;
  }

  /** @internal */ pushPending(from: number, count: number): void {
    if (count <= 0) return;
    this.starts.push(this.length);
    this.segs.push({ from, count });
    this.length += count;
  }

  at(i: number): Row {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    const seg = this.segs[lo]!;
    const k = i - this.starts[lo]!;
    if ('rows' in seg) return seg.rows[k]!;
    const index = seg.from + k;
    return { kind: 'pending', key: `pending:${index}`, index };
  }

  indexOfKey(key: string): number {
    for (let s = 0; s < this.segs.length; s++) {
      const seg = this.segs[s]!;
      if (!('rows' in seg)) continue;
      const k = seg.rows.findIndex((r) => r.key === key);
      if (k >= 0) return this.starts[s]! + k;
    }
    return -1;
  }

  /** -1 past the end. */
  indexOfCall(index: number): number {
    for (let s = 0; s < this.segs.length; s++) {
      const seg = this.segs[s]!;
      if ('rows' in seg) {
        const k = seg.rows.findIndex((r) => r.kind === 'call' && r.index === index);
        if (k >= 0) return this.starts[s]! + k;
        const last = seg.rows[seg.rows.length - 1]!;
        // A collapsed run hides its calls: land on the nearest row at or after it.
        if (last.index >= index) {
          const j = seg.rows.findIndex((r) => r.index >= index);
          return this.starts[s]! + j;
        }
      } else if (index >= seg.from && index < seg.from + seg.count) return this.starts[s]! + (index - seg.from);
    }
    return -1;
  }
}

export class CallsModel {
  private queryKey = '';
  private pages = new Map<number, readonly CallDto[]>();
  private readonly runs = new Map<string, RunDto>();
  private readonly live = new Map<string, LiveOf>();
  /** Their late progress is dropped. */
  private readonly finishedLive = new Set<string>();
  total = 0;
  all = 0;
  tools: readonly string[] = [];
  sources: readonly string[] = [];

  /** Pages of different queries never mix. */
  static keyOf(q: ListQueryDto): string {
    return JSON.stringify(q);
  }

  get key(): string {
    return this.queryKey;
  }

  /** All at once: the list never shows two queries mixed. */
  replace(key: string, replies: readonly PageReply[]): void {
    this.queryKey = key;
    this.pages = new Map();
    for (const r of replies) this.take(r);
  }

  /** Ignored when the query changed meanwhile. */
  add(key: string, reply: PageReply): boolean {
    if (key !== this.queryKey) return false;
    this.take(reply);
    return true;
  }

  private take(r: PageReply): void {
    this.total = r.total;
    this.all = r.all;
    if (r.tools) this.tools = r.tools;
    if (r.sources) this.sources = r.sources;
    for (const run of r.runs) this.runs.set(run.runId, run);
    // A page past the end holds nothing; pages beyond the total are dropped.
    this.pages.set(Math.floor(r.offset / PAGE_SIZE), r.calls);
    const lastPage = Math.max(0, Math.ceil(this.total / PAGE_SIZE) - 1);
    for (const p of this.pages.keys()) if (p > lastPage) this.pages.delete(p);
  }

  has(p: number): boolean {
    return this.pages.has(p);
  }

  heldPages(): number[] {
    return [...this.pages.keys()].sort((a, b) => a - b);
  }

  /**
   * A finished call never goes back to running. True when the pages should be asked again: a call not held, or whose
   * status changed.
   */
  upsert(runs: readonly RunDto[], calls: readonly CallDto[]): boolean {
    for (const r of runs) this.runs.set(r.runId, r);
    let stale = false;
    for (const c of calls) {
      const key = callKey(c.runId, c.callId);
      if (finished(c.status)) {
        this.live.delete(key);
        // A progress report may still be on its way after the finish.
        if (this.finishedLive.size > 1000) this.finishedLive.clear();
        this.finishedLive.add(key);
      }
      let held = false;
      for (const [p, list] of this.pages) {
        const i = list.findIndex((x) => x.runId === c.runId && x.callId === c.callId);
        if (i < 0) continue;
        held = true;
        const prev = list[i]!;
        if (finished(prev.status) && !finished(c.status)) break;
        if (prev.status !== c.status) stale = true;
        const copy = [...list];
        copy[i] = c;
        this.pages.set(p, copy);
        break;
      }
      if (!held) stale = true;
    }
    return stale;
  }

  applyLive(streams: readonly LiveStreamDto[]): void {
    for (const s of streams) {
      const key = callKey(s.runId, s.callId);
      if (this.finishedLive.has(key)) continue;
      const held = this.find({ runId: s.runId, callId: s.callId, part: 'result' });
      if (held && finished(held.call.status)) continue;
      const l = this.live.get(key) ?? {};
      l[s.stream] = { bytes: s.bytes, tail: s.tail };
      this.live.set(key, l);
    }
  }

  liveOf(runId: string, callId: string): LiveOf | undefined {
    return this.live.get(callKey(runId, callId));
  }

  /** Undefined when none reported. */
  liveBytesOfRun(runId: string): number | undefined {
    let sum: number | undefined;
    const prefix = callKey(runId, '');
    for (const [key, l] of this.live)
      if (key.startsWith(prefix)) sum = (sum ?? 0) + (l.stdout?.bytes ?? 0) + (l.stderr?.bytes ?? 0);
    return sum;
  }

  get size(): number {
    return this.all;
  }

  run(runId: string): RunDto | undefined {
    return this.runs.get(runId);
  }

  find(ref: PartRef): { call: CallDto; part: PartDto } | undefined {
    for (const list of this.pages.values()) {
      const call = list.find((c) => c.runId === ref.runId && c.callId === ref.callId);
      if (!call) continue;
      const part = ref.part === 'result' ? call.result : call.attachments.find((a) => a.name === ref.part);
      return part ? { call, part } : undefined;
    }
    return undefined;
  }

  /** Calls of pages not held are one pending row each, so the scroll bar spans the whole list from the first page. */
  rows(collapsed: ReadonlySet<string>): RowSource {
    const out = new RowSource();
    const pageCount = Math.ceil(this.total / PAGE_SIZE);
    let prevRun: string | undefined;
    let header: Extract<Row, { kind: 'run' }> | undefined;
    let pendingFrom = -1;
    let rows: Row[] = [];
    for (let p = 0; p < pageCount; p++) {
      const list = this.pages.get(p);
      const from = p * PAGE_SIZE;
      if (!list) {
        out.pushRows(rows);
        rows = [];
        if (pendingFrom < 0) pendingFrom = from;
        prevRun = undefined;
        continue;
      }
      if (pendingFrom >= 0) {
        out.pushPending(pendingFrom, from - pendingFrom);
        pendingFrom = -1;
      }
      list.forEach((c, k) => {
        const index = from + k;
        const isCollapsed = collapsed.has(c.runId);
        if (c.runId !== prevRun) {
          prevRun = c.runId;
          header = {
            kind: 'run',
            key: `run:${c.runId}:${index}`,
            index,
            run: this.runs.get(c.runId) ?? placeholderRun(c),
            shown: 0,
            collapsed: isCollapsed,
          };
          rows.push(header);
        }
        header!.shown++;
        if (isCollapsed) return;
        const key = callKey(c.runId, c.callId);
        rows.push({ kind: 'call', key, index, call: c });
        for (const a of c.attachments) rows.push({ kind: 'part', key: `${key}#${a.name}`, index, call: c, part: a });
      });
      // A short page that is not the last: its missing calls wait for the next ask.
      const expected = Math.min(PAGE_SIZE, this.total - from);
      if (list.length < expected) {
        out.pushRows(rows);
        rows = [];
        out.pushPending(from + list.length, expected - list.length);
        prevRun = undefined;
      }
    }
    out.pushRows(rows);
    if (pendingFrom >= 0) out.pushPending(pendingFrom, this.total - pendingFrom);
    return out;
  }
}

function placeholderRun(c: CallDto): RunDto {
  return {
    runId: c.runId,
    startedAt: c.startedAt,
    status: 'running',
    pinned: false,
    callCount: 0,
    failedCalls: 0,
    totalBytes: 0,
    outputBytes: 0,
  };
}
