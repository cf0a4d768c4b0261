/**
 * The per-tenant catalog (docs/architecture.md §6): runs, calls and minted handles in a
 * SQLite database beside the run logs, so that opening a store, resolving a handle and
 * listing a page never read every log. This class keeps the connection (a damaged,
 * deleted or replaced database is moved aside and rebuilt from the logs) and checks rows
 * against their logs; `writer.ts` writes the rows, `reads.ts` reads them back.
 *
 * Nothing here is O(runs) before the first answer: the checks against the logs folder, the
 * first build and `PRAGMA quick_check` run after the open, in the background, and only in
 * a long-lived process (`maintenance`); a short-lived command does none of them.
 */
import { promises as fsp, statSync } from 'node:fs';
import * as path from 'node:path';
import type { RunRecord } from '../log/records.js';
import { CATALOG_FILE, CatalogDatabase, isDamage, moveAside, quickCheck } from './database.js';
import { logIdBatches, logPathOf, snapshotFromLog } from './logsFolder.js';
import {
  handleCandidates,
  knownRunIds,
  runIdsAfter,
  runRow,
  runsById,
  runsNewestFirst,
  runsOldestFirst,
  runsWithToken,
  unfinishedRuns,
  usageGroups,
  usageTotal,
  type HandleRow,
  type RunRow,
  type UsageColumn,
  type UsageSums,
} from './reads.js';
import type { RunSnapshot } from './rows.js';
import { applyRecord, deleteRows, writeSnapshot, type LogStamp } from './writer.js';

export { CATALOG_FILE };

/** Logs stat'ed at once while verifying. */
const STAT_BATCH = 64;
/** Logs read at once while re-indexing or rebuilding. */
const READ_BATCH = 32;
/** Runs written per transaction while re-indexing or rebuilding (the write lock is held that long). */
const WRITE_BATCH = 128;
/** Names read per step of a folder listing (one batch of row lookups each). */
const LIST_BATCH = 1024;
/** How often a long-lived connection checks that its file is still the one at the path. */
const IDENTITY_CHECK_MS = 1000;
/** Files of the catalog this database replaced (an append-only file and its checkpoint), removed by maintenance. */
const OLD_CATALOG_FILES = ['.catalog-v1', '.catalog-v1.ckpt', '.catalog-v1.damaged'];

/** Lets the event loop run (pings, other requests) between batches of work. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Counters a test or the bench can read. */
export interface CatalogStats {
  readonly runs: number;
  readonly calls: number;
  readonly reindexed: number;
  /** True when this process moved a damaged or foreign database aside or created a missing one. */
  readonly rebuilt: boolean;
  /** Why a database was moved aside (the last time this process did). */
  readonly movedAside?: string;
  /** Times the logs folder was listed (start-up, repairs, misses of unknown runs while it changed). */
  readonly listings: number;
  /** True once every log of the folder was indexed (by any process). */
  readonly built: boolean;
}

/** The index of one tenant's logs folder. */
export class Catalog {
  /** How long after the open the start-up maintenance begins (tests set 0). */
  static startUpDelayMs = 1000;
  readonly file: string;
  private database: CatalogDatabase;
  private checkedIdentityAt = Date.now();
  private rebuilt = false;
  private movedAside: string | undefined;
  private reindexed = 0;
  private listings = 0;
  private background: Promise<void> | undefined;
  private reconciling: Promise<void> | undefined;
  private followUp: Promise<void> | undefined;
  /** True once this process compared the catalog with the logs folder (the start-up need not do it again). */
  private reconciled = false;

  private constructor(
    readonly dir: string,
    readonly tenant: string,
    private readonly maintenance: boolean,
  ) {
    this.file = path.join(dir, CATALOG_FILE);
    this.database = this.connect();
  }

  /** Opens the database in constant time; a long-lived process (`maintenance`) then checks it in the background. */
  static async open(dir: string, tenant: string, options: { maintenance?: boolean } = {}): Promise<Catalog> {
    const c = new Catalog(dir, tenant, options.maintenance ?? true);
    if (c.maintenance) {
      // After the first answers: a process's first request does not share the event loop with a listing of the folder.
      c.inBackground(() =>
        new Promise<void>((resolve) => setTimeout(resolve, Catalog.startUpDelayMs).unref()).then(() => c.startUp()),
      );
    }
    return c;
  }

