/**
 * The catalog's in-memory index (docs/architecture.md §6), kept as columns: typed arrays
 * of numbers and arrays of strings indexed by a run's or a call's slot, small string
 * tables for what repeats (tools, statuses, attachment slots, profile hashes), and two
 * hash indexes (run token → run, crc32 of a handle → call) packed in sorted typed arrays.
 *
 * Why columns: one JS object per run and per call (233,000 at 100,000 runs) made opening
 * allocate for seconds and every major GC walk them; columns are a handful of objects
 * whatever the count, the checkpoint is the same layout (loading it adopts the arrays),
 * and queries walk typed arrays. `RunRow` and `CallRow` are short-lived views (a slot and
 * the index) made for the rows a caller asks about, never kept per row.
 *
 * Slots are never reused: a deleted or re-indexed run's slots are marked dead (a snap of
 * a run takes new slots), so a view held across an await reads `dead` instead of another
 * run's values. Dead slots are dropped at the next checkpoint.
 */
import { crc32 } from 'node:zlib';
import { listedStatus, type CallEntry, type CallStartEntry, type RecordEntry, type SnapEntry } from './catalogFormat.js';
import { CALL_NUMBERS, RUN_NUMBERS, type CatalogColumns } from './catalogCheckpoint.js';
import type { LogProblem, RunFinishStatus } from './types.js';
import { Slicer, yieldToLoop } from './slices.js';

const NO_PROBLEMS: readonly LogProblem[] = Object.freeze([]);

// Run number columns (RUN_NUMBERS per run) and flags.
const R_STARTED = 0, R_Z = 1, R_M = 2, R_BLOB = 3, R_CALLS = 4, R_PROFILE = 5, R_FLAGS = 6, R_FINISHED = 7, R_STATUS = 8, R_SOURCE = 9;
const RF_PINNED = 1, RF_OK = 2, RF_TORN = 4, RF_DEAD = 8;
// Call number columns (CALL_NUMBERS per call) and flags.
const C_RUN = 0, C_STARTED = 1, C_TOOL = 2, C_STATUS = 3, C_SLOTS = 4, C_BYTES = 5, C_BLOB = 6, C_CATOFF = 7, C_CATLEN = 8, C_SUB = 9, C_FLAGS = 10, C_NUMBER = 11;
const CF_FINISHED = 1, CF_RESULT = 2, CF_AMBIGUOUS = 4, CF_DEAD = 8;
/** Flags a checkpoint keeps (dead slots are never written). */
const RUN_FLAGS_KEPT = RF_PINNED | RF_OK | RF_TORN;
const CALL_FLAGS_KEPT = CF_FINISHED | CF_RESULT | CF_AMBIGUOUS;

/** `toISOString` of a time, or undefined when it has none. */
function isoOf(ms: number): string | undefined {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/** The 10-hex token a run id ends with ('' when none): its calls are `<token>-<n>`. */
function tokenOf(runId: string): string {
  const m = /-([0-9a-f]{10})$/.exec(runId);
  return m ? m[1]! : '';
}

/** The lookup key of a run id: its 10-hex token when it has one (handles name runs by it), else the id. */
function runKey(runId: string): number {
  return crc32(tokenOf(runId) || runId);
}

/**
 * Keys (u32) to slots: most pairs packed in sorted typed arrays (8 bytes a pair, no
 * object), pairs added since in a map. A stale pair is harmless: callers check the slot.
 */
class HashIndex {
  private keys: Uint32Array = new Uint32Array(0);
  private vals: Int32Array = new Int32Array(0);
  private readonly recent = new Map<number, number | number[]>();

  get recentSize(): number {
    return this.recent.size;
  }

  get packedSize(): number {
    return this.keys.length;
  }

  add(key: number, v: number): void {
    const cur = this.recent.get(key);
    if (cur === undefined) this.recent.set(key, v);
    else if (Array.isArray(cur)) cur.push(v);
    else this.recent.set(key, [cur, v]);
  }

  remove(key: number, v: number): void {
    const cur = this.recent.get(key);
    if (cur === v) this.recent.delete(key);
    else if (Array.isArray(cur)) {
      const rest = cur.filter((x) => x !== v);
      if (rest.length === 0) this.recent.delete(key); else this.recent.set(key, rest.length === 1 ? rest[0]! : rest);
    }
  }

  /** Slots stored under `key` (each once). */
  find(key: number): number[] {
    const cur = this.recent.get(key);
    const out = cur === undefined ? [] : Array.isArray(cur) ? [...cur] : [cur];
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (keys[mid]! < key) lo = mid + 1; else hi = mid; }
    for (let i = lo; i < keys.length && keys[i] === key; i++) if (!out.includes(this.vals[i]!)) out.push(this.vals[i]!);
    return out;
  }

  /** A copy of every pair as it is now (memcpy of the packed arrays; the map is small). */
  snapshot(): { keys: Uint32Array; vals: Int32Array; recent: [number, number | number[]][] } {
    return { keys: this.keys.slice(), vals: this.vals.slice(), recent: [...this.recent].map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]) };
  }

  adopt(keys: Uint32Array, vals: Int32Array): void {
    this.keys = keys;
    this.vals = vals;
    this.recent.clear();
  }

  /** Pairs of a snapshot whose slot `map` sends to a slot (>= 0), renumbered, in slices. */
  static async pairsOf(snap: ReturnType<HashIndex['snapshot']>, map: (slot: number) => number): Promise<{ keys: Uint32Array; vals: Int32Array }> {
    let extra = 0;
    for (const [, v] of snap.recent) extra += Array.isArray(v) ? v.length : 1;
    const keys = new Uint32Array(snap.keys.length + extra);
    const vals = new Int32Array(keys.length);
    const slicer = new Slicer();
    let n = 0;
    for (let i = 0; i < snap.keys.length; i++) {
      const to = map(snap.vals[i]!);
      if (to >= 0) { keys[n] = snap.keys[i]!; vals[n++] = to; }
      if (slicer.due()) await slicer.pause();
    }
    for (const [k, v] of snap.recent) for (const s of Array.isArray(v) ? v : [v]) { const to = map(s); if (to >= 0) { keys[n] = k; vals[n++] = to; } }
    return { keys: keys.subarray(0, n), vals: vals.subarray(0, n) };
  }
}

