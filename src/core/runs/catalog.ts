/**
 * The per-tenant catalog (docs/architecture.md §6): an index of runs, calls and
 * minted handles kept in one append-only file beside the run logs, so that opening a
 * store, resolving a handle and listing a page never parse every log.
 *
 * Whoever records appends (the editor, MCP servers, the command line: one line per
 * record, one write each, format in `catalogFormat.ts`); every process reads the lines
 * appended since it last looked before it answers. The logs stay the source of truth:
 * each run's row carries its log's size and mtime, and a row is compared with its log
 * before it is served (a mismatch re-indexes that run from its log, one `snap` line).
 * A missing catalog is rebuilt from the logs; a damaged header moves the file aside and
 * rebuilds; a torn or altered line is skipped, counted, and every run is re-verified in
 * the background.
 *
 * Memory: one small row per run and per call (no parsed records, no previews, no
 * arguments); a call's listing fields are read back from its catalog line on demand.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { isSafeSegment } from '../blobs/blobKey.js';
import {
  CATALOG_FILE, decodeLine, encodeLine, entryOf, listedStatus, snapOf,
  type CallEntry, type CallStartEntry, type CatalogEntry, type LogStamp, type RecordEntry, type SnapEntry,
} from './catalogFormat.js';
import { CALL_NUMBERS, readCheckpoint, RUN_NUMBERS, writeCheckpoint, type CatalogColumns } from './catalogCheckpoint.js';
import { parseRunLog } from './runLog.js';
import type { LogProblem, RunFinishStatus, RunRecord } from './types.js';

const NO_PROBLEMS: readonly LogProblem[] = Object.freeze([]);
/** Bytes read per slice while loading: a few milliseconds of parsing between yields. */
const READ_CHUNK = 128 * 1024;
/** Catalog bytes appended after the checkpoint before a process writes a new one. */
const CHECKPOINT_LAG_BYTES = 4 * 1024 * 1024;
/** Logs stat'ed at once while verifying. */
const STAT_BATCH = 64;

/** Lets the event loop run (pings, other requests) between slices of work. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One run as the catalog knows it. */
export class RunRow {
  startedAt = '';
  startedMs = 0;
  label: string | undefined;
  pinned = false;
  profileHash = '';
  source: unknown;
  finishedAt: string | undefined;
  status: RunFinishStatus | undefined;
  /** Log size and mtime the row was built from. */
  z = 0;
  m = 0;
  blobBytes = 0;
  callCount = 0;
  problems: readonly LogProblem[] = NO_PROBLEMS;
  tornTail = false;
  /** False when the log is not this tenant's run: it lists and mints nothing. */
  ok = false;
  dead = false;
  readonly calls: CallRow[] = [];
  private byId: Map<string, CallRow> | undefined;
  constructor(readonly id: string, readonly seq: number) {}

  call(callId: string): CallRow | undefined {
    if (this.calls.length > 8) {
      if (!this.byId) this.byId = new Map(this.calls.map((c) => [c.id, c]));
      return this.byId.get(callId);
    }
    return this.calls.find((c) => c.id === callId);
  }

  addCall(c: CallRow): void {
    this.calls.push(c);
    this.byId?.set(c.id, c);
  }
}

/** One call as the catalog knows it; its listing fields stay in the file (`catOff`). */
export class CallRow {
  tool = '';
  startedMs = 0;
  finished = false;
  status = 'running';
  /** Result plus attachment bytes (the `largest` order). */
  bytes = 0;
  /** Comma-joined attachment slots (interned: most calls share one string). */
  slots = '';
  hasResult = false;
  /** Where its latest entry is: catalog line and, inside a `snap`, the entry's index (-1: a plain line). */
  catOff = 0;
  catLen = 0;
  sub = -1;
  /** Where its `call_finished` line is in the run log. */
  logOff = 0;
  logLen = 0;
  /** Bytes of this call kept in blobs (taken back when the call is indexed again). */
  blob = 0;
  /** Two records in one log claim this call's handles: they resolve to nothing. */
  ambiguous = false;
  dead = false;
  constructor(readonly run: RunRow, readonly id: string, readonly seq: number) {}

  handles(): string[] {
    const out: string[] = this.hasResult ? [`res_${this.id}`] : [];
    if (this.slots) for (const s of this.slots.split(',')) out.push(`out_${this.id}_${s}`);
    return out;
  }
}

/** Counters a test or the bench can read. */
export interface CatalogStats {
  readonly runs: number;
  readonly calls: number;
  readonly fileBytes: number;
  readonly damagedLines: number;
  readonly reindexed: number;
  readonly rebuilt: boolean;
}

