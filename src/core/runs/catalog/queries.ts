/**
 * Listing from the catalog (docs/architecture.md §6): each one SQL query an index answers in order, never a walk in
 * JavaScript. A page's runs are checked against their logs first, so a page always agrees with them.
 */
import type { SQLInputValue } from 'node:sqlite';
import { EvidenceError } from '../../errors.js';
import type {
  CallErrorCode,
  CallFilter,
  CallPage,
  CallQuery,
  CallStatus,
  CallSummary,
  ListedRunSource,
  RunQuery,
  RunStatus,
  RunSummary,
  StorageState,
} from '../types.js';
import type { Catalog } from './catalog.js';
import { RUN_READ, runRowOf, type RunRow } from './reads.js';
import type { CallListing, RunValues } from './rows.js';

/** Another window may own it. */
const RUNNING_GRACE_MS = 10 * 60 * 1000;

const MAX_LIMIT = 1000;

const SOURCE_KINDS = new Set(['tool', 'participant', 'hook', 'cli', 'mcp', 'command', 'api']);

export type IsLive = (runId: string) => boolean;

export type LiveRuns = () => readonly string[];

export function runStatusOf(row: RunRow, isLive: IsLive, now = Date.now()): RunStatus {
  if (row.status) return row.status;
  return isLive(row.id) || now - row.logMtimeMs < RUNNING_GRACE_MS ? 'running' : 'interrupted';
}

export function summaryOf(row: RunRow, tenant: string, isLive: IsLive): RunSummary {
  return {
    runId: row.id,
    tenant,
    label: row.label,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    status: runStatusOf(row, isLive),
    pinned: row.pinned,
    source: sourceOf(row.source),
    profileHash: row.profileHash,
    callCount: row.callCount + row.openCalls,
    failedCalls: row.failedCalls,
    totalBytes: row.logSize + row.blobBytes,
    outputBytes: row.outputBytes,
    tornTail: row.tornTail,
    problems: row.problems,
  };
}

/** `tool` when absent or not understood. */
function sourceOf(source: unknown): ListedRunSource {
  const s = source as { kind?: unknown; agent?: unknown; sessionId?: unknown } | undefined;
  if (!s || typeof s !== 'object' || typeof s.kind !== 'string' || !SOURCE_KINDS.has(s.kind)) return { kind: 'tool' };
  return {
    kind: s.kind as ListedRunSource['kind'],
    ...(typeof s.agent === 'string' ? { agent: s.agent } : {}),
    ...(typeof s.sessionId === 'string' ? { sessionId: s.sessionId } : {}),
  };
}

function positive(name: string, v: unknown, max: number, min = 1): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
    throw new EvidenceError('invalidArgument', `${name} must be an integer from ${min} to ${max}`);
  return v;
}

function optionalString(name: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 1024)
    throw new EvidenceError('invalidArgument', `${name} must be a string of at most 1024 characters`);
  return v;
}

/** From an untrusted caller (a webview): one sentence per mistake. */
function validateCallQuery(q: CallQuery): CallQuery {
  if (q === null || typeof q !== 'object') throw new EvidenceError('invalidArgument', 'query must be an object');
  positive('offset', q.offset, Number.MAX_SAFE_INTEGER, 0);
  positive('limit', q.limit, MAX_LIMIT);
  if (q.order !== undefined && !['newest', 'oldest', 'largest'].includes(q.order))
    throw new EvidenceError('invalidArgument', 'order must be newest, oldest or largest');
  if (q.outcome !== undefined && !['ok', 'failed', 'running'].includes(q.outcome))
    throw new EvidenceError('invalidArgument', 'outcome must be ok, failed or running');
  if (q.source !== undefined && !SOURCE_KINDS.has(q.source))
    throw new EvidenceError('invalidArgument', 'source is not a known kind');
  optionalString('runId', q.runId);
  optionalString('callId', q.callId);
  if (q.callId !== undefined && q.runId === undefined)
    throw new EvidenceError('invalidArgument', 'callId needs the runId it belongs to');
  optionalString('tool', q.tool);
  optionalString('text', q.text);
  return q;
}