/** Pairs handled between clock checks of `sortPairs` (a few hundred microseconds of work). */
const SORT_STEP = 1 << 15;

/**
 * Pairs sorted by key (ties in their given order): a two-pass radix sort on 16-bit
 * digits, linear (a comparator sort, or even the native numeric sort of packed floats,
 * took tens of milliseconds in one turn for half a million pairs), and in slices.
 */
export async function sortPairs(keys: ArrayLike<number>, vals: ArrayLike<number>): Promise<{ keys: Uint32Array; vals: Int32Array }> {
  const n = keys.length;
  let k = Uint32Array.from(keys);
  let v = Int32Array.from(vals);
  let k2 = new Uint32Array(n);
  let v2 = new Int32Array(n);
  const count = new Uint32Array(65537);
  const slicer = new Slicer();
  for (let shift = 0; shift < 32; shift += 16) {
    count.fill(0);
    for (let at = 0; at < n; at += SORT_STEP) {
      const end = Math.min(n, at + SORT_STEP);
      for (let i = at; i < end; i++) count[((k[i]! >>> shift) & 0xffff) + 1]!++;
      if (slicer.dueNow()) await slicer.pause();
    }
    for (let b = 0; b < 65536; b++) count[b + 1]! += count[b]!;
    for (let at = 0; at < n; at += SORT_STEP) {
      const end = Math.min(n, at + SORT_STEP);
      for (let i = at; i < end; i++) {
        const j = count[(k[i]! >>> shift) & 0xffff]!++;
        k2[j] = k[i]!;
        v2[j] = v[i]!;
      }
      if (slicer.dueNow()) await slicer.pause();
    }
    const tk = k; k = k2; k2 = tk;
    const tv = v; v = v2; v2 = tv;
  }
  return { keys: k, vals: v };
}

function growF64(a: Float64Array, need: number): Float64Array {
  if (need <= a.length) return a;
  const b = new Float64Array(Math.max(need, a.length * 2, 64));
  b.set(a);
  return b;
}

function growI32(a: Int32Array, need: number, fill = 0): Int32Array {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2, 64));
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

/** A run as the catalog knows it: a view of one slot (make it, read it, drop it). */
export class RunRow {
  constructor(private readonly x: CatalogIndex, readonly slot: number) {}
  private n(i: number): number { return this.x.runNum[this.slot * RUN_NUMBERS + i]!; }
  get id(): string { return this.x.runId[this.slot]!; }
  get startedAt(): string { return this.x.runSX.get(this.slot) ?? isoOf(this.n(R_STARTED)) ?? ''; }
  get startedMs(): number { return this.n(R_STARTED); }
  get label(): string | undefined { return this.x.runL[this.slot] ?? undefined; }
  get finishedAt(): string | undefined { return this.x.runFX.get(this.slot) ?? isoOf(this.n(R_FINISHED)); }
  get status(): RunFinishStatus | undefined { const i = this.n(R_STATUS); return i < 0 ? undefined : this.x.table[i] as RunFinishStatus; }
  get source(): unknown { const i = this.n(R_SOURCE); return i < 0 ? undefined : this.x.sources[i]; }
  get profileHash(): string { return this.x.table[this.n(R_PROFILE)]!; }
  /** Log size and mtime the row was built from. */
  get z(): number { return this.n(R_Z); }
  get m(): number { return this.n(R_M); }
  get blobBytes(): number { return this.n(R_BLOB); }
  get callCount(): number { return this.n(R_CALLS); }
  get problems(): readonly LogProblem[] { return this.x.runProblems.get(this.slot) ?? NO_PROBLEMS; }
  get pinned(): boolean { return (this.n(R_FLAGS) & RF_PINNED) !== 0; }
  get tornTail(): boolean { return (this.n(R_FLAGS) & RF_TORN) !== 0; }
  /** False when the log is not this tenant's run: it lists and mints nothing. */
  get ok(): boolean { return (this.n(R_FLAGS) & RF_OK) !== 0; }
  get dead(): boolean { return (this.n(R_FLAGS) & RF_DEAD) !== 0; }
  /** Its calls in the order they were indexed. */
  get calls(): CallRow[] {
    const out: CallRow[] = [];
    for (let c = this.x.runFirst[this.slot]!; c >= 0; c = this.x.callNext[c]!) out.push(new CallRow(this.x, c));
    return out;
  }
}

