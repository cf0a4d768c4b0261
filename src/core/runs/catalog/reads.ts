/** Reading the catalog's rows back (docs/architecture.md §6); nothing here checks a log. */
import type { LogProblem, RunFinishStatus } from '../log/records.js';
import { USAGE_SUMS, type CatalogDatabase } from './database.js';
import { RUN_COLUMNS, type RunValues } from './rows.js';

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
  readonly logSize: number;
  readonly logMtimeMs: number;
  readonly blobBytes: number;
  readonly callCount: number;
  readonly failedCalls: number;
  /** Calls started and not finished. */
  readonly openCalls: number;
  /** What its calls hold: each call's result and outputs. */
  readonly outputBytes: number;
}

export interface HandleRow {
  readonly runId: string;
  readonly callId: string;
  readonly logOff: number;
  readonly logLen: number;
  readonly ambiguous: boolean;
}

/** docs/contracts.md §2.14. */
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
  readonly unreached: number;
  readonly unreached_bytes: number;
}

export type UsageColumn = 'hour' | 'agent' | 'tool' | 'command';

const USAGE_SELECT = USAGE_SUMS.map(([n]) => `coalesce(sum(${n}), 0) AS ${n}`).join(', ');

/** A row of `runs` as SQLite returns it (read with `RUN_READ`: its calls counted and summed). */
type RunColumns = RunValues & { failed_calls?: number; open_calls?: number; output_bytes?: number };

const NO_PROBLEMS: readonly LogProblem[] = Object.freeze([]);

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
    logSize: r.log_size,
    logMtimeMs: r.log_mtime,
    blobBytes: r.blob_bytes,
    callCount: r.call_count,
    failedCalls: r.failed_calls ?? 0,
    openCalls: r.open_calls ?? 0,
    outputBytes: r.output_bytes ?? 0,
  };
}

/**
 * The columns read for a run: its own, how many of its calls failed or still run, and what they hold (over the run's
 * calls through the primary key: a completed run can say it failed, and a run's size is the sum of its calls' sizes).
 */
export const RUN_READ =
  `${RUN_COLUMNS}, ` +
  `(SELECT COUNT(*) FROM calls fc WHERE fc.run_id = runs.run_id AND fc.outcome = 'failed') AS failed_calls, ` +
  `(SELECT COUNT(*) FROM calls oc WHERE oc.run_id = runs.run_id AND oc.outcome = 'open') AS open_calls, ` +
  `(SELECT coalesce(sum(bc.bytes), 0) FROM calls bc WHERE bc.run_id = runs.run_id) AS output_bytes`;

const runRows = (rows: Record<string, unknown>[]): RunRow[] => rows.map((r) => runRowOf(r as unknown as RunColumns));

export function runRow(db: CatalogDatabase, runId: string): RunRow | undefined {
  const r = db.get(`SELECT ${RUN_READ} FROM runs WHERE run_id = ?`, runId) as RunColumns | undefined;
  return r ? runRowOf(r) : undefined;
}

export function runsById(db: CatalogDatabase, runIds: readonly string[]): RunRow[] {
  if (runIds.length === 0) return [];
  return runRows(
    db.all(`SELECT ${RUN_READ} FROM runs WHERE run_id IN (SELECT value FROM json_each(?))`, JSON.stringify(runIds)),
  );
}

export function runsWithToken(db: CatalogDatabase, token: string): string[] {
  return db.all('SELECT run_id FROM runs WHERE token = ?', token).map((r) => r.run_id as string);
}

/** Retention's walk. */
export function runsOldestFirst(
  db: CatalogDatabase,
  after: { ms: number; id: string } | undefined,
  limit: number,
): RunRow[] {
  return runRows(
    after
      ? db.all(
          `SELECT ${RUN_READ} FROM runs WHERE ok = 1 AND (started_ms, run_id) > (?, ?) ` +
            `ORDER BY ok, started_ms, run_id LIMIT ?`,
          after.ms,
          after.id,
          limit,
        )
      : db.all(`SELECT ${RUN_READ} FROM runs WHERE ok = 1 ORDER BY ok, started_ms, run_id LIMIT ?`, limit),
  );
}

export function runsNewestFirst(db: CatalogDatabase, offset: number, limit: number): RunRow[] {
  return runRows(
    db.all(
      `SELECT ${RUN_READ} FROM runs WHERE ok = 1 ORDER BY ok DESC, started_ms DESC, run_id DESC LIMIT ? OFFSET ?`,
      limit,
      offset,
    ),
  );
}

export function unfinishedRuns(db: CatalogDatabase): RunRow[] {
  // Named: with `ok = 1` beside it the planner took the order index.
  return runRows(db.all(`SELECT ${RUN_READ} FROM runs INDEXED BY runs_open WHERE status IS NULL AND ok = 1`));
}

/** Candidates: the caller reads each record back. */
export function handleCandidates(db: CatalogDatabase, handle: string): HandleRow[] {
  return db
    .all(
      `SELECT c.run_id, c.call_id, c.log_off, c.log_len, c.ambiguous FROM handles h
      JOIN calls c ON c.run_id = h.run_id AND c.call_id = h.call_id JOIN runs r ON r.run_id = c.run_id
      WHERE h.handle = ? AND r.ok = 1 AND c.outcome != 'open'`,
      handle,
    )
    .map((r) => ({
      runId: r.run_id as string,
      callId: r.call_id as string,
      logOff: r.log_off as number,
      logLen: r.log_len as number,
      ambiguous: r.ambiguous === 1,
    }));
}

export function usageTotal(db: CatalogDatabase, range: { from: number; to: number }): UsageSums {
  return db.get(
    `SELECT ${USAGE_SELECT} FROM usage WHERE hour >= ? AND hour < ?`,
    range.from,
    range.to,
  ) as unknown as UsageSums;
}

/** Groups with no output left out. */
export function usageGroups(
  db: CatalogDatabase,
  range: { from: number; to: number },
  by: UsageColumn,
): { key: string; sums: UsageSums }[] {
  return db
    .all(
      `SELECT ${by} AS key, ${USAGE_SELECT} FROM usage WHERE hour >= ? AND hour < ? ` +
        `GROUP BY ${by} HAVING sum(outputs) > 0`,
      range.from,
      range.to,
    )
    .map((r) => ({ key: String(r.key), sums: r as unknown as UsageSums }));
}

export function runIdsAfter(db: CatalogDatabase, after: string, limit: number): string[] {
  return db
    .all('SELECT run_id FROM runs WHERE run_id > ? ORDER BY run_id LIMIT ?', after, limit)
    .map((r) => r.run_id as string);
}

export function knownRunIds(db: CatalogDatabase, runIds: readonly string[]): Set<string> {
  return new Set(
    db
      .all('SELECT run_id FROM runs WHERE run_id IN (SELECT value FROM json_each(?))', JSON.stringify(runIds))
      .map((r) => r.run_id as string),
  );
}