  private connect(): CatalogDatabase {
    const existed = statSync(this.file, { throwIfNoEntry: false }) !== undefined;
    const { db, movedAside } = CatalogDatabase.open(this.file);
    if (movedAside !== undefined || !existed) {
      this.rebuilt = true;
      if (movedAside !== undefined) this.movedAside = movedAside;
    }
    return db;
  }

  /** Start-up maintenance: build or reconcile, then the integrity check, then the old catalog's files. */
  private async startUp(): Promise<void> {
    if (!this.reconciled) await this.reconcile();
    const problems = await quickCheck(this.file);
    if (problems.length > 0) {
      this.repair(`quick_check: ${problems.slice(0, 3).join('; ')}`);
      this.rebuilt = true;
    }
    for (const name of OLD_CATALOG_FILES)
      await fsp.rm(path.join(this.dir, name), { force: true }).catch(() => undefined);
  }

  /** Moves the damaged database aside, opens a new one and (long-lived) rebuilds it from the logs in the background. */
  private repair(why: string): void {
    this.database.close();
    if (!this.database.replaced()) moveAside(this.file);
    this.database = this.connect();
    this.movedAside = why;
    if (this.maintenance) this.inBackground(() => this.reconcile());
  }

  /** The connection, reopened (and rebuilt) when another process deleted or replaced its file. */
  private get db(): CatalogDatabase {
    const now = Date.now();
    if (now - this.checkedIdentityAt > IDENTITY_CHECK_MS) {
      this.checkedIdentityAt = now;
      if (this.database.replaced()) {
        this.database.close();
        this.database = this.connect();
        if (this.maintenance && !this.isBuilt()) this.inBackground(() => this.reconcile());
      }
    }
    return this.database;
  }

  /** Runs `fn` on the connection; on a damaged database, once more on a new one. */
  use<T>(fn: (db: CatalogDatabase) => T): T {
    try {
      return fn(this.db);
    } catch (e) {
      if (!isDamage(e)) throw e;
      this.repair((e as Error).message);
      return fn(this.database);
    }
  }

  /** Runs `task` after any background work already queued; errors are dropped (the next check repeats it). */
  private inBackground(task: () => Promise<void>): void {
    const prior = this.background ?? Promise.resolve();
    const next: Promise<void> = prior
      .then(task)
      .catch(() => undefined)
      .then(() => {
        if (this.background === next) this.background = undefined;
      });
    this.background = next;
  }

  /** Waits for background work (tests, and a miss that may be answered by it). */
  async settled(): Promise<void> {
    while (this.background) await this.background;
  }

  /** True while background work is queued or running. */
  busy(): boolean {
    return this.background !== undefined;
  }

  /** True once a build or a full check against the logs folder finished (by any process). */
  isBuilt(): boolean {
    return this.use((db) => db.get("SELECT value FROM meta WHERE key = 'built'") !== undefined);
  }

  stats(): CatalogStats {
    const t = this.use((db) => db.get('SELECT runs, calls FROM totals') as { runs: number; calls: number });
    return {
      runs: t.runs,
      calls: t.calls,
      reindexed: this.reindexed,
      rebuilt: this.rebuilt,
      listings: this.listings,
      built: this.isBuilt(),
      ...(this.movedAside !== undefined ? { movedAside: this.movedAside } : {}),
    };
  }

  /** Closes the connection (a store that is done: tests, a command line before it exits). */
  close(): void {
    this.database.close();
  }

  // ---- writing -------------------------------------------------------------------------

  /** Indexes one record this process just appended to a run log; a row that disagrees re-indexes the run. */
  async recorded(record: RunRecord, lineBytes: number, stamp: LogStamp): Promise<void> {
    const applied = this.use((db) => db.transaction(() => applyRecord(db, this.tenant, record, lineBytes, stamp)));
    if (!applied) await this.reindex(record.runId);
  }

  /** Records a deletion. */
  async deleted(runId: string): Promise<void> {
    this.use((db) => db.transaction(() => deleteRows(db, runId)));
  }

  // ---- checking against the logs --------------------------------------------------------

  /** The log file of a run. */
  logPath(runId: string): string {
    return logPathOf(this.dir, runId);
  }

  /** Re-indexes one run from its log, or removes its rows when the log is gone. */
  async reindex(runId: string): Promise<void> {
    await this.reindexMany([runId]);
  }