/** A call as the catalog knows it (a view of one slot); its listing fields stay in the file (`catOff`). */
export class CallRow {
  constructor(private readonly x: CatalogIndex, readonly slot: number) {}
  private n(i: number): number { return this.x.callNum[this.slot * CALL_NUMBERS + i]!; }
  get id(): string { return this.x.callIdOf(this.slot); }
  get run(): RunRow { return new RunRow(this.x, this.n(C_RUN)); }
  get runSlot(): number { return this.n(C_RUN); }
  get tool(): string { return this.x.table[this.n(C_TOOL)]!; }
  get status(): string { return this.x.table[this.n(C_STATUS)]!; }
  get startedMs(): number { return this.n(C_STARTED); }
  /** Result plus attachment bytes (the `largest` order). */
  get bytes(): number { return this.n(C_BYTES); }
  /** Where its latest entry is: catalog line and, inside a `snap`, the entry's index (-1: a plain line). */
  get catOff(): number { return this.n(C_CATOFF); }
  get catLen(): number { return this.n(C_CATLEN); }
  get sub(): number { return this.n(C_SUB); }
  /** Where its `call_finished` line is in the run log. */
  get logOff(): number { return this.x.callLog[this.slot * 2]!; }
  get logLen(): number { return this.x.callLog[this.slot * 2 + 1]!; }
  get finished(): boolean { return (this.n(C_FLAGS) & CF_FINISHED) !== 0; }
  /** Two records in one log claim this call's handles: they resolve to nothing. */
  get ambiguous(): boolean { return (this.n(C_FLAGS) & CF_AMBIGUOUS) !== 0; }
  get dead(): boolean { return (this.n(C_FLAGS) & CF_DEAD) !== 0; }
}

/** Rows in an order, read by position (views are made on demand). */
export interface RowList<T> {
  readonly length: number;
  at(i: number): T;
  /** The slot at position `i` (no view). */
  slotAt(i: number): number;
}

/** The columns. Every method is synchronous: the catalog decides where the loop may run. */
export class CatalogIndex {
  /** Strings the number columns index into. */
  table: string[] = [];
  private tableIndex = new Map<string, number>();

  runCount = 0;
  runNum: Float64Array = new Float64Array(0);
  runId: string[] = [];
  runL: (string | null | undefined)[] = [];
  /**
   * Start and finish times are numbers; the recorded text is kept only when it is not
   * what `toISOString` gives back (the recorder writes that form: almost never).
   */
  readonly runSX = new Map<number, string>();
  readonly runFX = new Map<number, string>();
  /** Distinct run sources (most runs of a front end share one), indexed by a run's `R_SOURCE`. */
  sources: unknown[] = [];
  private sourceIndex = new Map<string, number>();
  readonly runProblems = new Map<number, readonly LogProblem[]>();
  /** First and last call slot of each run (-1: none); calls chain through `callNext`. */
  runFirst: Int32Array = new Int32Array(0);
  runLast: Int32Array = new Int32Array(0);

  callCount = 0;
  callNum: Float64Array = new Float64Array(0);
  callLog: Float64Array = new Float64Array(0);
  /** Call ids that are not `<run token>-<n>` (`C_NUMBER` 0): almost never. */
  readonly callIdX = new Map<number, string>();
  callNext: Int32Array = new Int32Array(0);

  private runOrder: Int32Array = new Int32Array(0);
  private runOrderLen = 0;
  private callOrder: Int32Array = new Int32Array(0);
  private callOrderLen = 0;
  private runsSorted = true;
  private callsSorted = true;
  private deadRuns = 0;
  private deadCalls = 0;
  liveRuns = 0;
  liveCalls = 0;

  private readonly runsByKey = new HashIndex();
  private readonly handleIndex = new HashIndex();
  /** Call id → slot for runs with many calls (built when a walk of the chain gets long). */
  private readonly bigRuns = new Map<number, Map<string, number>>();

  /** The table index of a string, or -1 when no row uses it. */
  tableIndexOf(s: string): number {
    return this.tableIndex.get(s) ?? -1;
  }

  /** A view of a call slot. */
  call(slot: number): CallRow {
    return new CallRow(this, slot);
  }

  t(s: string): number {
    let i = this.tableIndex.get(s);
    if (i === undefined) { i = this.table.length; this.table.push(s); this.tableIndex.set(s, i); }
    return i;
  }

  /** The index of a source in `sources` (-1: none). */
  private sourceSlot(src: unknown): number {
    if (src === undefined || src === null) return -1;
    const key = JSON.stringify(src);
    let i = this.sourceIndex.get(key);
    if (i === undefined) { i = this.sources.length; this.sources.push(src); this.sourceIndex.set(key, i); }
    return i;
  }

  /** A call's id (made from its run's token and number when it has that form). */
  callIdOf(c: number): string {
    const n = this.cn(c, C_NUMBER);
    return n > 0 ? `${tokenOf(this.runId[this.cn(c, C_RUN)]!)}-${n}` : this.callIdX.get(c) ?? '';
  }