/** The index of one tenant's logs folder. */
export class Catalog {
  /** Catalog bytes appended after the checkpoint before a process writes a new one (tests lower it). */
  static checkpointLagBytes = CHECKPOINT_LAG_BYTES;
  readonly file: string;
  private readonly runs = new Map<string, RunRow>();
  private runOrder: RunRow[] = [];
  private callOrder: CallRow[] = [];
  private runsSorted = true;
  private callsSorted = true;
  private deadRuns = 0;
  private deadCalls = 0;
  /**
   * Handle lookup: crc32 of each handle a finished call minted. Most of them are packed
   * in sorted arrays (8 bytes a handle instead of a Map entry); calls added since are in
   * the map. A stale entry is harmless: candidates are checked against the row itself.
   */
  private packedKeys: Uint32Array = new Uint32Array(0);
  private packedRows: CallRow[] = [];
  private readonly byHash = new Map<number, CallRow | CallRow[]>();
  private readonly interned = new Map<string, string>();
  private seq = 0;
  private readOffset = 0;
  private fileId = '';
  /** The header's random id (a checkpoint names the catalog it was made from). */
  private catalogId = '';
  /** Catalog bytes the checkpoint on disk covered when this process last read or wrote it. */
  private checkpointOffset = 0;
  private checkpointing = false;
  private headerOk = false;
  private built = false;
  private damagedLines = 0;
  private reindexed = 0;
  private rebuilt = false;
  private syncRunning: Promise<void> | undefined;
  private syncQueued: Promise<void> | undefined;
  private background: Promise<void> | undefined;
  private verifyAllQueued = false;
  /** Runs seen only in entries after their start (queued for a check once each). */
  private readonly orphans = new Set<string>();

  private constructor(readonly dir: string, readonly tenant: string) {
    this.file = path.join(dir, CATALOG_FILE);
  }

  /** The checkpoint file beside the catalog. */
  get checkpointFile(): string {
    return `${this.file}.ckpt`;
  }

  /**
   * Loads the catalog (creating it from the logs when missing or when its header is
   * damaged), then checks it against the logs folder in the background.
   */
  static async open(dir: string, tenant: string): Promise<Catalog> {
    const c = new Catalog(dir, tenant);
    await c.loadCheckpoint();
    await c.sync();
    if (c.byHash.size > 10_000) await c.packHashes();
    if (!c.headerOk) await c.startOver();
    if (!c.built) await c.reconcile(true);
    else c.inBackground(() => c.reconcile(false));
    c.checkpointIfBehind();
    return c;
  }

  /** Runs `task` after any background work already queued; errors are kept for `settled`. */
  private inBackground(task: () => Promise<void>): void {
    const prior = this.background ?? Promise.resolve();
    const next: Promise<void> = prior.then(task).catch(() => undefined).then(() => {
      if (this.background === next) this.background = undefined;
    });
    this.background = next;
  }

  /** Waits for background checks (tests, and a miss that may be answered by them). */
  async settled(): Promise<void> {
    while (this.background) await this.background;
  }

  /** True while background checks are queued or running. */
  busy(): boolean {
    return this.background !== undefined;
  }

  stats(): CatalogStats {
    return {
      runs: this.runs.size, calls: this.callOrder.length - this.deadCalls, fileBytes: this.readOffset,
      damagedLines: this.damagedLines, reindexed: this.reindexed, rebuilt: this.rebuilt,
    };
  }

  // ---- reading the file ----------------------------------------------------------------

  /** Reads what was appended since the last read (coalescing concurrent callers). */
  sync(): Promise<void> {
    if (this.syncQueued) return this.syncQueued;
    const after = this.syncRunning ?? Promise.resolve();
    const p: Promise<void> = after.then(async () => {
      this.syncQueued = undefined;
      this.syncRunning = p;
      try { await this.readTail(); } finally { if (this.syncRunning === p) this.syncRunning = undefined; }
    });
    this.syncQueued = p;
    return p;
  }

  private reset(): void {
    this.runs.clear();
    this.runOrder = [];
    this.callOrder = [];
    this.byHash.clear();
    this.packedKeys = new Uint32Array(0);
    this.packedRows = [];
    this.deadRuns = this.deadCalls = 0;
    this.readOffset = 0;
    this.catalogId = '';
    this.headerOk = this.built = false;
  }

