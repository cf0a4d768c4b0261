/**
 * The per-tenant catalog (docs/architecture.md §6): a SQLite index beside the run logs, so opening a store, resolving
 * a handle and listing a page never read every log. A damaged or replaced database is moved aside and rebuilt from
 * the logs; nothing is O(runs) before the first answer, and a short-lived process does no maintenance.
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

const STAT_BATCH = 64;
const READ_BATCH = 32;
/** The write lock is held that long. */
const WRITE_BATCH = 128;
const LIST_BATCH = 1024;
const IDENTITY_CHECK_MS = 1000;
/** Files of the catalog this database replaced, removed by maintenance. */
const OLD_CATALOG_FILES = ['.catalog-v1', '.catalog-v1.ckpt', '.catalog-v1.damaged'];

/** Lets pings and other requests run between batches of work. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface CatalogStats {
  readonly runs: number;
  readonly calls: number;
  readonly reindexed: number;
  readonly rebuilt: boolean;
  readonly movedAside?: string;
  readonly listings: number;
  /** By any process. */
  readonly built: boolean;
}

export class Catalog {
  /** Tests set 0. */
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
  private reconciled = false;
  /** Stops its background work: reopening or moving aside a file another catalog now uses would break that one. */
  private closed = false;

  private constructor(
    readonly dir: string,
    readonly tenant: string,
    private readonly maintenance: boolean,
  ) {
    this.file = path.join(dir, CATALOG_FILE);
    this.database = this.connect();
  }