  /** The number `n` of a call id `<token>-<n>` of this run, 0 when it has another form. */
  private callNumberOf(run: number, callId: string): number {
    const token = tokenOf(this.runId[run]!);
    if (!token || callId.length <= token.length + 1 || !callId.startsWith(token) || callId[token.length] !== '-') return 0;
    const digits = callId.slice(token.length + 1);
    return /^[1-9]\d{0,14}$/.test(digits) ? Number(digits) : 0;
  }

  /** Sets a recorded time: the number, and the text when it does not round-trip. */
  private setTime(slot: number, col: number, exceptions: Map<number, string>, text: string): void {
    const ms = Date.parse(text);
    this.setRn(slot, col, Number.isFinite(ms) ? ms : 0);
    if (isoOf(ms) === text) exceptions.delete(slot); else exceptions.set(slot, text);
  }

  // ---- runs ----------------------------------------------------------------------------

  private rn(slot: number, i: number): number { return this.runNum[slot * RUN_NUMBERS + i]!; }
  private setRn(slot: number, i: number, v: number): void { this.runNum[slot * RUN_NUMBERS + i] = v; }
  private cn(slot: number, i: number): number { return this.callNum[slot * CALL_NUMBERS + i]!; }
  private setCn(slot: number, i: number, v: number): void { this.callNum[slot * CALL_NUMBERS + i] = v; }

  runDead(slot: number): boolean { return (this.rn(slot, R_FLAGS) & RF_DEAD) !== 0; }
  runFinished(slot: number): boolean { return this.rn(slot, R_STATUS) >= 0; }
  runOk(slot: number): boolean { return (this.rn(slot, R_FLAGS) & RF_OK) !== 0; }
  runZ(slot: number): number { return this.rn(slot, R_Z); }
  runM(slot: number): number { return this.rn(slot, R_M); }
  callDead(slot: number): boolean { return (this.cn(slot, C_FLAGS) & CF_DEAD) !== 0; }
  callRunSlot(slot: number): number { return this.cn(slot, C_RUN); }
  callTool(slot: number): number { return this.cn(slot, C_TOOL); }
  callBytes(slot: number): number { return this.cn(slot, C_BYTES); }
  callStarted(slot: number): number { return this.cn(slot, C_STARTED); }

  /** The live run with this id, or -1. */
  findRun(runId: string): number {
    for (const s of this.runsByKey.find(runKey(runId))) if (!this.runDead(s) && this.runId[s] === runId) return s;
    return -1;
  }

  /** Live runs whose id ends with `-<token>`. */
  runsWithToken(token: string): number[] {
    const suffix = `-${token}`;
    return this.runsByKey.find(crc32(token)).filter((s) => !this.runDead(s) && this.runId[s]!.endsWith(suffix));
  }

  private newRun(runId: string): number {
    const s = this.runCount++;
    this.runNum = growF64(this.runNum, this.runCount * RUN_NUMBERS);
    this.runFirst = growI32(this.runFirst, this.runCount, -1);
    this.runLast = growI32(this.runLast, this.runCount, -1);
    this.runNum.fill(0, s * RUN_NUMBERS, (s + 1) * RUN_NUMBERS);
    this.runFirst[s] = this.runLast[s] = -1;
    this.runId[s] = runId; this.runL[s] = undefined;
    this.setRn(s, R_PROFILE, this.t(''));
    this.setRn(s, R_FINISHED, NaN);
    this.setRn(s, R_STATUS, -1);
    this.setRn(s, R_SOURCE, -1);
    this.runsByKey.add(runKey(runId), s);
    this.runOrder = growI32(this.runOrder, this.runOrderLen + 1);
    this.runOrder[this.runOrderLen++] = s;
    this.liveRuns++;
    return s;
  }

