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
 * Memory: the rows are columns (`catalogIndex.ts`, docs/architecture.md §6), no object
 * per run or per call, no parsed records, previews or arguments; a call's listing fields
 * are read back from its catalog line on demand. Every loop over all rows runs in slices.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { isSafeSegment } from '../blobs/blobKey.js';
import {
  CATALOG_FILE, decodeLine, encodeLine, entryOf, snapOf,
  type CallEntry, type CallStartEntry, type CatalogEntry, type LogStamp, 
} from './catalogFormat.js';
import { readCheckpoint, writeCheckpoint } from './catalogCheckpoint.js';
import { CallRow, CatalogIndex, RunRow, type RowList } from './catalogIndex.js';
import { Slicer, yieldToLoop } from './slices.js';
import { parseRunLog } from './runLog.js';
import type { RunRecord } from './types.js';

/** Bytes read per slice while loading: a few milliseconds of parsing between yields. */
const READ_CHUNK = 128 * 1024;
/** Catalog bytes appended after the checkpoint before a process writes a new one. */
const CHECKPOINT_LAG_BYTES = 4 * 1024 * 1024;
/** Logs stat'ed at once while verifying. */
const STAT_BATCH = 64;

export { CallRow, RunRow, Slicer, type RowList };

/** Counters a test or the bench can read. */
export interface CatalogStats {
  readonly runs: number;
  readonly calls: number;
  readonly fileBytes: number;
  readonly damagedLines: number;
  readonly reindexed: number;
  readonly rebuilt: boolean;
  /** Times the logs folder was listed (start-up, repairs, misses of unknown runs while it changed). */
  readonly listings: number;
}