  /**
   * Re-indexes runs from their logs in id order: ids start with the start time, so the rows go in near the end of
   * every time-ordered index (the folder's hash order touched pages all over each one).
   */
  async reindexMany(runIds: readonly string[]): Promise<void> {
    const ids = [...runIds].sort();
    for (let i = 0; i < ids.length; i += WRITE_BATCH) {
      const batch = ids.slice(i, i + WRITE_BATCH);
      const snaps: (RunSnapshot | undefined)[] = [];
      for (let k = 0; k < batch.length; k += READ_BATCH)
        snaps.push(
          ...(await Promise.all(
            batch.slice(k, k + READ_BATCH).map((id) => snapshotFromLog(this.dir, this.tenant, id)),
          )),
        );
      this.indexSnapshots(
        snaps.filter((x): x is RunSnapshot => x !== undefined),
        batch.filter((_, k) => !snaps[k]),
      );
      if (i + WRITE_BATCH < ids.length) await yieldToLoop();
    }
  }

  /** Writes runs' rows as their logs give them and removes those whose logs are gone; how many were written. */
  indexSnapshots(snaps: readonly RunSnapshot[], gone: readonly string[] = []): number {
    const written = this.use((db) =>
      db.transaction(() => {
        let n = 0;
        for (const snap of snaps) if (writeSnapshot(db, snap)) n++;
        for (const id of gone) deleteRows(db, id);
        return n;
      }),
    );
    this.reindexed += written;
    return written;
  }

  /** Compares a run's row with its log; re-indexes when they differ. True when it did. */
  async verifyRun(runId: string): Promise<boolean> {
    return this.verifyRuns([runId]);
  }

  /** Checks runs against their logs (size and mtime) and re-indexes the stale ones. True when any was. */
  async verifyRuns(runIds: Iterable<string>): Promise<boolean> {
    const ids = [...new Set(runIds)];
    let changed = false;
    for (let i = 0; i < ids.length; i += STAT_BATCH) {
      const batch = ids.slice(i, i + STAT_BATCH);
      const stats = await Promise.all(batch.map((id) => fsp.stat(this.logPath(id)).catch(() => undefined)));
      const stale = this.use((db) =>
        batch.filter((id, k) => {
          const st = stats[k];
          const row = db.get('SELECT log_size, log_mtime FROM runs WHERE run_id = ?', id) as
            { log_size: number; log_mtime: number } | undefined;
          if (!st?.isFile()) return row !== undefined;
          return !row || row.log_size !== st.size || row.log_mtime !== st.mtimeMs;
        }),
      );
      if (stale.length) {
        changed = true;
        await this.reindexMany(stale);
      }
      if (i + STAT_BATCH < ids.length) await yieldToLoop();
    }
    return changed;
  }

  /** Every run against its log (`listRuns`): the folder, then one stat per run. */
  async verifyAll(): Promise<void> {
    await this.reconcile();
    for (let after = ''; ;) {
      const ids = this.use((db) => runIdsAfter(db, after, 1024));
      if (ids.length === 0) return;
      await this.verifyRuns(ids);
      after = ids[ids.length - 1]!;
    }
  }

  /**
   * Waits for a build in progress, or builds now. Never waits for the start-up's turn: that waits on an unref'd
   * timer, and a script with nothing else pending would exit before its answer.
   */
  async ensureBuilt(): Promise<void> {
    if (this.isBuilt()) return;
    if (this.reconciling) await this.reconciling.catch(() => undefined);
    if (!this.isBuilt()) await this.reconcile();
  }