  private compareRuns(a: number, b: number): number {
    const d = this.rn(a, R_STARTED) - this.rn(b, R_STARTED);
    if (d !== 0) return d;
    const x = this.runId[a]!, y = this.runId[b]!;
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /**
   * Oldest first; calls started in the same millisecond by their runs' order, then by
   * their number in the run. Not by slot: slots follow the order this process learned
   * the calls in (another writer's run may arrive later than it ran), and a catalog
   * rebuilt from the logs must list exactly what the live one lists.
   */
  compareCalls(a: number, b: number): number {
    const d = this.cn(a, C_STARTED) - this.cn(b, C_STARTED);
    if (d !== 0) return d;
    const ra = this.cn(a, C_RUN), rb = this.cn(b, C_RUN);
    if (ra !== rb) return this.compareRuns(ra, rb);
    return this.cn(a, C_NUMBER) - this.cn(b, C_NUMBER) || a - b;
  }

  /** Marks a run and its calls dead. */
  removeRun(runId: string): void {
    const s = this.findRun(runId);
    if (s < 0) return;
    this.setRn(s, R_FLAGS, this.rn(s, R_FLAGS) | RF_DEAD);
    this.runsByKey.remove(runKey(runId), s);
    this.runProblems.delete(s);
    this.runSX.delete(s);
    this.runFX.delete(s);
    this.bigRuns.delete(s);
    this.deadRuns++; this.liveRuns--;
    for (let c = this.runFirst[s]!; c >= 0; c = this.callNext[c]!) {
      this.unhash(c);
      this.callIdX.delete(c);
      this.setCn(c, C_FLAGS, this.cn(c, C_FLAGS) | CF_DEAD);
      this.deadCalls++; this.liveCalls--;
    }
    if (this.deadRuns > 1024 && this.deadRuns * 4 > this.runOrderLen) this.compactRuns();
    if (this.deadCalls > 1024 && this.deadCalls * 4 > this.callOrderLen) this.compactCalls();
  }

  private compactRuns(): void {
    let j = 0;
    for (let i = 0; i < this.runOrderLen; i++) { const s = this.runOrder[i]!; if (!this.runDead(s)) this.runOrder[j++] = s; }
    this.runOrderLen = j;
    this.deadRuns = 0;
  }

  private compactCalls(): void {
    let j = 0;
    for (let i = 0; i < this.callOrderLen; i++) { const s = this.callOrder[i]!; if (!this.callDead(s)) this.callOrder[j++] = s; }
    this.callOrderLen = j;
    this.deadCalls = 0;
  }

  // ---- calls ---------------------------------------------------------------------------

  /** The call of this run with this id, or -1. */
  findCall(run: number, callId: string): number {
    const big = this.bigRuns.get(run);
    if (big) return big.get(callId) ?? -1;
    let steps = 0;
    const n = this.callNumberOf(run, callId);
    for (let c = this.runFirst[run]!; c >= 0; c = this.callNext[c]!, steps++) {
      if (n > 0 ? this.cn(c, C_NUMBER) === n : this.callIdX.get(c) === callId) return c;
    }
    if (steps > 32) {
      const m = new Map<string, number>();
      for (let c = this.runFirst[run]!; c >= 0; c = this.callNext[c]!) m.set(this.callIdOf(c), c);
      this.bigRuns.set(run, m);
    }
    return -1;
  }

  private newCall(run: number, e: CallStartEntry | CallEntry): number {
    const s = this.callCount++;
    this.callNum = growF64(this.callNum, this.callCount * CALL_NUMBERS);
    this.callLog = growF64(this.callLog, this.callCount * 2);
    this.callNext = growI32(this.callNext, this.callCount, -1);
    this.callNum.fill(0, s * CALL_NUMBERS, (s + 1) * CALL_NUMBERS);
    this.callLog[s * 2] = this.callLog[s * 2 + 1] = 0;
    this.callNext[s] = -1;
    const n = this.callNumberOf(run, e.c);
    this.setCn(s, C_NUMBER, n);
    if (n === 0) this.callIdX.set(s, e.c);
    this.setCn(s, C_RUN, run);
    this.setCn(s, C_TOOL, this.t(e.t));
    this.setCn(s, C_STATUS, this.t('running'));
    this.setCn(s, C_SLOTS, this.t(''));
    this.setCn(s, C_SUB, -1);
    this.setCn(s, C_STARTED, Date.parse(e.s) || 0);
    const last = this.runLast[run]!;
    if (last < 0) this.runFirst[run] = s; else this.callNext[last] = s;
    this.runLast[run] = s;
    this.bigRuns.get(run)?.set(e.c, s);
    this.callOrder = growI32(this.callOrder, this.callOrderLen + 1);
    const prev = this.callOrderLen > 0 ? this.callOrder[this.callOrderLen - 1]! : -1;
    this.callOrder[this.callOrderLen++] = s;
    if (prev >= 0) this.callsSorted &&= this.compareCalls(prev, s) <= 0;
    this.liveCalls++;
    return s;
  }

  /** Handles a call minted (none until it finished). */
  handlesOf(c: number): string[] {
    const flags = this.cn(c, C_FLAGS);
    const id = this.callIdOf(c);
    const out: string[] = (flags & CF_RESULT) !== 0 ? [`res_${id}`] : [];
    const slots = this.table[this.cn(c, C_SLOTS)]!;
    if (slots) for (const s of slots.split(',')) out.push(`out_${id}_${s}`);
    return out;
  }

  private hash(c: number): void {
    for (const h of this.handlesOf(c)) this.handleIndex.add(crc32(h), c);
  }

  private unhash(c: number): void {
    if ((this.cn(c, C_FLAGS) & CF_FINISHED) === 0) return;
    for (const h of this.handlesOf(c)) this.handleIndex.remove(crc32(h), c);
  }

  /** Live finished calls of listed runs that minted `handle`. */
  candidates(handle: string): number[] {
    return this.handleIndex.find(crc32(handle)).filter((c) => {
      const f = this.cn(c, C_FLAGS);
      return (f & CF_DEAD) === 0 && (f & CF_FINISHED) !== 0 && this.runOk(this.cn(c, C_RUN)) && this.handlesOf(c).includes(handle);
    });
  }

  /**
   * True when the handles added since the last packing (a map entry each) are many and
   * at least a quarter of the packed ones: packing then costs amortized linear time, and
   * the map never grows so large that growing it stalls the loop.
   */
  get shouldPackHandles(): boolean {
    return this.handleIndex.recentSize > 10_000 && this.handleIndex.recentSize * 4 > this.handleIndex.packedSize;
  }

  /**
   * Moves every live call's handles into the sorted arrays, in slices. Only the reader of
   * new catalog lines calls it, and nothing else changes the index while it waits.
   */
  async packHandles(): Promise<void> {
    const { keys, vals } = await HashIndex.pairsOf(this.handleIndex.snapshot(), (c) => (this.callDead(c) ? -1 : c));
    await yieldToLoop();
    const sorted = await sortPairs(keys, vals);
    this.handleIndex.adopt(sorted.keys, sorted.vals);
  }

  // ---- applying entries ----------------------------------------------------------------

  /**
   * Applies a record entry; the run's slot, or -1 for an entry of a run this index never
   * saw start (`onOrphan` is told). `seen` (inside a snap) marks a call finished twice.
   */
  applyRecord(e: RecordEntry, off: number, len: number, sub: number, seen: Set<string> | undefined, onOrphan: (runId: string) => void): number {
    let s = this.findRun(e.r);
    if (e.k === 'run') {
      if (s < 0) s = this.newRun(e.r);
      this.setTime(s, R_STARTED, this.runSX, e.s);
      this.setRn(s, R_PROFILE, this.t(e.ph));
      this.runL[s] = e.l;
      this.setRn(s, R_SOURCE, this.sourceSlot(e.src));
      this.setRn(s, R_FLAGS, (this.rn(s, R_FLAGS) & ~RF_PINNED) | (e.p ? RF_PINNED : 0) | RF_OK);
      // Runs arrive nearly in start order: sort only when one did not.
      const i = this.runOrderLen - 1;
      if (this.runOrder[i] !== s || (i > 0 && this.compareRuns(this.runOrder[i - 1]!, s) > 0)) this.runsSorted = false;
      return s;
    }
    if (s < 0) { onOrphan(e.r); return -1; }
    switch (e.k) {
      case 'pin': this.setRn(s, R_FLAGS, (this.rn(s, R_FLAGS) & ~RF_PINNED) | (e.p ? RF_PINNED : 0)); break;
      case 'fin': this.setTime(s, R_FINISHED, this.runFX, e.f); this.setRn(s, R_STATUS, this.t(e.st)); break;
      case 'cs': {
        let c = this.findCall(s, e.c);
        if (c < 0) c = this.newCall(s, e);
        if ((this.cn(c, C_FLAGS) & CF_FINISHED) === 0) { this.setCn(c, C_CATOFF, off); this.setCn(c, C_CATLEN, len); this.setCn(c, C_SUB, sub); }
        break;
      }
      case 'cf': {
        let c = this.findCall(s, e.c);
        let flags = 0;
        if (c < 0) c = this.newCall(s, e);
        else {
          flags = this.cn(c, C_FLAGS);
          if (seen?.has(e.c)) flags |= CF_AMBIGUOUS;
        }
        seen?.add(e.c);
        this.unhash(c);
        if ((flags & CF_FINISHED) !== 0) this.setRn(s, R_BLOB, this.rn(s, R_BLOB) - this.cn(c, C_BLOB));
        else this.setRn(s, R_CALLS, this.rn(s, R_CALLS) + 1);
        let attBytes = 0;
        const slots: string[] = [];
        for (const [, slot, size] of e.a) { attBytes += size; slots.push(slot); }
        this.setCn(c, C_STATUS, this.t(listedStatus(e)));
        this.setCn(c, C_TOOL, this.t(e.t));
        this.setCn(c, C_BYTES, e.b + attBytes);
        this.setCn(c, C_SLOTS, this.t(slots.join(',')));
        this.setCn(c, C_FLAGS, (flags & ~CF_RESULT) | CF_FINISHED | (e.h === true ? CF_RESULT : 0));
        this.setCn(c, C_CATOFF, off); this.setCn(c, C_CATLEN, len); this.setCn(c, C_SUB, sub);
        this.callLog[c * 2] = e.o; this.callLog[c * 2 + 1] = e.n;
        this.setCn(c, C_BLOB, e.bb);
        this.setRn(s, R_BLOB, this.rn(s, R_BLOB) + e.bb);
        this.hash(c);
        break;
      }
    }
    return s;
  }

  /** The log's size and mtime after an entry (only ever forward). */
  stamp(s: number, z: number, m: number): void {
    if (z >= this.rn(s, R_Z)) { this.setRn(s, R_Z, z); this.setRn(s, R_M, m); }
  }

  /** A run re-indexed from its log replaces its row (new slots). */
  applySnap(e: SnapEntry, off: number, len: number, onOrphan: (runId: string) => void): void {
    const prior = this.findRun(e.r);
    // An older view of the log than the row already has (another process re-indexed it after it grew): smaller
    // and not newer. A log rewritten shorter is newer, and its snap replaces the row (else every check of the run
    // would find it stale and append another snap, for ever).
    if (prior >= 0 && e.z < this.rn(prior, R_Z) && e.m <= this.rn(prior, R_M)) return;
    this.removeRun(e.r);
    const s = this.newRun(e.r);
    const seen = new Set<string>();
    e.e.forEach((entry, i) => this.applyRecord(entry, off, len, i, seen, onOrphan));
    let flags = this.rn(s, R_FLAGS);
    if (!e.ok) flags &= ~RF_OK;
    this.setRn(s, R_FLAGS, (flags & ~RF_TORN) | (e.tt ? RF_TORN : 0));
    if (e.pr.length) this.runProblems.set(s, e.pr); else this.runProblems.delete(s);
    this.setRn(s, R_Z, e.z);
    this.setRn(s, R_M, e.m);
    // A snap without its run's start (not this tenant's log) still takes a place in the order.
    if (this.runOrderLen > 1 && this.runOrder[this.runOrderLen - 1] === s && this.compareRuns(this.runOrder[this.runOrderLen - 2]!, s) > 0) this.runsSorted = false;
  }

  // ---- orders --------------------------------------------------------------------------

  /** Runs oldest first (dead ones may remain: callers skip `dead`). */
  runsOldestFirst(): RowList<RunRow> {
    if (!this.runsSorted) {
      this.compactRuns();
      const sorted = Int32Array.from(this.runOrder.subarray(0, this.runOrderLen)).sort((a, b) => this.compareRuns(a, b));
      this.runOrder.set(sorted);
      this.runsSorted = true;
    }
    const order = this.runOrder;
    return { length: this.runOrderLen, at: (i) => new RunRow(this, order[i]!), slotAt: (i) => order[i]! };
  }

  /** Calls oldest first (dead ones may remain: callers skip `dead`). */
  callsOldestFirst(): RowList<CallRow> {
    if (!this.callsSorted) {
      this.compactCalls();
      const sorted = Int32Array.from(this.callOrder.subarray(0, this.callOrderLen)).sort((a, b) => this.compareCalls(a, b));
      this.callOrder.set(sorted);
      this.callsSorted = true;
    }
    const order = this.callOrder;
    return { length: this.callOrderLen, at: (i) => new CallRow(this, order[i]!), slotAt: (i) => order[i]! };
  }

  /** Listed runs and the bytes their logs and blobs keep. */
  totals(): { runs: number; bytes: number } {
    let bytes = 0;
    let runs = 0;
    for (let s = 0; s < this.runCount; s++) {
      const f = this.rn(s, R_FLAGS);
      if ((f & RF_OK) !== 0 && (f & RF_DEAD) === 0) { runs++; bytes += this.rn(s, R_Z) + this.rn(s, R_BLOB); }
    }
    return { runs, bytes };
  }

  // ---- checkpoint ----------------------------------------------------------------------

  /**
   * The live rows as checkpoint columns (dead slots dropped, slots renumbered). The
   * columns are copied in the calling turn (one consistent state, memcpy-fast); the
   * renumbering and the handle sort run on the copies in slices.
   */
  async exportColumns(meta: { catalogId: string; tenant: string; offset: number; built: boolean }): Promise<CatalogColumns> {
    const nrAll = this.runCount;
    const ncAll = this.callCount;
    const rNum = this.runNum.slice(0, nrAll * RUN_NUMBERS);
    const cNum = this.callNum.slice(0, ncAll * CALL_NUMBERS);
    const cLog = this.callLog.slice(0, ncAll * 2);
    const ids = this.runId.slice(0, nrAll), labels = this.runL.slice(0, nrAll);
    const starts = new Map(this.runSX), fins = new Map(this.runFX), callIds = new Map(this.callIdX);
    const sources = [...this.sources];
    const problems = new Map(this.runProblems);
    const table = [...this.table];
    const handles = this.handleIndex.snapshot();
    await yieldToLoop();
    const slicer = new Slicer();

    const runMap = new Int32Array(nrAll).fill(-1);
    let nr = 0;
    for (let s = 0; s < nrAll; s++) if ((rNum[s * RUN_NUMBERS + R_FLAGS]! & RF_DEAD) === 0) runMap[s] = nr++;
    const runNum = new Float64Array(nr * RUN_NUMBERS);
    const runText = { id: new Array<string>(nr), l: new Array<string | null>(nr) };
    const sparse = { sx: {} as Record<string, string>, fx: {} as Record<string, string>, callId: {} as Record<string, string> };
    const runKeys = new Uint32Array(nr);
    const runKeyRuns = new Uint32Array(nr);
    const runProblems: Record<string, readonly LogProblem[]> = {};
    for (let s = 0; s < nrAll; s++) {
      const i = runMap[s]!;
      if (i < 0) continue;
      for (let j = 0; j < RUN_NUMBERS; j++) runNum[i * RUN_NUMBERS + j] = rNum[s * RUN_NUMBERS + j]!;
      runNum[i * RUN_NUMBERS + R_FLAGS] = rNum[s * RUN_NUMBERS + R_FLAGS]! & RUN_FLAGS_KEPT;
      runText.id[i] = ids[s]!; runText.l[i] = labels[s] ?? null;
      runKeys[i] = runKey(ids[s]!);
      runKeyRuns[i] = i;
      const sx = starts.get(s), fx = fins.get(s);
      if (sx !== undefined) sparse.sx[i] = sx;
      if (fx !== undefined) sparse.fx[i] = fx;
      const pr = problems.get(s);
      if (pr) runProblems[i] = pr;
      if (slicer.due()) await slicer.pause();
    }
    const callMap = new Int32Array(ncAll).fill(-1);
    let nc = 0;
    for (let c = 0; c < ncAll; c++) if ((cNum[c * CALL_NUMBERS + C_FLAGS]! & CF_DEAD) === 0 && runMap[cNum[c * CALL_NUMBERS + C_RUN]!]! >= 0) callMap[c] = nc++;
    const callNum = new Float64Array(nc * CALL_NUMBERS);
    const callLog = new Float64Array(nc * 2);
    for (let c = 0; c < ncAll; c++) {
      const i = callMap[c]!;
      if (i < 0) continue;
      for (let j = 0; j < CALL_NUMBERS; j++) callNum[i * CALL_NUMBERS + j] = cNum[c * CALL_NUMBERS + j]!;
      callNum[i * CALL_NUMBERS + C_RUN] = runMap[cNum[c * CALL_NUMBERS + C_RUN]!]!;
      callNum[i * CALL_NUMBERS + C_FLAGS] = cNum[c * CALL_NUMBERS + C_FLAGS]! & CALL_FLAGS_KEPT;
      callLog[i * 2] = cLog[c * 2]!; callLog[i * 2 + 1] = cLog[c * 2 + 1]!;
      const id = callIds.get(c);
      if (id !== undefined) sparse.callId[i] = id;
      if (slicer.due()) await slicer.pause();
    }
    // Handles of live finished calls only, renumbered.
    const pairs = await HashIndex.pairsOf(handles, (c) => (c >= ncAll || (cNum[c * CALL_NUMBERS + C_FLAGS]! & CF_FINISHED) === 0 ? -1 : callMap[c]!));
    await yieldToLoop();
    const sorted = await sortPairs(pairs.keys, pairs.vals);
    await yieldToLoop();
    const runsByKey = await sortPairs(runKeys, runKeyRuns);
    const u32 = (a: Int32Array): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.length);
    return {
      ...meta, table, sources, runText, sparse, runNum, runProblems, calls: nc, callNum, callLog,
      hashKeys: sorted.keys, hashCalls: u32(sorted.vals), runKeys: runsByKey.keys, runKeyRuns: u32(runsByKey.vals),
    };
  }