/** SQLite's lower() folds ASCII only. */
function lowerSql(text: string, column: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? `lower(${column})` : `lower_js(${column})`;
}

/** An unfinished call is running while its run is, else interrupted, which the outcome filter counts as failed. */
function whereOf(q: CallFilter, live: LiveRuns): { sql: string; params: Record<string, SQLInputValue> } {
  const where: string[] = [];
  const params: Record<string, SQLInputValue> = {};
  if (q.runId !== undefined) {
    where.push('c.run_id = $run');
    params.run = q.runId;
  }
  if (q.callId !== undefined) {
    where.push('c.call_id = $call');
    params.call = q.callId;
  }
  if (q.tool !== undefined) {
    where.push('c.tool = $tool');
    params.tool = q.tool;
  }
  if (q.source !== undefined) {
    where.push('c.source_kind = $source');
    params.source = q.source;
  }
  if (q.outcome !== undefined) {
    const running = `EXISTS (SELECT 1 FROM runs r WHERE r.run_id = c.run_id AND r.status IS NULL
      AND (r.log_mtime > $since OR r.run_id IN (SELECT value FROM json_each($live))))`;
    if (q.outcome === 'ok') where.push("c.outcome = 'ok'");
    else {
      params.since = Date.now() - RUNNING_GRACE_MS;
      params.live = JSON.stringify(live());
      where.push(
        q.outcome === 'running'
          ? `(c.outcome = 'open' AND ${running})`
          : `(c.outcome = 'failed' OR (c.outcome = 'open' AND NOT ${running}))`,
      );
    }
  }
  if (q.text !== undefined) {
    const t = q.text.toLowerCase();
    params.text = t;
    where.push(
      `(instr(${lowerSql(t, 'c.tool')}, $text) > 0 OR ` +
        `instr(${lowerSql(t, 'c.run_id')}, $text) > 0 OR instr(c.call_id, $text) > 0
      OR EXISTS (SELECT 1 FROM runs r WHERE r.run_id = c.run_id AND ` +
        `instr(${lowerSql(t, "coalesce(r.label, '')")}, $text) > 0))`,
    );
  }
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

const KEY = 'c.started_ms, c.run_started_ms, c.run_id, c.n';
const ORDER: Record<NonNullable<CallQuery['order']>, string> = {
  newest: 'c.started_ms DESC, c.run_started_ms DESC, c.run_id DESC, c.n DESC',
  oldest: 'c.started_ms, c.run_started_ms, c.run_id, c.n',
  largest: 'c.bytes DESC, c.started_ms DESC, c.run_started_ms DESC, c.run_id DESC, c.n DESC',
};

interface PageRow {
  run_id: string;
  call_id: string;
  tool: string;
  outcome: string;
  log_off: number | null;
  log_len: number | null;
  entry: string;
  r_label: string | null;
  r_source: string | null;
  r_status: string | null;
  r_mtime: number;
}

function selectPage(catalog: Catalog, q: CallQuery, live: LiveRuns): { total: number; rows: PageRow[] } {
  const { sql, params } = whereOf(q, live);
  return catalog.use((db) => {
    // Kept by triggers: no scan of the index per page.
    const total =
      sql === ''
        ? (db.get('SELECT calls AS n FROM totals') as { n: number }).n
        : (db.statement(`SELECT count(*) AS n FROM calls c ${sql}`).get(params) as { n: number }).n;
    // The page's rowids first, then only its rows joined: as a joined subquery, a bound LIMIT hid the page size from
    // the planner, which then scanned every call.
    const rows = db
      .statement(
        `SELECT c.run_id, c.call_id, c.tool, c.outcome, c.log_off, c.log_len, c.entry,
        r.label AS r_label, r.source AS r_source, r.status AS r_status, r.log_mtime AS r_mtime
      FROM calls c JOIN runs r ON r.run_id = c.run_id
      WHERE c.rowid IN (SELECT c.rowid FROM calls c ${sql} ` +
          `ORDER BY ${ORDER[q.order ?? 'newest']} LIMIT $limit OFFSET $offset)
      ORDER BY ${ORDER[q.order ?? 'newest']}`,
      )
      .all({ ...params, limit: q.limit, offset: q.offset }) as unknown as PageRow[];
    return { total, rows };
  });
}

function callSummaryOf(c: PageRow, isLive: IsLive, now: number): CallSummary {
  const source = sourceOf(c.r_source === null ? undefined : JSON.parse(c.r_source));
  const base = {
    runId: c.run_id,
    callId: c.call_id,
    tool: c.tool,
    source,
    ...(c.r_label !== null ? { runLabel: c.r_label } : {}),
  };
  const e = JSON.parse(c.entry) as CallListing;
  if (c.outcome === 'open') {
    const runRunning = c.r_status === null && (isLive(c.run_id) || now - c.r_mtime < RUNNING_GRACE_MS);
    return { ...base, startedAt: e.s, status: runRunning ? 'running' : 'interrupted', resultBytes: 0, attachments: [] };
  }
  return {
    ...base,
    startedAt: e.s,
    finishedAt: e.f,
    status: e.st as CallStatus,
    ...(e.e !== undefined ? { errorCode: e.e as CallErrorCode } : {}),
    ...(e.x !== undefined ? { exitCode: e.x } : {}),
    ...(e.sg !== undefined ? { signal: e.sg } : {}),
    ...(e.to ? { timedOut: true } : {}),
    ...(e.ca ? { cancelled: true } : {}),
    resultBytes: e.b!,
    stored: e.sto as StorageState,
    sha256Prefix: e.sha!.slice(0, 12),
    sha256: e.sha!,
    ...(e.md ? { manifestDigest: e.md } : {}),
    ...(e.h ? { handle: e.h } : {}),
    attachments: (e.a ?? []).map(([name, , sizeBytes, stored, handle]) => ({
      name,
      handle,
      sizeBytes,
      stored: stored as StorageState,
    })),
    ...(c.log_off !== null && c.log_len !== null ? { logRecord: { offset: c.log_off, length: c.log_len } } : {}),
  };
}

export async function queryCalls(catalog: Catalog, q: CallQuery, isLive: IsLive, live: LiveRuns): Promise<CallPage> {
  validateCallQuery(q);
  let page = selectPage(catalog, q, live);
  // A stale row is re-indexed, and the page asked again once: the logs win.
  if (await catalog.verifyRuns(page.rows.map((c) => c.run_id))) page = selectPage(catalog, q, live);
  const now = Date.now();
  return { total: page.total, offset: q.offset, rows: page.rows.map((c) => callSummaryOf(c, isLive, now)) };
}

/** docs/contracts.md §3.4, "Reveal": counted over the index. */
export async function callIndex(
  catalog: Catalog,
  q: CallFilter,
  runId: string,
  callId: string,
  live: LiveRuns,
): Promise<number | undefined> {
  validateCallQuery({ ...q, offset: 0, limit: 1 });
  if ((q.runId !== undefined && q.runId !== runId) || (q.callId !== undefined && q.callId !== callId)) return undefined;
  const { sql, params } = whereOf(q, live);
  return catalog.use((db) => {
    const me = db
      .statement(
        `SELECT c.started_ms, c.run_started_ms, c.run_id, c.n, c.bytes FROM calls c
      ${sql ? `${sql} AND` : 'WHERE'} c.run_id = $meRun AND c.call_id = $meCall`,
      )
      .get({ ...params, meRun: runId, meCall: callId }) as
      { started_ms: number; run_started_ms: number; run_id: string; n: number; bytes: number } | undefined;
    if (!me) return undefined;
    const key = {
      k1: me.started_ms,
      k2: me.run_started_ms,
      k3: me.run_id,
      k4: me.n,
      ...(q.order === 'largest' ? { kb: me.bytes } : {}),
    };
    const before =
      q.order === 'oldest'
        ? `(${KEY}) < ($k1, $k2, $k3, $k4)`
        : q.order === 'largest'
          ? `(c.bytes, ${KEY}) > ($kb, $k1, $k2, $k3, $k4)`
          : `(${KEY}) > ($k1, $k2, $k3, $k4)`;
    const n = db
      .statement(`SELECT count(*) AS n FROM calls c ${sql ? `${sql} AND` : 'WHERE'} ${before}`)
      .get({ ...params, ...key }) as { n: number };
    return n.n;
  });
}

export async function queryRuns(catalog: Catalog, q: RunQuery, tenant: string, isLive: IsLive): Promise<RunSummary[]> {
  if (q === null || typeof q !== 'object') throw new EvidenceError('invalidArgument', 'query must be an object');
  positive('limit', q.limit, MAX_LIMIT);
  const skip = q.offset === undefined ? 0 : positive('offset', q.offset, Number.MAX_SAFE_INTEGER, 0);
  const text = optionalString('text', q.text)?.toLowerCase();
  const after = cursorOf(q.after);
  if (
    q.runIds !== undefined &&
    (!Array.isArray(q.runIds) || q.runIds.length > q.limit || q.runIds.some((id) => typeof id !== 'string'))
  ) {
    throw new EvidenceError('invalidArgument', 'runIds must be at most limit run ids');
  }
  const pick = (): RunRow[] => {
    if (q.runIds !== undefined) {
      const byId = new Map(catalog.runsById(q.runIds).map((r) => [r.id, r]));
      return q.runIds.flatMap((id) => {
        const r = byId.get(id);
        return r?.ok ? [r] : [];
      });
    }
    const filter =
      text === undefined
        ? ''
        : `AND (instr(${lowerSql(text, 'run_id')}, $text) > 0 OR ` +
          `instr(${lowerSql(text, "coalesce(label, '')")}, $text) > 0)`;
    // The index (ok, started_ms, run_id) seeks to the cursor: a deep page costs what the first does.
    const seek = after === undefined ? '' : 'AND (started_ms, run_id) < ($afterMs, $afterId)';
    return catalog
      .use((db) =>
        db
          .statement(
            `SELECT ${RUN_READ} FROM runs WHERE ok = 1 ${filter} ${seek} ` +
              `ORDER BY ok DESC, started_ms DESC, run_id DESC LIMIT $limit OFFSET $offset`,
          )
          .all({
            ...(text !== undefined ? { text } : {}),
            ...(after !== undefined ? { afterMs: after.ms, afterId: after.runId } : {}),
            limit: q.limit,
            offset: after === undefined ? skip : 0,
          }),
      )
      .map((r) => runRowOf(r as unknown as RunValues));
  };
  let rows = pick();
  if (await catalog.verifyRuns(rows.map((r) => r.id))) rows = pick();
  return rows.map((r) => summaryOf(r, tenant, isLive));
}

function cursorOf(after: RunQuery['after']): { ms: number; runId: string } | undefined {
  if (after === undefined) return undefined;
  const ms = typeof after === 'object' && after !== null ? Date.parse(after.startedAt) : NaN;
  if (!Number.isFinite(ms) || typeof after.runId !== 'string')
    throw new EvidenceError('invalidArgument', 'after must be { startedAt, runId } of a listed run');
  return { ms, runId: after.runId };
}

/** By jumping to the next value in the index: `SELECT DISTINCT` walks every entry. */
function distinctOf(column: 'tool' | 'source_kind'): string {
  return (
    `WITH RECURSIVE v(x) AS (SELECT min(${column}) FROM calls UNION ALL ` +
    `SELECT (SELECT min(${column}) FROM calls WHERE ${column} > v.x) FROM v WHERE v.x IS NOT NULL)
    SELECT x FROM v WHERE x IS NOT NULL`
  );
}

export function facetsOf(catalog: Catalog): { tools: string[]; sources: ListedRunSource['kind'][] } {
  return catalog.use((db) => ({
    tools: db.all(distinctOf('tool')).map((r) => r.x as string),
    sources: db.all(distinctOf('source_kind')).map((r) => r.x as ListedRunSource['kind']),
  }));
}