  private async readTail(): Promise<void> {
    const fh = await fsp.open(this.file, 'r').catch((e: NodeJS.ErrnoException) => { if (e.code === 'ENOENT') return undefined; throw e; });
    if (!fh) { this.reset(); this.fileId = ''; return; }
    try {
      const st = await fh.stat();
      const id = `${st.dev}:${st.ino}`;
      // Replaced (rebuilt by another process) or cut: read it again from the start.
      if (id !== this.fileId || st.size < this.readOffset) { this.reset(); this.fileId = id; }
      let pos = this.readOffset;
      let carry: Buffer | undefined;
      while (pos < st.size) {
        const want = Math.min(READ_CHUNK, st.size - pos);
        const chunk = Buffer.allocUnsafe(want);
        const { bytesRead } = await fh.read(chunk, 0, want, pos);
        if (bytesRead === 0) break;
        const data = carry ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
        const base = pos - (carry?.length ?? 0);
        pos += bytesRead;
        const atEnd = pos >= st.size;
        let i = 0;
        if (base === 0 && data[0] !== 10) { this.headerOk = false; this.readOffset = st.size; return; }
        carry = undefined;
        while (i < data.length) {
          const next = data.indexOf(10, i + 1);
          if (next < 0) {
            if (!atEnd) { carry = data.subarray(i); break; }
            // The last line may be a write still in progress: taken only when whole.
            const entry = decodeLine(data, i + 1, data.length);
            if (entry) { this.apply(entry, base + i + 1, data.length - i - 1); i = data.length; }
            break;
          }
          const entry = decodeLine(data, i + 1, next);
          if (entry) this.apply(entry, base + i + 1, next - i - 1);
          else if (next > i + 1) this.damaged();
          i = next;
        }
        this.readOffset = base + i;
        if (!atEnd) await yieldToLoop();
      }
    } finally {
      await fh.close();
    }
  }

  private damaged(): void {
    this.damagedLines++;
    // A lost line may have been any run's: check every run against its log (once per batch of damage).
    if (this.verifyAllQueued) return;
    this.verifyAllQueued = true;
    this.inBackground(async () => { this.verifyAllQueued = false; await this.verifyAll(); });
  }

  // ---- applying entries ----------------------------------------------------------------

  private intern(s: string): string {
    const known = this.interned.get(s);
    if (known !== undefined) return known;
    if (this.interned.size < 10_000) this.interned.set(s, s);
    return s;
  }

  private apply(e: CatalogEntry, off: number, len: number): void {
    if (off === 1) {
      this.headerOk = e.k === 'hdr' && e.v === 1 && e.tenant === this.tenant;
      this.catalogId = e.k === 'hdr' && typeof e.id === 'string' ? e.id : '';
      return;
    }
    if (!this.headerOk) return;
    switch (e.k) {
      case 'hdr': return;
      case 'built': this.built = true; return;
      case 'del': this.removeRun(e.r); return;
      case 'snap': this.applySnap(e, off, len); return;
      default: {
        if (typeof (e as { r?: unknown }).r !== 'string') return;
        const row = this.applyRecord(e, off, len, -1, undefined);
        const { z, m } = e as LogStamp;
        if (row && typeof z === 'number' && z >= row.z) { row.z = z; row.m = m; }
      }
    }
  }

  private newRun(runId: string): RunRow {
    const row = new RunRow(runId, ++this.seq);
    this.runs.set(runId, row);
    this.runOrder.push(row);
    return row;
  }

  private applyRecord(e: RecordEntry, off: number, len: number, sub: number, seen: Set<string> | undefined): RunRow | undefined {
    let row = this.runs.get(e.r);
    if (e.k === 'run') {
      row ??= this.newRun(e.r);
      row.startedAt = e.s;
      row.startedMs = Date.parse(e.s) || 0;
      row.profileHash = this.intern(e.ph);
      row.label = e.l;
      row.pinned = e.p ?? false;
      row.source = e.src;
      row.ok = true;
      // Runs arrive nearly in start order: sort only when one did not.
      const i = this.runOrder.length - 1;
      if (this.runOrder[i] !== row || (i > 0 && compareRuns(this.runOrder[i - 1]!, row) > 0)) this.runsSorted = false;
      return row;
    }
    // An entry of a run this catalog never saw start (its line was lost): the background check re-indexes it.
    if (!row) {
      if (!this.orphans.has(e.r)) {
        this.orphans.add(e.r);
        this.inBackground(async () => { this.orphans.delete(e.r); await this.verifyRun(e.r); });
      }
      return undefined;
    }
    switch (e.k) {
      case 'pin': row.pinned = e.p; break;
      case 'fin': row.finishedAt = e.f; row.status = e.st as RunFinishStatus; break;
      case 'cs': {
        let c = row.call(e.c);
        if (!c) c = this.newCall(row, e);
        if (!c.finished) { c.catOff = off; c.catLen = len; c.sub = sub; }
        break;
      }
      case 'cf': {
        let c = row.call(e.c);
        if (!c) c = this.newCall(row, e);
        else if (seen?.has(e.c)) c.ambiguous = true;
        seen?.add(e.c);
        this.unhash(c);
        if (c.finished) row.blobBytes -= c.blob; else row.callCount++;
        c.finished = true;
        c.status = listedStatus(e);
        c.tool = this.intern(e.t);
        let attBytes = 0;
        const slots: string[] = [];
        for (const [, slot, size] of e.a) { attBytes += size; slots.push(slot); }
        c.bytes = e.b + attBytes;
        c.slots = this.intern(slots.join(','));
        c.hasResult = e.h === true;
        c.catOff = off; c.catLen = len; c.sub = sub;
        c.logOff = e.o; c.logLen = e.n;
        c.blob = e.bb;
        row.blobBytes += e.bb;
        this.hash(c);
        break;
      }
    }
    return row;
  }