  /** Adopts checkpoint columns (into an empty index), in slices between which the loop runs. */
  async importColumns(cols: CatalogColumns): Promise<void> {
    this.table = [...cols.table];
    this.tableIndex = new Map(this.table.map((s, i) => [s, i]));
    const nr = cols.runText.id.length;
    const nc = cols.calls;
    this.runCount = nr;
    this.runNum = cols.runNum;
    this.runId = cols.runText.id; this.runL = cols.runText.l;
    this.sources = [...cols.sources];
    this.sourceIndex = new Map(this.sources.map((v, i) => [JSON.stringify(v), i]));
    for (const [k, v] of Object.entries(cols.sparse.sx)) this.runSX.set(Number(k), v);
    for (const [k, v] of Object.entries(cols.sparse.fx)) this.runFX.set(Number(k), v);
    for (const [k, v] of Object.entries(cols.sparse.callId)) this.callIdX.set(Number(k), v);
    for (const [k, v] of Object.entries(cols.runProblems)) this.runProblems.set(Number(k), v);
    this.callCount = nc;
    this.callNum = cols.callNum;
    this.callLog = cols.callLog;
    this.liveRuns = nr;
    this.liveCalls = nc;
    // Run lookup by token, packed and sorted as saved (no map entry per run).
    this.runsByKey.adopt(cols.runKeys, new Int32Array(cols.runKeyRuns.buffer, cols.runKeyRuns.byteOffset, cols.runKeyRuns.length));
    // Each run's calls chained in slot order; the orders are the slot orders, sorted when not already.
    // Nothing else reads this index before `open` returns, so it may be built across turns.
    const slicer = new Slicer();
    this.runFirst = new Int32Array(nr).fill(-1);
    this.runLast = new Int32Array(nr).fill(-1);
    this.callNext = new Int32Array(nc).fill(-1);
    this.callOrder = new Int32Array(nc);
    this.callOrderLen = nc;
    this.callsSorted = true;
    for (let c = 0; c < nc; c++) {
      const r = this.cn(c, C_RUN);
      const last = this.runLast[r]!;
      if (last < 0) this.runFirst[r] = c; else this.callNext[last] = c;
      this.runLast[r] = c;
      this.callOrder[c] = c;
      if (c > 0 && this.callsSorted) this.callsSorted = this.compareCalls(c - 1, c) <= 0;
      if (slicer.due()) await slicer.pause();
    }
    this.runOrder = new Int32Array(nr);
    this.runOrderLen = nr;
    this.runsSorted = true;
    for (let r = 0; r < nr; r++) {
      this.runOrder[r] = r;
      if (r > 0 && this.runsSorted) this.runsSorted = this.compareRuns(r - 1, r) <= 0;
      if (slicer.due()) await slicer.pause();
    }
    this.handleIndex.adopt(cols.hashKeys, new Int32Array(cols.hashCalls.buffer, cols.hashCalls.byteOffset, cols.hashCalls.length));
  }
}