  static async open(dir: string, tenant: string, options: { maintenance?: boolean } = {}): Promise<Catalog> {
    const c = new Catalog(dir, tenant, options.maintenance ?? true);
    if (c.maintenance) {
      // After the first answers: a process's first request does not share the event loop with a listing of the
      // folder.
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

  private async startUp(): Promise<void> {
    if (!this.reconciled) await this.reconcile();
    if (this.closed) return;
    const problems = await quickCheck(this.file);
    if (this.closed) return;
    if (problems.length > 0) {
      this.repair(`quick_check: ${problems.slice(0, 3).join('; ')}`);
      this.rebuilt = true;
    }
    for (const name of OLD_CATALOG_FILES)
      await fsp.rm(path.join(this.dir, name), { force: true }).catch(() => undefined);
  }

  private repair(why: string): void {
    this.database.close();
    if (!this.database.replaced()) moveAside(this.file);
    this.database = this.connect();
    this.movedAside = why;
    if (this.maintenance) this.inBackground(() => this.reconcile());
  }

  /** Reopened (and rebuilt) when another process deleted or replaced its file. */
  private get db(): CatalogDatabase {
    const now = Date.now();
    if (!this.closed && now - this.checkedIdentityAt > IDENTITY_CHECK_MS) {
      this.checkedIdentityAt = now;
      if (this.database.replaced()) {
        this.database.close();
        this.database = this.connect();
        if (this.maintenance && !this.isBuilt()) this.inBackground(() => this.reconcile());
      }
    }
    return this.database;
  }

  /** On a damaged database, once more on a new one. */
  use<T>(fn: (db: CatalogDatabase) => T): T {
    try {
      return fn(this.db);
    } catch (e) {
      if (!isDamage(e) || this.closed) throw e;
      this.repair((e as Error).message);
      return fn(this.database);
    }
  }

  /** Errors are dropped: the next check repeats it. */
  private inBackground(task: () => Promise<void>): void {
    const prior = this.background ?? Promise.resolve();
    const next: Promise<void> = prior
      .then(() => (this.closed ? undefined : task()))
      .catch(() => undefined)
      .then(() => {
        if (this.background === next) this.background = undefined;
      });
    this.background = next;
  }

  async settled(): Promise<void> {
    while (this.background) await this.background;
  }

  busy(): boolean {
    return this.background !== undefined;
  }

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

  close(): void {
    this.closed = true;
    this.database.close();
  }

  // ---- writing -------------------------------------------------------------------------

  /** A row that disagrees re-indexes the run. */
  async recorded(record: RunRecord, lineBytes: number, stamp: LogStamp): Promise<void> {
    const applied = this.use((db) => db.transaction(() => applyRecord(db, this.tenant, record, lineBytes, stamp)));
    if (!applied) await this.reindex(record.runId);
  }

  async deleted(runId: string): Promise<void> {
    this.use((db) => db.transaction(() => deleteRows(db, runId)));
  }

  // ---- checking against the logs --------------------------------------------------------

  logPath(runId: string): string {
    return logPathOf(this.dir, runId);
  }

  async reindex(runId: string): Promise<void> {
    await this.reindexMany([runId]);
  }

  /** In id order: ids start with the start time, so rows go in near the end of every time-ordered index. */
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

  async verifyRun(runId: string): Promise<boolean> {
    return this.verifyRuns([runId]);
  }

  /** By size and mtime. */
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
   * Never waits for the start-up's turn: that waits on an unref'd timer, and a script with nothing else pending would
   * exit first.
   */
  async ensureBuilt(): Promise<void> {
    if (this.isBuilt()) return;
    if (this.reconciling) await this.reconciling.catch(() => undefined);
    if (!this.isBuilt()) await this.reconcile();
  }

  /** Every unfinished run is checked too: its writer may have stopped between log and catalog. */
  reconcile(): Promise<void> {
    // One at a time; calls made meanwhile share one follow-up listing, since logs written since the running one
    // listed must be seen.
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
    // In id order: the folder lists in hash order.
    await this.reindexMany(lacking);
    // A row the listing did not see may be a run started since: only a row whose log is missing now is removed.
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

  async verifyUnfinished(): Promise<boolean> {
    return this.verifyRuns(
      this.use((db) =>
        db.all('SELECT run_id FROM runs INDEXED BY runs_open WHERE status IS NULL').map((r) => r.run_id as string),
      ),
    );
  }

  // ---- what queries read ---------------------------------------------------------------

  run(runId: string): RunRow | undefined {
    return this.use((db) => runRow(db, runId));
  }

  /** In no particular order. */
  runsById(runIds: readonly string[]): RunRow[] {
    return this.use((db) => runsById(db, runIds));
  }

  /** A new run's token must be new: call ids derive from it. */
  hasRunToken(token: string): boolean {
    return this.use((db) => db.get('SELECT 1 AS x FROM runs WHERE token = ? LIMIT 1', token)) !== undefined;
  }

  runsWithToken(token: string): string[] {
    return this.use((db) => runsWithToken(db, token));
  }

  /** Retention's walk. */
  runsOldestFirst(after: { ms: number; id: string } | undefined, limit: number): RunRow[] {
    return this.use((db) => runsOldestFirst(db, after, limit));
  }

  runsNewestFirst(offset: number, limit: number): RunRow[] {
    return this.use((db) => runsNewestFirst(db, offset, limit));
  }

  /** The start-up check of dead writers reads only their logs. */
  unfinishedRuns(): RunRow[] {
    return this.use((db) => unfinishedRuns(db));
  }

  /** Candidates: the caller reads each record back. */
  candidates(handle: string): HandleRow[] {
    return this.use((db) => handleCandidates(db, handle));
  }

  /** Hours since the epoch, UTC. */
  usageSums(range: { from: number; to: number }): UsageSums;
  usageSums(range: { from: number; to: number }, by: UsageColumn): { key: string; sums: UsageSums }[];
  usageSums(range: { from: number; to: number }, by?: UsageColumn): UsageSums | { key: string; sums: UsageSums }[] {
    return this.use((db) => (by === undefined ? usageTotal(db, range) : usageGroups(db, range, by)));
  }

  /** No log is read or stat'ed. */
  totals(): { runs: number; bytes: number; calls: number } {
    const t = this.use(
      (db) => db.get('SELECT runs, bytes, calls FROM totals') as { runs: number; bytes: number; calls: number },
    );
    // The WAL does not count: it is transient, and counting it made a budget's answer depend on the last checkpoint.
    const own = statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    return { runs: t.runs, bytes: t.bytes + own, calls: t.calls };
  }
}