  private newCall(row: RunRow, e: CallStartEntry | CallEntry): CallRow {
    const c = new CallRow(row, e.c, ++this.seq);
    c.tool = this.intern(e.t);
    c.startedMs = Date.parse(e.s) || 0;
    row.addCall(c);
    const last = this.callOrder[this.callOrder.length - 1];
    this.callOrder.push(c);
    if (last) this.callsSorted &&= compareCalls(last, c) <= 0;
    return c;
  }

  private applySnap(e: SnapEntry, off: number, len: number): void {
    const prior = this.runs.get(e.r);
    // An older view of the log than the row already has (another process re-indexed first).
    if (prior && !prior.dead && e.z < prior.z) return;
    this.removeRun(e.r);
    const row = this.newRun(e.r);
    const seen = new Set<string>();
    e.e.forEach((entry, i) => this.applyRecord(entry, off, len, i, seen));
    if (!e.ok) row.ok = false;
    row.problems = e.pr.length ? e.pr : NO_PROBLEMS;
    row.tornTail = e.tt;
    row.z = e.z;
    row.m = e.m;
  }

  private removeRun(runId: string): void {
    const row = this.runs.get(runId);
    if (!row) return;
    this.runs.delete(runId);
    row.dead = true;
    this.deadRuns++;
    for (const c of row.calls) { this.unhash(c); c.dead = true; this.deadCalls++; }
    if (this.deadRuns > 1024 && this.deadRuns * 4 > this.runOrder.length) { this.runOrder = this.runOrder.filter((r) => !r.dead); this.deadRuns = 0; }
    if (this.deadCalls > 1024 && this.deadCalls * 4 > this.callOrder.length) { this.callOrder = this.callOrder.filter((c) => !c.dead); this.deadCalls = 0; }
  }

  /** Moves every finished call's handles into the sorted arrays (after a load). */
  private async packHashes(): Promise<void> {
    const calls = this.callOrder.filter((c) => !c.dead);
    const { keys, order } = await sortedHashes(calls);
    this.packedKeys = keys;
    this.packedRows = order.map((i) => calls[i]!);
    this.byHash.clear();
  }

  private hash(c: CallRow): void {
    for (const h of c.handles()) {
      const k = crc32(h);
      const cur = this.byHash.get(k);
      if (cur === undefined) this.byHash.set(k, c);
      else if (Array.isArray(cur)) cur.push(c);
      else this.byHash.set(k, [cur, c]);
    }
  }

  private unhash(c: CallRow): void {
    if (!c.finished) return;
    for (const h of c.handles()) {
      const k = crc32(h);
      const cur = this.byHash.get(k);
      if (cur === c) this.byHash.delete(k);
      else if (Array.isArray(cur)) {
        const rest = cur.filter((x) => x !== c);
        if (rest.length === 0) this.byHash.delete(k); else this.byHash.set(k, rest.length === 1 ? rest[0]! : rest);
      }
    }
  }

  // ---- writing -------------------------------------------------------------------------

  /** Appends lines (one write each) and reads them back with anything others appended. */
  async append(entries: readonly CatalogEntry[]): Promise<void> {
    const fh = await fsp.open(this.file, 'a');
    try {
      for (const e of entries) {
        const line = encodeLine(e);
        let off = 0;
        while (off < line.length) off += (await fh.write(line, off, line.length - off)).bytesWritten;
      }
    } finally {
      await fh.close();
    }
    await this.sync();
    this.checkpointIfBehind();
  }