  /**
   * Compares the catalog's runs with the logs folder: a log it lacks is indexed, a run whose log is gone is removed,
   * every unfinished run is checked (its writer may have stopped between log and catalog); then it is marked built.
   */
  reconcile(): Promise<void> {
    // One at a time. A call made while one runs gets a listing of its own after it (logs written since the running
    // one listed the folder must be seen); calls made meanwhile share that one follow-up.
    if (this.reconciling) {
      this.followUp ??= this.reconciling
        .catch(() => undefined)
        .then(() => {
          this.followUp = undefined;
          return this.reconcile();
        });
      return this.followUp;
    }
    this.reconciling = this.reconcileNow().finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  private async reconcileNow(): Promise<void> {
    this.listings++;
    const onDisk = new Set<string>();
    const lacking: string[] = [];
    for await (const batch of logIdBatches(this.dir, LIST_BATCH)) {
      for (const id of batch) onDisk.add(id);
      const known = this.use((db) => knownRunIds(db, batch));
      for (const id of batch) if (!known.has(id)) lacking.push(id);
      await yieldToLoop();
    }
    // Indexed after the listing, all in id order (reindexMany): the folder lists in hash order.
    await this.reindexMany(lacking);
    // Rows whose log is gone, a page of ids at a time. A row the listing did not see may be a run another
    // process started since the listing began: only a row whose log is missing now is removed.
    for (let after = ''; ;) {
      const ids = this.use((db) => runIdsAfter(db, after, 2048));
      if (ids.length === 0) break;
      const unseen = ids.filter((id) => !onDisk.has(id));
      const exists = await Promise.all(
        unseen.map((id) =>
          fsp.stat(this.logPath(id)).then(
            () => true,
            () => false,
          ),
        ),
      );
      const gone = unseen.filter((_, k) => !exists[k]);
      if (gone.length)
        this.use((db) =>
          db.transaction(() => {
            for (const id of gone) deleteRows(db, id);
          }),
        );
      after = ids[ids.length - 1]!;
      await yieldToLoop();
    }
    await this.verifyUnfinished();
    this.use((db) =>
      db.run(
        "INSERT INTO meta (key, value) VALUES ('built', ?) ON CONFLICT (key) DO NOTHING",
        new Date().toISOString(),
      ),
    );
    this.reconciled = true;
  }

  /** Checks the unfinished runs against their logs and re-indexes the stale ones. True when any was. */
  async verifyUnfinished(): Promise<boolean> {
    return this.verifyRuns(
      this.use((db) =>
        db.all('SELECT run_id FROM runs INDEXED BY runs_open WHERE status IS NULL').map((r) => r.run_id as string),
      ),
    );
  }

  // ---- what queries read ---------------------------------------------------------------

  /** The run's row (undefined when unknown). */
  run(runId: string): RunRow | undefined {
    return this.use((db) => runRow(db, runId));
  }

  /** Rows of these runs (the known ones, in no particular order). */
  runsById(runIds: readonly string[]): RunRow[] {
    return this.use((db) => runsById(db, runIds));
  }

  /** True when a run id ends with this token (a new run's token must be new: call ids derive from it). */
  hasRunToken(token: string): boolean {
    return this.use((db) => db.get('SELECT 1 AS x FROM runs WHERE token = ? LIMIT 1', token)) !== undefined;
  }

  /** The runs whose id ends with this token (a call id starts with its run's token). */
  runsWithToken(token: string): string[] {
    return this.use((db) => runsWithToken(db, token));
  }

  /** Listed runs oldest first after `after` (start time and id), at most `limit`: retention's walk. */
  runsOldestFirst(after: { ms: number; id: string } | undefined, limit: number): RunRow[] {
    return this.use((db) => runsOldestFirst(db, after, limit));
  }

  /** Listed runs newest first, a page (`listRuns`). */
  runsNewestFirst(offset: number, limit: number): RunRow[] {
    return this.use((db) => runsNewestFirst(db, offset, limit));
  }

  /** Listed runs with no finish record (the start-up check of dead writers reads only their logs). */
  unfinishedRuns(): RunRow[] {
    return this.use((db) => unfinishedRuns(db));
  }

  /** Finished calls of listed runs that minted `handle` (candidates: the caller reads each record back). */
  candidates(handle: string): HandleRow[] {
    return this.use((db) => handleCandidates(db, handle));
  }

  /** Sums of the savings rollup over hours `[from, to)` (since the epoch, UTC), in all or grouped by one column. */
  usageSums(range: { from: number; to: number }): UsageSums;
  usageSums(range: { from: number; to: number }, by: UsageColumn): { key: string; sums: UsageSums }[];
  usageSums(range: { from: number; to: number }, by?: UsageColumn): UsageSums | { key: string; sums: UsageSums }[] {
    return this.use((db) => (by === undefined ? usageTotal(db, range) : usageGroups(db, range, by)));
  }

  /** Listed runs and the bytes they keep (logs, blobs, and the catalog's own files): no log is read or stat'ed. */
  totals(): { runs: number; bytes: number; calls: number } {
    const t = this.use(
      (db) => db.get('SELECT runs, bytes, calls FROM totals') as { runs: number; bytes: number; calls: number },
    );
    // The database counts toward retention's budget; its WAL does not: it is transient, and counting it made a
    // budget's answer depend on when the last checkpoint ran.
    const own = statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    return { runs: t.runs, bytes: t.bytes + own, calls: t.calls };
  }
}