/** The index of one tenant's logs folder. */
export class Catalog {
  /** Catalog bytes appended after the checkpoint before a process writes a new one (tests lower it). */
  static checkpointLagBytes = CHECKPOINT_LAG_BYTES;
  readonly file: string;
  /** The rows, as columns (catalogIndex.ts). */
  private x = new CatalogIndex();
  private readOffset = 0;
  private fileId = '';
  /** The header's random id (a checkpoint names the catalog it was made from). */
  private catalogId = '';
  /** Catalog bytes the checkpoint on disk covered when this process last read or wrote it. */
  private checkpointOffset = 0;
  private checkpointing = false;
  /** The logs folder's mtime and inode at the last listing. */
  private listedStamp = '';
  private listedAt = 0;
  private listings = 0;
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
   * damaged), then checks it against the logs folder in the background (unless
   * `reconcile` is false: a short-lived process, `RunStoreOptions.maintenance`).
   */
  static async open(dir: string, tenant: string, options: { reconcile?: boolean } = {}): Promise<Catalog> {
    const c = new Catalog(dir, tenant);
    await c.loadCheckpoint();
    await c.sync();
    if (!c.headerOk) await c.startOver();
    if (!c.built) await c.reconcile(true);
    else if (options.reconcile ?? true) c.inBackground(() => c.reconcile(false));
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
      runs: this.x.liveRuns, calls: this.x.liveCalls, fileBytes: this.readOffset,
      damagedLines: this.damagedLines, reindexed: this.reindexed, rebuilt: this.rebuilt, listings: this.listings,
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
    this.x = new CatalogIndex();
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
      const slicer = new Slicer();
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
          // Slices by time, not bytes: cold code and a loaded machine make a chunk's cost unpredictable.
          if (slicer.due()) {
            this.readOffset = base + i;
            await slicer.pause();
          }
        }
        this.readOffset = base + i;
        if (this.x.shouldPackHandles) await this.x.packHandles();
        if (!atEnd) await slicer.pause();
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
      case 'del': this.x.removeRun(e.r); return;
      case 'snap': this.x.applySnap(e, off, len, this.onOrphan); return;
      default: {
        if (typeof (e as { r?: unknown }).r !== 'string') return;
        const s = this.x.applyRecord(e, off, len, -1, undefined, this.onOrphan);
        const { z, m } = e as LogStamp;
        if (s >= 0 && typeof z === 'number') this.x.stamp(s, z, m);
      }
    }
  }

  /** An entry of a run this catalog never saw start (its line was lost): the background check re-indexes it. */
  private readonly onOrphan = (runId: string): void => {
    if (this.orphans.has(runId)) return;
    this.orphans.add(runId);
    this.inBackground(async () => { this.orphans.delete(runId); await this.verifyRun(runId); });
  };

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
    const row = this.run(record.runId);
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
    if (!fh) return this.x.findRun(runId) >= 0 ? { k: 'del', r: runId } : undefined;
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
    const s = this.x.findRun(runId);
    if (!st?.isFile()) return s >= 0;
    return s < 0 || this.x.runZ(s) !== st.size || this.x.runM(s) !== st.mtimeMs;
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
    await this.verifyRuns(this.liveRunIds());
  }

  /** Ids of live runs (by slot). */
  private liveRunIds(): string[] {
    const out: string[] = [];
    for (let s = 0; s < this.x.runCount; s++) if (!this.x.runDead(s)) out.push(this.x.runId[s]!);
    return out;
  }

  /**
   * Reconciles with the logs folder only when it may have changed since the last time
   * (its mtime moved, or is too recent to tell): a handle miss pays a stat, not a listing.
   */
  async reconcileIfFolderChanged(): Promise<void> {
    const st = await fsp.stat(this.dir).catch(() => undefined);
    const stamp = st ? `${st.mtimeMs}:${st.ino}` : '';
    // Unchanged, and its mtime well before that listing began (a change within the filesystem's timestamp
    // granularity of an earlier one might not have moved it): nothing was added or removed since.
    if (st && stamp === this.listedStamp && this.listedAt - st.mtimeMs > 2000) return;
    await this.reconcile(false);
  }

  /**
   * Compares the catalog's runs with the logs folder: a log it lacks is indexed, a run
   * whose log is gone is deleted, every unfinished run is checked (its writer may have
   * stopped between the log and the catalog). `finishBuild` appends `built` at the end.
   */
  async reconcile(finishBuild: boolean): Promise<void> {
    await this.sync();
    const listedAt = Date.now();
    const st = await fsp.stat(this.dir).catch(() => undefined);
    // Read in batches (a listing of 100,000 names at once stalls the loop while its array is built).
    const onDisk = new Set<string>();
    this.listings++;
    const folder = await fsp.opendir(this.dir, { bufferSize: 1024 }).catch(() => undefined);
    if (folder) {
      let n = 0;
      for await (const d of folder) {
        const name = d.name;
        if (name.endsWith('.jsonl') && isSafeSegment(name.slice(0, -6))) onDisk.add(name.slice(0, -6));
        if (++n % 4096 === 0) await yieldToLoop();
      }
    }
    const lacking: string[] = [];
    const slicer = new Slicer();
    for (const id of onDisk) {
      if (this.x.findRun(id) < 0) lacking.push(id);
      if (slicer.due()) await slicer.pause();
    }
    await this.reindexMany(lacking);
    const gone: string[] = [];
    const open: string[] = [];
    for (let s = 0; s < this.x.runCount; s++) {
      if (this.x.runDead(s)) continue;
      const id = this.x.runId[s]!;
      if (!onDisk.has(id)) gone.push(id);
      else if (!this.x.runFinished(s)) open.push(id);
      if (slicer.due()) await slicer.pause();
    }
    if (gone.length) await this.append(gone.map((r) => ({ k: 'del', r }) as const));
    if (st) { this.listedStamp = `${st.mtimeMs}:${st.ino}`; this.listedAt = listedAt; }
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
      await this.x.importColumns(cols);
      this.readOffset = cols.offset;
      this.built = cols.built;
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
        const cols = await this.x.exportColumns({ catalogId: this.catalogId, tenant: this.tenant, offset: this.readOffset, built: this.built });
        await writeCheckpoint(this.checkpointFile, cols);
        this.checkpointOffset = cols.offset;
      } finally {
        this.checkpointing = false;
      }
    });
  }

  // ---- what queries read ---------------------------------------------------------------

  /** The columns, for queries that read them by slot (catalogQuery.ts). */
  get index(): CatalogIndex {
    return this.x;
  }

  /** The run's row (undefined when unknown or deleted). */
  run(runId: string): RunRow | undefined {
    const s = this.x.findRun(runId);
    return s < 0 ? undefined : new RunRow(this.x, s);
  }

  /** True when a run id ends with this token (a new run's token must be new: call ids derive from it). */
  hasRunToken(token: string): boolean {
    return this.x.runsWithToken(token).length > 0;
  }

  /** The runs whose id ends with this token (a call id starts with its run's token). */
  runsWithToken(token: string): string[] {
    return this.x.runsWithToken(token).map((s) => this.x.runId[s]!);
  }

  /** Runs oldest first (dead ones included: callers skip `dead`). */
  runsOldestFirst(): RowList<RunRow> {
    return this.x.runsOldestFirst();
  }

  /** Every call, oldest first (dead ones included: callers skip `dead`). */
  callsOldestFirst(): RowList<CallRow> {
    return this.x.callsOldestFirst();
  }

  /** Finished calls whose handles include `handle` (candidates: the caller reads each record). */
  candidates(handle: string): CallRow[] {
    return this.x.candidates(handle).map((c) => new CallRow(this.x, c));
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
    const t = this.x.totals();
    // The catalog itself counts too: retention budgets every byte under the storage folder.
    return { runs: t.runs, bytes: t.bytes + this.readOffset };
  }
}