  /**
   * Indexes one record this process just appended to a run log (`lineBytes` long, the log
   * now `stamp.z` bytes). When the catalog's view of the log is not exactly the log minus
   * this line (another writer, a repaired torn tail, problems), the run is re-indexed.
   */
  async recorded(record: RunRecord, lineBytes: number, stamp: LogStamp): Promise<void> {
    await this.sync();
    const row = this.runs.get(record.runId);
    const expected = record.type === 'run_started' ? 0 : row?.z;
    if (expected !== stamp.z - lineBytes || (row && (row.problems.length > 0 || !row.ok && record.type !== 'run_started'))) {
      await this.reindex(record.runId);
      return;
    }
    await this.append([{ ...entryOf(record, stamp.z - lineBytes, lineBytes - 1), z: stamp.z, m: stamp.m } as CatalogEntry]);
  }

  /** Records a deletion. */
  async deleted(runId: string): Promise<void> {
    await this.append([{ k: 'del', r: runId }]);
  }

  // ---- checking against the logs --------------------------------------------------------

  /** The log file of a run. */
  logPath(runId: string): string {
    return path.join(this.dir, `${runId}.jsonl`);
  }

  /** Re-indexes one run from its log (one `snap` line), or records its deletion when the log is gone. */
  async reindex(runId: string): Promise<void> {
    await this.reindexMany([runId]);
  }

  /** Re-indexes runs from their logs, a batch read at once and appended together. */
  async reindexMany(runIds: readonly string[]): Promise<void> {
    for (let i = 0; i < runIds.length; i += STAT_BATCH) {
      const batch = runIds.slice(i, i + STAT_BATCH);
      const entries = (await Promise.all(batch.map((id) => this.snapFromLog(id)))).filter((e): e is CatalogEntry => e !== undefined);
      this.reindexed += entries.filter((e) => e.k === 'snap').length;
      if (entries.length) await this.append(entries);
      if (i + STAT_BATCH < runIds.length) await yieldToLoop();
    }
  }

