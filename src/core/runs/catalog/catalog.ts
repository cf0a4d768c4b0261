/**
 * The per-tenant catalog (docs/architecture.md §6): runs, calls and minted handles in a
 * SQLite database beside the run logs (`database.ts`), so that opening a store, resolving
 * a handle and listing a page never read every log.
 *
 * Whoever records writes (the editor, MCP servers, the command line): each record this
 * process appends to a log is indexed in the same step, in one transaction that first
 * checks the run's row is exactly "the log minus the line just written" (else the run is
 * re-indexed from its log). The logs stay the source of truth: each run's row carries its
 * log's size and mtime, and a row is compared with its log before it is served (a
 * mismatch re-indexes that run). The database can be deleted or damaged: it is moved
 * aside, created anew and rebuilt from the logs in the background, in batches between
 * which the event loop runs.
 *
 * Nothing here is O(runs) before the first answer: opening is opening the database.
 * The checks against the logs folder (a log the catalog lacks, a run whose log is gone,
 * unfinished runs whose writer may have stopped between log and catalog), the first
 * build and `PRAGMA quick_check` run after the open, in the background, and only in a
 * long-lived process (`maintenance`); a short-lived command does none of them.
 */
import { promises as fsp, statSync } from 'node:fs';
import * as path from 'node:path';
import { isSafeSegment } from '../../blobs/blobKey.js';
import { parseRunLog } from '../log/runLog.js';
import type { LogProblem, RunFinishStatus, RunRecord } from '../log/records.js';
import { CATALOG_FILE, CatalogDatabase, isDamage, moveAside, quickCheck, USAGE_SUMS } from './database.js';
import {
  finishedCall,
  handlesOfListing,
  shownCall,
  snapshotOf,
  startedCall,
  startedRun,
  type CallListing,
  type CallValues,
  type RunSnapshot,
  type RunValues,
} from './rows.js';

export { CATALOG_FILE };

/** Logs stat'ed at once while verifying. */
const STAT_BATCH = 64;
/** Logs read at once while re-indexing or rebuilding. */
const READ_BATCH = 32;
/** Runs written per transaction while re-indexing or rebuilding (a few milliseconds of holding the write lock). */
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

/** A run's row as read back. */
export interface RunRow {
  readonly id: string;
  readonly ok: boolean;
  readonly startedAt: string;
  readonly startedMs: number;
  readonly finishedAt?: string;
  readonly status?: RunFinishStatus;
  readonly label?: string;
  readonly pinned: boolean;
  readonly source: unknown;
  readonly profileHash: string;
  readonly tornTail: boolean;
  readonly problems: readonly LogProblem[];
  /** The log's size and mtime when the row was written. */
  readonly z: number;
  readonly m: number;
  readonly blobBytes: number;
  readonly callCount: number;
  /** Finished calls whose outcome is failed (an error, or a command that exited non-zero or was stopped). */
  readonly failedCalls: number;
}