  /** A run's `snap` from its log, `del` when the log is gone and the catalog has the run. */
  private async snapFromLog(runId: string): Promise<CatalogEntry | undefined> {
    const fh = await fsp.open(this.logPath(runId), 'r').catch(() => undefined);
    if (!fh) return this.runs.has(runId) ? { k: 'del', r: runId } : undefined;
    try {
      const st = await fh.stat();
      const buf = Buffer.allocUnsafe(st.size);
      let got = 0;
      while (got < st.size) {
        const { bytesRead } = await fh.read(buf, got, st.size - got, got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return snapOf(runId, this.tenant, parseRunLog(buf.subarray(0, got), runId), { z: got, m: st.mtimeMs });
    } finally {
      await fh.close();
    }
  }

  /** Compares a run's row with its log; re-indexes when they differ. True when it did. */
  async verifyRun(runId: string): Promise<boolean> {
    return this.verifyRuns([runId]);
  }

  /** True when the run's row does not match its log (size and mtime), or one of them is missing. */
  private async stale(runId: string): Promise<boolean> {
    const st = await fsp.stat(this.logPath(runId)).catch(() => undefined);
    const row = this.runs.get(runId);
    if (!st?.isFile()) return row !== undefined;
    return !row || row.z !== st.size || row.m !== st.mtimeMs;
  }

  /** Checks runs against their logs a batch at a time and re-indexes the stale ones. True when any was. */
  async verifyRuns(runIds: Iterable<string>): Promise<boolean> {
    const ids = [...new Set(runIds)];
    let changed = false;
    for (let i = 0; i < ids.length; i += STAT_BATCH) {
      const batch = ids.slice(i, i + STAT_BATCH);
      const flags = await Promise.all(batch.map((id) => this.stale(id)));
      const stale = batch.filter((_, k) => flags[k]);
      if (stale.length) { changed = true; await this.reindexMany(stale); }
      if (i + STAT_BATCH < ids.length) await yieldToLoop();
    }
    return changed;
  }

  /** Every run against its log (after a damaged line), in batches between which the loop runs. */
  async verifyAll(): Promise<void> {
    await this.reconcile(false);
    await this.verifyRuns([...this.runs.keys()]);
  }

  /**
   * Compares the catalog's runs with the logs folder: a log it lacks is indexed, a run
   * whose log is gone is deleted, every unfinished run is checked (its writer may have
   * stopped between the log and the catalog). `finishBuild` appends `built` at the end.
   */
  async reconcile(finishBuild: boolean): Promise<void> {
    await this.sync();
    const names = await fsp.readdir(this.dir).catch(() => [] as string[]);
    const onDisk = new Set<string>();
    for (const n of names) if (n.endsWith('.jsonl') && isSafeSegment(n.slice(0, -6))) onDisk.add(n.slice(0, -6));
    await this.reindexMany([...onDisk].filter((id) => !this.runs.has(id)));
    const gone: string[] = [];
    const open: string[] = [];
    for (const [id, row] of this.runs) {
      if (!onDisk.has(id)) gone.push(id);
      else if (!row.status) open.push(id);
    }
    if (gone.length) await this.append(gone.map((r) => ({ k: 'del', r }) as const));
    await this.verifyRuns(open);
    if (finishBuild && !this.built) await this.append([{ k: 'built' }]);
  }

  /** A new catalog: the damaged one (if any) is kept aside; every log is indexed. */
  private async startOver(): Promise<void> {
    const exists = await fsp.stat(this.file).then(() => true, () => false);
    if (exists) await fsp.rename(this.file, `${this.file}.damaged`).catch(() => undefined);
    const header = encodeLine({ k: 'hdr', v: 1, tenant: this.tenant, id: randomBytes(8).toString('hex') });
    await fsp.writeFile(this.file, header, { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => { if (e.code !== 'EEXIST') throw e; });
    this.rebuilt = true;
    await this.sync();
  }

  // ---- checkpoint ----------------------------------------------------------------------

  /**
   * Starts from the checkpoint when it was made from this very catalog file (same header
   * id, the catalog at least as long, a line starting where it stopped); else nothing.
   */
  private async loadCheckpoint(): Promise<void> {
    const cols = await readCheckpoint(this.checkpointFile, this.tenant);
    if (!cols) return;
    const fh = await fsp.open(this.file, 'r').catch(() => undefined);
    if (!fh) return;
    try {
      const st = await fh.stat();
      if (st.size < cols.offset) return;
      const head = Buffer.alloc(Math.min(st.size, 512));
      await fh.read(head, 0, head.length, 0);
      const end = head.indexOf(10, 1);
      const hdr = decodeLine(head, 1, end < 0 ? head.length : end);
      if (hdr?.k !== 'hdr' || hdr.tenant !== this.tenant || !hdr.id || hdr.id !== cols.catalogId) return;
      const at = Buffer.alloc(1);
      if (cols.offset < st.size) {
        await fh.read(at, 0, 1, cols.offset);
        if (at[0] !== 10) return;
      }
      await this.importColumns(cols);
      this.fileId = `${st.dev}:${st.ino}`;
      this.catalogId = hdr.id;
      this.headerOk = true;
      this.checkpointOffset = cols.offset;
    } finally {
      await fh.close();
    }
  }

  /** Writes a new checkpoint in the background when the catalog grew well past the last one. */
  checkpointIfBehind(): void {
    if (this.checkpointing || !this.headerOk || !this.catalogId || this.readOffset - this.checkpointOffset < Catalog.checkpointLagBytes) return;
    this.checkpointing = true;
    this.inBackground(async () => {
      try {
        await this.sync();
        const cols = await this.exportColumns();
        await writeCheckpoint(this.checkpointFile, cols);
        this.checkpointOffset = cols.offset;
      } finally {
        this.checkpointing = false;
      }
    });
  }

  /** The index as columns, built in slices (the extension host keeps answering meanwhile). */
  private async exportColumns(): Promise<CatalogColumns> {
    const offset = this.readOffset;
    const table: string[] = [];
    const tableIndex = new Map<string, number>();
    const t = (s: string): number => {
      let i = tableIndex.get(s);
      if (i === undefined) { i = table.length; table.push(s); tableIndex.set(s, i); }
      return i;
    };
    const runs = this.runsOldestFirst().filter((r) => !r.dead);
    const runIndex = new Map<RunRow, number>();
    const runText = { id: [] as string[], s: [] as string[], l: [] as (string | null)[], f: [] as (string | null)[], st: [] as (string | null)[] };
    const runNum = new Float64Array(runs.length * RUN_NUMBERS);
    const runSource: Record<string, unknown> = {};
    const runProblems: Record<string, readonly LogProblem[]> = {};
    for (let i = 0; i < runs.length; i++) {
      const r = runs[i]!;
      if (i % 20_000 === 19_999) await yieldToLoop();
      runIndex.set(r, i);
      runText.id.push(r.id); runText.s.push(r.startedAt); runText.l.push(r.label ?? null); runText.f.push(r.finishedAt ?? null); runText.st.push(r.status ?? null);
      runNum.set([r.startedMs, r.z, r.m, r.blobBytes, r.callCount, t(r.profileHash), (r.pinned ? 1 : 0) | (r.ok ? 2 : 0) | (r.tornTail ? 4 : 0)], i * RUN_NUMBERS);
      if (r.source !== undefined) runSource[i] = r.source;
      if (r.problems.length) runProblems[i] = r.problems;
    }
    const calls = this.callsOldestFirst().filter((c) => !c.dead && runIndex.has(c.run));
    const callId: string[] = [];
    const callNum = new Float64Array(calls.length * CALL_NUMBERS);
    const callLog = new Float64Array(calls.length * 2);
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]!;
      if (i % 20_000 === 19_999) await yieldToLoop();
      callId.push(c.id);
      callNum.set([
        runIndex.get(c.run)!, c.startedMs, t(c.tool), t(c.status), t(c.slots), c.bytes, c.blob, c.catOff, c.catLen, c.sub,
        (c.finished ? 1 : 0) | (c.hasResult ? 2 : 0) | (c.ambiguous ? 4 : 0), 0,
      ], i * CALL_NUMBERS);
      callLog[i * 2] = c.logOff;
      callLog[i * 2 + 1] = c.logLen;
    }
    const { keys: hashKeys, order } = await sortedHashes(calls);
    const hashCalls = Uint32Array.from(order);
    return { hashKeys, hashCalls, catalogId: this.catalogId, tenant: this.tenant, offset, built: this.built, table, runText, runNum, runSource, runProblems, callId, callNum, callLog };
  }

  /** Rebuilds the rows from columns, in slices (nothing else uses this catalog until `open` returns). */
  private async importColumns(cols: CatalogColumns): Promise<void> {
    const { table, runText, runNum, callNum, callLog } = cols;
    const rows: RunRow[] = new Array<RunRow>(runText.id.length);
    for (let i = 0; i < rows.length; i++) {
      if (i % 20_000 === 19_999) await yieldToLoop();
      const r = new RunRow(runText.id[i]!, ++this.seq);
      const n = i * RUN_NUMBERS;
      r.startedAt = runText.s[i]!;
      r.label = runText.l[i] ?? undefined;
      r.finishedAt = runText.f[i] ?? undefined;
      r.status = (runText.st[i] ?? undefined) as RunFinishStatus | undefined;
      r.startedMs = runNum[n]!; r.z = runNum[n + 1]!; r.m = runNum[n + 2]!; r.blobBytes = runNum[n + 3]!; r.callCount = runNum[n + 4]!;
      r.profileHash = table[runNum[n + 5]!]!;
      const flags = runNum[n + 6]!;
      r.pinned = (flags & 1) !== 0; r.ok = (flags & 2) !== 0; r.tornTail = (flags & 4) !== 0;
      r.source = cols.runSource[i];
      r.problems = cols.runProblems[i] ?? NO_PROBLEMS;
      rows[i] = r;
      this.runs.set(r.id, r);
    }
    this.runOrder = rows;
    const calls: CallRow[] = new Array<CallRow>(cols.callId.length);
    for (let i = 0; i < calls.length; i++) {
      if (i % 20_000 === 19_999) await yieldToLoop();
      const n = i * CALL_NUMBERS;
      const run = rows[callNum[n]!]!;
      const c = new CallRow(run, cols.callId[i]!, ++this.seq);
      c.startedMs = callNum[n + 1]!; c.tool = this.intern(table[callNum[n + 2]!]!); c.status = table[callNum[n + 3]!]!; c.slots = this.intern(table[callNum[n + 4]!]!);
      c.bytes = callNum[n + 5]!; c.blob = callNum[n + 6]!; c.catOff = callNum[n + 7]!; c.catLen = callNum[n + 8]!; c.sub = callNum[n + 9]!;
      const flags = callNum[n + 10]!;
      c.finished = (flags & 1) !== 0; c.hasResult = (flags & 2) !== 0; c.ambiguous = (flags & 4) !== 0;
      c.logOff = callLog[i * 2]!; c.logLen = callLog[i * 2 + 1]!;
      run.addCall(c);
      calls[i] = c;
    }
    this.callOrder = calls;
    this.packedKeys = cols.hashKeys;
    this.packedRows = Array.from(cols.hashCalls, (i) => calls[i]!);
    this.runsSorted = this.callsSorted = true;
    this.readOffset = cols.offset;
    this.built = cols.built;
  }

  // ---- what queries read ---------------------------------------------------------------

  /** The run's row (undefined when unknown or deleted). */
  run(runId: string): RunRow | undefined {
    return this.runs.get(runId);
  }

  /** True when a run id ends with this token (a new run's token must be new: call ids derive from it). */
  hasRunToken(token: string): boolean {
    return this.runsWithToken(token).length > 0;
  }

  /** The runs whose id ends with this token (a call id starts with its run's token). */
  runsWithToken(token: string): string[] {
    const suffix = `-${token}`;
    const out: string[] = [];
    for (const id of this.runs.keys()) if (id.endsWith(suffix)) out.push(id);
    return out;
  }

  /** Every listed run, oldest first. */
  runsOldestFirst(): readonly RunRow[] {
    if (!this.runsSorted) { this.runOrder = this.runOrder.filter((r) => !r.dead).sort(compareRuns); this.deadRuns = 0; this.runsSorted = true; }
    return this.runOrder;
  }

  /** Every call, oldest first (dead ones included: callers skip `dead`). */
  callsOldestFirst(): readonly CallRow[] {
    if (!this.callsSorted) { this.callOrder = this.callOrder.filter((c) => !c.dead).sort(compareCalls); this.deadCalls = 0; this.callsSorted = true; }
    return this.callOrder;
  }

  /** Finished calls whose handles include `handle` (candidates: the caller reads each record). */
  candidates(handle: string): CallRow[] {
    const key = crc32(handle);
    const cur = this.byHash.get(key);
    const list = new Set(cur === undefined ? [] : Array.isArray(cur) ? cur : [cur]);
    const keys = this.packedKeys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (keys[mid]! < key) lo = mid + 1; else hi = mid; }
    for (let i = lo; i < keys.length && keys[i] === key; i++) list.add(this.packedRows[i]!);
    return [...list].filter((c) => !c.dead && c.finished && c.run.ok && c.handles().includes(handle));
  }

  /** Reads the catalog lines of these calls back (one open), keyed by call row. */
  async entriesOf(rows: readonly CallRow[]): Promise<Map<CallRow, CallEntry | CallStartEntry>> {
    const out = new Map<CallRow, CallEntry | CallStartEntry>();
    if (rows.length === 0) return out;
    const fh = await fsp.open(this.file, 'r');
    try {
      const lines = new Map<number, CatalogEntry | undefined>();
      for (const c of rows) {
        let e = lines.get(c.catOff);
        if (!lines.has(c.catOff)) {
          const buf = Buffer.allocUnsafe(c.catLen);
          const { bytesRead } = await fh.read(buf, 0, c.catLen, c.catOff);
          e = decodeLine(buf, 0, bytesRead);
          lines.set(c.catOff, e);
        }
        const entry = e?.k === 'snap' ? e.e[c.sub] : e;
        if (entry && (entry.k === 'cf' || entry.k === 'cs') && entry.c === c.id) out.set(c, entry);
      }
    } finally {
      await fh.close();
    }
    return out;
  }

  /** Sum of every listed run's log and blob bytes. */
  totalBytes(): number {
    return this.totals().bytes;
  }

  /** Listed runs and the bytes they keep, from memory: no log is read or stat'ed. */
  totals(): { runs: number; bytes: number } {
    // The catalog itself counts too: retention budgets every byte under the storage folder.
    let bytes = this.readOffset;
    let runs = 0;
    for (const r of this.runs.values()) if (r.ok && !r.dead) { runs++; bytes += r.z + r.blobBytes; }
    return { runs, bytes };
  }
}