/** A finished call that minted a handle, as the handle lookup reads it. */
export interface HandleRow {
  readonly runId: string;
  readonly callId: string;
  readonly logOff: number;
  readonly logLen: number;
  readonly ambiguous: boolean;
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

/** Sums of the savings rollup (columns of `usage`, docs/contracts.md §2.14). */
export interface UsageSums {
  readonly outputs: number;
  readonly out_bytes: number;
  readonly kept_bytes: number;
  readonly lost: number;
  readonly lost_bytes: number;
  readonly whole: number;
  readonly shown: number;
  readonly shown_bytes: number;
  readonly reads: number;
  readonly read_bytes: number;
  readonly recalled: number;
  readonly saved: number;
}

/** What a rollup row can be grouped by. */
export type UsageColumn = 'hour' | 'agent' | 'tool' | 'command';

const USAGE_SELECT = USAGE_SUMS.map(([n]) => `coalesce(sum(${n}), 0) AS ${n}`).join(', ');

/** A row of `runs` as SQLite returns it (read with `RUN_READ`: its failed calls counted). */
type RunColumns = RunValues & { failed_calls?: number };

const NO_PROBLEMS: readonly LogProblem[] = Object.freeze([]);

/** A run's row from its columns. */
export function runRowOf(r: RunColumns): RunRow {
  return {
    id: r.run_id,
    ok: r.ok === 1,
    startedAt: r.started_at,
    startedMs: r.started_ms,
    ...(r.finished_at !== null ? { finishedAt: r.finished_at } : {}),
    ...(r.status !== null ? { status: r.status as RunFinishStatus } : {}),
    ...(r.label !== null ? { label: r.label } : {}),
    pinned: r.pinned === 1,
    source: r.source === null ? undefined : JSON.parse(r.source),
    profileHash: r.profile_hash,
    tornTail: r.torn === 1,
    problems: r.problems === null ? NO_PROBLEMS : (JSON.parse(r.problems) as LogProblem[]),
    z: r.log_size,
    m: r.log_mtime,
    blobBytes: r.blob_bytes,
    callCount: r.call_count,
    failedCalls: r.failed_calls ?? 0,
  };
}

const RUN_COLUMNS =
  'run_id, token, ok, started_ms, started_at, finished_at, status, label, pinned, source, source_kind, ' +
  'profile_hash, torn, problems, log_size, log_mtime, blob_bytes, call_count';
const CALL_COLUMNS =
  'run_id, call_id, n, run_started_ms, source_kind, tool, started_ms, outcome, ' +
  'bytes, blob_bytes, log_off, log_len, ambiguous, entry, ' +
  'agent, command, out_bytes, kept_bytes, lost_bytes, whole, shown_n, shown_bytes, reads, read_bytes';
const params = (cols: string): string =>
  cols
    .split(', ')
    .map((c) => `$${c}`)
    .join(', ');
/**
 * The columns read for a run: its own, and how many of its calls failed (counted over the
 * run's calls through the primary key, so a run that reads as completed can say it failed).
 */
export const RUN_READ =
  `${RUN_COLUMNS}, (SELECT COUNT(*) FROM calls fc ` +
  `WHERE fc.run_id = runs.run_id AND fc.outcome = 'failed') AS failed_calls`;
const INSERT_RUN = `INSERT INTO runs (${RUN_COLUMNS}) VALUES (${params(RUN_COLUMNS)})`;
const UPSERT_CALL = `INSERT INTO calls (${CALL_COLUMNS}) VALUES (${params(CALL_COLUMNS)})
  ON CONFLICT (run_id, call_id) DO UPDATE SET ${CALL_COLUMNS.split(', ')
    .slice(2)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

const INSERT_CALL_IF_NEW =
  `INSERT INTO calls (${CALL_COLUMNS}) VALUES (${params(CALL_COLUMNS)}) ` + `ON CONFLICT (run_id, call_id) DO NOTHING`;

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

  /**
   * Opens the tenant's database (creating it, or moving a damaged one aside: constant
   * time). A long-lived process (`maintenance`) then checks it against the logs folder in
   * the background, builds it from the logs when no build ever finished, and runs
   * `PRAGMA quick_check` in a worker.
   */
  static async open(dir: string, tenant: string, options: { maintenance?: boolean } = {}): Promise<Catalog> {
    const c = new Catalog(dir, tenant, options.maintenance ?? true);
    if (c.maintenance) {
      // After the first answers: a process's first request (an MCP initialize, a first tool call) does not share
      // the event loop and the two cores with a listing of 100,000 names and a read of every page.
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
    if (problems.length > 0) await this.repair(`quick_check: ${problems.slice(0, 3).join('; ')}`);
    for (const name of OLD_CATALOG_FILES)
      await fsp.rm(path.join(this.dir, name), { force: true }).catch(() => undefined);
  }

  /** Moves the damaged database aside, opens a new one and (long-lived) rebuilds it from the logs in the background. */
  private async repair(why: string): Promise<void> {
    this.database.close();
    if (!this.database.replaced()) moveAside(this.file);
    this.database = this.connect();
    this.rebuilt = true;
    this.movedAside = why;
    if (this.maintenance) this.inBackground(() => this.reconcile());
  }

  /**
   * The connection, checked (at most once a second) to still be the file at the path:
   * a database deleted or replaced by another process is opened again (and rebuilt).
   */
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

  /**
   * Runs `fn` on the connection; a damaged database (SQLITE_CORRUPT, SQLITE_NOTADB) is
   * moved aside and created anew, and `fn` runs once more on the new one.
   */
  use<T>(fn: (db: CatalogDatabase) => T): T {
    try {
      return fn(this.db);
    } catch (e) {
      if (!isDamage(e)) throw e;
      this.database.close();
      if (!this.database.replaced()) moveAside(this.file);
      this.database = this.connect();
      this.movedAside = (e as Error).message;
      if (this.maintenance) this.inBackground(() => this.reconcile());
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

  /**
   * Indexes one record this process just appended to a run log (`lineBytes` long, the log
   * now `stamp.z` bytes, mtime `stamp.m`), in one transaction. When the row is not exactly
   * the log minus this line (another writer, a repaired torn tail, a lost write, a
   * database rebuilt meanwhile), the run is re-indexed from its log instead.
   */
  async recorded(record: RunRecord, lineBytes: number, stamp: { z: number; m: number }): Promise<void> {
    const at = stamp.z - lineBytes;
    const applied = this.use((db) =>
      db.transaction(() => {
        const row = db.get(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = ?`, record.runId) as RunColumns | undefined;
        if (record.type === 'run_started') {
          if (at !== 0) return false;
          if (row) this.deleteRows(db, record.runId);
          db.runNamed(INSERT_RUN, { ...startedRun(record, this.tenant), log_size: stamp.z, log_mtime: stamp.m });
          return true;
        }
        if (!row || row.log_size !== at || row.ok !== 1 || row.problems !== null || row.torn === 1) return false;
        switch (record.type) {
          case 'run_pinned':
            db.run('UPDATE runs SET pinned = ? WHERE run_id = ?', record.pinned ? 1 : 0, record.runId);
            break;
          case 'run_finished':
            db.run(
              'UPDATE runs SET finished_at = ?, status = ? WHERE run_id = ?',
              record.finishedAt,
              record.status,
              record.runId,
            );
            break;
          case 'call_started':
            db.runNamed(INSERT_CALL_IF_NEW, { ...startedCall(row, record) });
            break;
          case 'call_finished': {
            const prior = db.get(
              'SELECT outcome, blob_bytes FROM calls WHERE run_id = ? AND call_id = ?',
              record.runId,
              record.callId,
            ) as { outcome: string; blob_bytes: number } | undefined;
            const next = finishedCall(row, record, at, lineBytes - 1);
            let blob = row.blob_bytes + next.blob_bytes;
            let count = row.call_count;
            if (prior && prior.outcome !== 'open') {
              next.ambiguous = 1;
              blob -= prior.blob_bytes;
            } else count++;
            this.writeCall(db, next);
            db.run('UPDATE runs SET blob_bytes = ?, call_count = ? WHERE run_id = ?', blob, count, record.runId);
            break;
          }
          case 'call_shown': {
            const call = db.get(
              `SELECT ${CALL_COLUMNS} FROM calls WHERE run_id = ? AND call_id = ?`,
              record.runId,
              record.callId,
            ) as CallValues | undefined;
            if (call && call.outcome !== 'open') {
              const next = shownCall(call, record);
              db.run(
                'UPDATE calls SET whole = ?, shown_n = ?, shown_bytes = ?, reads = ?, read_bytes = ? ' +
                  'WHERE run_id = ? AND call_id = ?',
                next.whole,
                next.shown_n,
                next.shown_bytes,
                next.reads,
                next.read_bytes,
                record.runId,
                record.callId,
              );
            }
            break;
          }
        }
        db.run('UPDATE runs SET log_size = ?, log_mtime = ? WHERE run_id = ?', stamp.z, stamp.m, record.runId);
        return true;
      }),
    );
    if (!applied) await this.reindex(record.runId);
  }

  /** A call's row and its handles (a finished call's handles replace any it had). */
  private writeCall(db: CatalogDatabase, call: CallValues): void {
    db.runNamed(UPSERT_CALL, { ...call });
    db.run('DELETE FROM handles WHERE run_id = ? AND call_id = ?', call.run_id, call.call_id);
    if (call.outcome === 'open') return;
    for (const h of handlesOfListing(JSON.parse(call.entry) as CallListing)) {
      db.run('INSERT OR IGNORE INTO handles (handle, run_id, call_id) VALUES (?, ?, ?)', h, call.run_id, call.call_id);
    }
  }

  private deleteRows(db: CatalogDatabase, runId: string): void {
    db.run('DELETE FROM handles WHERE run_id = ?', runId);
    db.run('DELETE FROM calls WHERE run_id = ?', runId);
    db.run('DELETE FROM runs WHERE run_id = ?', runId);
  }

  /** Records a deletion. */
  async deleted(runId: string): Promise<void> {
    this.use((db) => db.transaction(() => this.deleteRows(db, runId)));
  }

  /**
   * A run's rows replaced by what its log gives, unless the row already reflects a later
   * view of the log (another process re-indexed it after it grew: smaller and not newer).
   * A log rewritten shorter is newer (mtime), so its snapshot replaces the row.
   */
  private writeSnapshot(db: CatalogDatabase, snap: RunSnapshot): boolean {
    const prior = db.get('SELECT log_size, log_mtime FROM runs WHERE run_id = ?', snap.run.run_id) as
      { log_size: number; log_mtime: number } | undefined;
    if (prior && snap.run.log_size < prior.log_size && snap.run.log_mtime <= prior.log_mtime) return false;
    this.deleteRows(db, snap.run.run_id);
    db.runNamed(INSERT_RUN, { ...snap.run });
    for (const c of snap.calls) this.writeCall(db, c);
    return true;
  }

  // ---- checking against the logs --------------------------------------------------------

  /** The log file of a run. */
  logPath(runId: string): string {
    return path.join(this.dir, `${runId}.jsonl`);
  }

  /** Re-indexes one run from its log, or removes its rows when the log is gone. */
  async reindex(runId: string): Promise<void> {
    await this.reindexMany([runId]);
  }

  /**
   * Re-indexes runs from their logs: read 32 at once, written 128 a transaction, in id order (ids start with
   * the start time, so the rows go in near the end of every time-ordered index: a transaction of runs in the
   * folder's hash order touched pages all over each index, 10 ms a commit).
   */
  async reindexMany(runIds: readonly string[]): Promise<void> {
    const ids = [...runIds].sort();
    for (let i = 0; i < ids.length; i += WRITE_BATCH) {
      const batch = ids.slice(i, i + WRITE_BATCH);
      const snaps: (RunSnapshot | undefined)[] = [];
      for (let k = 0; k < batch.length; k += READ_BATCH)
        snaps.push(...(await Promise.all(batch.slice(k, k + READ_BATCH).map((id) => this.snapshotFromLog(id)))));
      this.indexSnapshots(
        snaps.filter((x): x is RunSnapshot => x !== undefined),
        batch.filter((_, k) => !snaps[k]),
      );
      if (i + WRITE_BATCH < ids.length) await yieldToLoop();
    }
  }

  /**
   * Writes runs' rows as their logs give them (`snapshotOf`) and removes the rows of runs
   * whose logs are gone, in one transaction. Returns how many runs were written.
   */
  indexSnapshots(snaps: readonly RunSnapshot[], gone: readonly string[] = []): number {
    const written = this.use((db) =>
      db.transaction(() => {
        let n = 0;
        for (const snap of snaps) if (this.writeSnapshot(db, snap)) n++;
        for (const id of gone) this.deleteRows(db, id);
        return n;
      }),
    );
    this.reindexed += written;
    return written;
  }

  /** A run's rows from its log, read whole with its stat from the same descriptor; undefined when the log is gone. */
  private async snapshotFromLog(runId: string): Promise<RunSnapshot | undefined> {
    const fh = await fsp.open(this.logPath(runId), 'r').catch(() => undefined);
    if (!fh) return undefined;
    try {
      const st = await fh.stat();
      if (!st.isFile()) return undefined;
      const buf = Buffer.allocUnsafe(st.size);
      let got = 0;
      while (got < st.size) {
        const { bytesRead } = await fh.read(buf, got, st.size - got, got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return snapshotOf(runId, this.tenant, parseRunLog(buf.subarray(0, got), runId), {
        size: got,
        mtimeMs: st.mtimeMs,
      });
    } finally {
      await fh.close();
    }
  }

  /** Compares a run's row with its log; re-indexes when they differ. True when it did. */
  async verifyRun(runId: string): Promise<boolean> {
    return this.verifyRuns([runId]);
  }

  /**
   * Checks runs against their logs (size and mtime) a batch at a time and re-indexes the stale ones. True when any was.
   */
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

  /**
   * Every run against its log (`listRuns`, the command line's `list`): the folder, then one stat per run, in batches.
   */
  async verifyAll(): Promise<void> {
    await this.reconcile();
    for (let after = ''; ;) {
      const ids = this.use((db) =>
        db
          .all('SELECT run_id FROM runs WHERE run_id > ? ORDER BY run_id LIMIT 1024', after)
          .map((r) => r.run_id as string),
      );
      if (ids.length === 0) return;
      await this.verifyRuns(ids);
      after = ids[ids.length - 1]!;
    }
  }

  /**
   * Waits for a build from the logs in progress, or (none running: a short-lived process, a
   * long-lived one whose start-up has not begun, or one whose build failed) builds now: every
   * log the catalog lacks indexed. Never waits for the start-up's turn: that waits on an
   * unref'd timer, and a script with nothing else pending would exit before its answer.
   */
  async ensureBuilt(): Promise<void> {
    if (this.isBuilt()) return;
    // A build in progress serves a miss: when it ends, the catalog is built.
    if (this.reconciling) await this.reconciling.catch(() => undefined);
    if (!this.isBuilt()) await this.reconcile();
  }

  /**
   * Compares the catalog's runs with the logs folder: a log it lacks is indexed, a run
   * whose log is gone is removed, every unfinished run is checked (its writer may have
   * stopped between the log and the catalog). The folder is read 1,024 names at a time,
   * each batch looked up in one query; the event loop runs between batches. When done,
   * every log is indexed: the database is marked built.
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
    const folder = await fsp.opendir(this.dir, { bufferSize: LIST_BATCH }).catch(() => undefined);
    let names: string[] = [];
    const lacking: string[] = [];
    const flush = async (): Promise<void> => {
      if (names.length === 0) return;
      const batch = names;
      names = [];
      const known = new Set(
        this.use((db) =>
          db
            .all('SELECT run_id FROM runs WHERE run_id IN (SELECT value FROM json_each(?))', JSON.stringify(batch))
            .map((r) => r.run_id as string),
        ),
      );
      for (const id of batch) if (!known.has(id)) lacking.push(id);
      await yieldToLoop();
    };
    if (folder) {
      for await (const d of folder) {
        const name = d.name;
        if (!name.endsWith('.jsonl') || !isSafeSegment(name.slice(0, -6))) continue;
        const id = name.slice(0, -6);
        onDisk.add(id);
        names.push(id);
        if (names.length >= LIST_BATCH) await flush();
      }
    }
    await flush();
    // Indexed after the listing, all in id order (reindexMany): the folder lists in hash order.
    await this.reindexMany(lacking);
    // Rows whose log is gone, a page of ids at a time. A row the listing did not see may be a run another
    // process started since the listing began: only a row whose log is missing now is removed.
    for (let after = ''; ;) {
      const ids = this.use((db) =>
        db
          .all('SELECT run_id FROM runs WHERE run_id > ? ORDER BY run_id LIMIT 2048', after)
          .map((r) => r.run_id as string),
      );
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
            for (const id of gone) this.deleteRows(db, id);
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

  /**
   * Checks the unfinished runs (the partial index) against their logs and re-indexes the stale ones. True when any was.
   */
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
    const r = this.use((db) => db.get(`SELECT ${RUN_READ} FROM runs WHERE run_id = ?`, runId)) as
      RunColumns | undefined;
    return r ? runRowOf(r) : undefined;
  }

  /** Rows of these runs (the known ones, in no particular order). */
  runsById(runIds: readonly string[]): RunRow[] {
    if (runIds.length === 0) return [];
    return this.use((db) =>
      db.all(`SELECT ${RUN_READ} FROM runs WHERE run_id IN (SELECT value FROM json_each(?))`, JSON.stringify(runIds)),
    ).map((r) => runRowOf(r as unknown as RunColumns));
  }

  /** True when a run id ends with this token (a new run's token must be new: call ids derive from it). */
  hasRunToken(token: string): boolean {
    return this.use((db) => db.get('SELECT 1 AS x FROM runs WHERE token = ? LIMIT 1', token)) !== undefined;
  }

  /** The runs whose id ends with this token (a call id starts with its run's token). */
  runsWithToken(token: string): string[] {
    return this.use((db) => db.all('SELECT run_id FROM runs WHERE token = ?', token)).map((r) => r.run_id as string);
  }

  /** Listed runs oldest first after `after` (start time and id), at most `limit`: retention's walk. */
  runsOldestFirst(after: { ms: number; id: string } | undefined, limit: number): RunRow[] {
    return this.use((db) =>
      after
        ? db.all(
            `SELECT ${RUN_READ} FROM runs WHERE ok = 1 AND (started_ms, run_id) > (?, ?) ` +
              `ORDER BY ok, started_ms, run_id LIMIT ?`,
            after.ms,
            after.id,
            limit,
          )
        : db.all(`SELECT ${RUN_READ} FROM runs WHERE ok = 1 ORDER BY ok, started_ms, run_id LIMIT ?`, limit),
    ).map((r) => runRowOf(r as unknown as RunColumns));
  }

  /** Listed runs newest first, a page (`listRuns`). */
  runsNewestFirst(offset: number, limit: number): RunRow[] {
    return this.use((db) =>
      db.all(
        `SELECT ${RUN_READ} FROM runs WHERE ok = 1 ORDER BY ok DESC, started_ms DESC, run_id DESC LIMIT ? OFFSET ?`,
        limit,
        offset,
      ),
    ).map((r) => runRowOf(r as unknown as RunColumns));
  }

  /** Listed runs with no finish record (the start-up check of dead writers reads only their logs). */
  unfinishedRuns(): RunRow[] {
    // The partial index of unfinished runs, named: with `ok = 1` beside it the planner took the order index (every
    // run).
    return this.use((db) =>
      db.all(`SELECT ${RUN_READ} FROM runs INDEXED BY runs_open WHERE status IS NULL AND ok = 1`),
    ).map((r) => runRowOf(r as unknown as RunColumns));
  }

  /** Finished calls of listed runs that minted `handle` (candidates: the caller reads each record back). */
  candidates(handle: string): HandleRow[] {
    return this.use((db) =>
      db.all(
        `SELECT c.run_id, c.call_id, c.log_off, c.log_len, c.ambiguous FROM handles h
      JOIN calls c ON c.run_id = h.run_id AND c.call_id = h.call_id JOIN runs r ON r.run_id = c.run_id
      WHERE h.handle = ? AND r.ok = 1 AND c.outcome != 'open'`,
        handle,
      ),
    ).map((r) => ({
      runId: r.run_id as string,
      callId: r.call_id as string,
      logOff: r.log_off as number,
      logLen: r.log_len as number,
      ambiguous: r.ambiguous === 1,
    }));
  }

  /**
   * Sums of the savings rollup over hours `[from, to)` (hours since the epoch, UTC), in all or
   * grouped by one column (groups with no output left out): one range of the rollup's primary key.
   */
  usageSums(range: { from: number; to: number }): UsageSums;
  usageSums(range: { from: number; to: number }, by: UsageColumn): { key: string; sums: UsageSums }[];
  usageSums(range: { from: number; to: number }, by?: UsageColumn): UsageSums | { key: string; sums: UsageSums }[] {
    if (by === undefined)
      return this.use((db) =>
        db.get(`SELECT ${USAGE_SELECT} FROM usage WHERE hour >= ? AND hour < ?`, range.from, range.to),
      ) as unknown as UsageSums;
    return this.use((db) =>
      db.all(
        `SELECT ${by} AS key, ${USAGE_SELECT} FROM usage WHERE hour >= ? AND hour < ? ` +
          `GROUP BY ${by} HAVING sum(outputs) > 0`,
        range.from,
        range.to,
      ),
    ).map((r) => ({ key: String(r.key), sums: r as unknown as UsageSums }));
  }

  /** Listed runs and the bytes they keep (logs, blobs, and the catalog's own files): no log is read or stat'ed. */
  totals(): { runs: number; bytes: number; calls: number } {
    const t = this.use(
      (db) => db.get('SELECT runs, bytes, calls FROM totals') as { runs: number; bytes: number; calls: number },
    );
    // Retention budgets every byte under the storage folder: the database counts too. Its WAL does not: it is
    // transient (folded into the database at each checkpoint, up to ~4 MiB before one), and counting it made a
    // budget's answer depend on when the last checkpoint ran.
    const own = statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    return { runs: t.runs, bytes: t.bytes + own, calls: t.calls };
  }
}