function compareRuns(a: RunRow, b: RunRow): number {
  return a.startedMs - b.startedMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function compareCalls(a: CallRow, b: CallRow): number {
  return a.startedMs - b.startedMs || a.seq - b.seq;
}

/**
 * The handle hashes of these calls' handles, sorted, with the index (in `calls`) of the
 * call each belongs to. Key and index share one float (32 + 21 bits, exact) so the sort
 * is the native numeric one, not a comparator over half a million entries.
 */
async function sortedHashes(calls: readonly CallRow[]): Promise<{ keys: Uint32Array; order: number[] }> {
  const keys: number[] = [];
  const owners: number[] = [];
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    if (c.finished) for (const h of c.handles()) { keys.push(crc32(h)); owners.push(i); }
    if (i % 20_000 === 19_999) await yieldToLoop();
  }
  let idx: number[];
  if (keys.length < 2 ** 21) {
    const packed = Float64Array.from(keys, (k, i) => k * 2 ** 21 + i).sort();
    idx = Array.from(packed, (v) => v % 2 ** 21);
  } else {
    idx = Array.from(keys.keys()).sort((a, b) => keys[a]! - keys[b]!);
  }
  return { keys: Uint32Array.from(idx, (i) => keys[i]!), order: idx.map((i) => owners[i]!) };
}
