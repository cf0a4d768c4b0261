/**
 * What the catalog keeps of each record (docs/architecture.md §6). Pure, and the same fold a rebuild uses, so a live
 * writer and a rebuild leave the same rows.
 */
import { lostBytesOf } from '../recording/observation.js';
import type { ReadLogResult } from '../log/runLog.js';
import type {
  CallFinishedRecord,
  CallShownRecord,
  CallStartedRecord,
  LogProblem,
  RunRecord,
  RunStartedRecord,
} from '../log/records.js';

const SOURCE_KINDS = new Set(['tool', 'participant', 'hook', 'cli', 'mcp', 'command', 'api']);

export interface RunValues {
  run_id: string;
  /** Handles recorded before opaque ones name runs by it. */
  token: string;
  /** Only then does the run list or mint anything. */
  ok: number;
  started_ms: number;
  started_at: string;
  finished_at: string | null;
  status: string | null;
  label: string | null;
  pinned: number;
  source: string | null;
  source_kind: string;
  profile_hash: string;
  torn: number;
  problems: string | null;
  log_size: number;
  log_mtime: number;
  blob_bytes: number;
  call_count: number;
}

export const RUN_COLUMNS =
  'run_id, token, ok, started_ms, started_at, finished_at, status, label, pinned, source, source_kind, ' +
  'profile_hash, torn, problems, log_size, log_mtime, blob_bytes, call_count';
export const CALL_COLUMNS =
  'run_id, call_id, n, run_started_ms, source_kind, tool, started_ms, outcome, ' +
  'bytes, blob_bytes, log_off, log_len, ambiguous, entry, ' +
  'agent, command, out_bytes, kept_bytes, lost_bytes, whole, shown_n, shown_bytes, reads, read_bytes';

export interface CallListing {
  readonly s: string;
  readonly f?: string;
  readonly st?: string;
  readonly e?: string;
  readonly x?: number | null;
  readonly sg?: string | null;
  readonly to?: boolean;
  readonly ca?: boolean;
  readonly b?: number;
  readonly sto?: string;
  readonly sha?: string;
  readonly md?: string;
  readonly h?: string;
  readonly a?: readonly (readonly [string, string, number, string, string])[];
}

export interface CallValues {
  run_id: string;
  call_id: string;
  /** Calls of one run started in the same millisecond sort by it. */
  n: number;
  run_started_ms: number;
  source_kind: string;
  tool: string;
  started_ms: number;
  /** A command recorded `ok` that exited non-zero is failed. */
  outcome: string;
  bytes: number;
  /** Retention counts them. */
  blob_bytes: number;
  log_off: number | null;
  log_len: number | null;
  /** Its handles then resolve to nothing. */
  ambiguous: number;
  entry: string;
  /** docs/contracts.md §2.14. */
  agent: string;
  command: string;
  /** Past any cap. */
  out_bytes: number;
  kept_bytes: number;
  lost_bytes: number;
  whole: number;
  shown_n: number;
  shown_bytes: number;
  reads: number;
  read_bytes: number;
}

const NOTHING_SHOWN = {
  out_bytes: 0,
  kept_bytes: 0,
  lost_bytes: 0,
  whole: 0,
  shown_n: 0,
  shown_bytes: 0,
  reads: 0,
  read_bytes: 0,
} as const;

function agentOf(source: string | null, sourceKind: string): string {
  if (source !== null) {
    try {
      const agent = (JSON.parse(source) as { agent?: unknown }).agent;
      if (typeof agent === 'string' && agent !== '') return agent.slice(0, 64);
    } catch {
      /* a source the catalog wrote itself: always JSON */
    }
  }
  return sourceKind;
}

/** `NAME=value` assignments and a leading `cd DIR &&` are skipped. */
export function commandWordOf(command: unknown): string {
  if (typeof command !== 'string') return '';
  let words = command.trim().split(/\s+/);
  const and = words.indexOf('&&');
  if (words[0] === 'cd' && and > 0) words = words.slice(and + 1);
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  const word = (words[i] ?? '').replace(/^[('"]+|[)'";&|]+$/g, '');
  return (word.split('/').pop() ?? '').slice(0, 64);
}

function outputOf(record: CallFinishedRecord): Pick<CallValues, 'out_bytes' | 'kept_bytes' | 'lost_bytes' | 'whole'> {
  const streams = record.attachments.filter((a) => a.name === 'stdout' || a.name === 'stderr');
  if (streams.length > 0) {
    let out = 0;
    let kept = 0;
    let lost = 0;
    let whole = 1;
    for (const a of streams) {
      out += a.observedBytes;
      lost += lostBytesOf(a);
      kept += a.readable ? a.sizeBytes : 0;
      if (a.observedBytes > 0 && (a.binary || a.truncated || !a.readable || a.previewRange !== undefined)) whole = 0;
    }
    return { out_bytes: out, kept_bytes: kept, lost_bytes: lost, whole };
  }
  const shownOfPreview = record.previewRange
    ? record.previewRange.headEnd + (record.resultBytes - record.previewRange.tailStart)
    : 0;
  return {
    out_bytes: record.resultBytes,
    kept_bytes: record.readable ? record.resultBytes : 0,
    lost_bytes: record.readable ? 0 : record.resultBytes - shownOfPreview,
    whole: record.elided ? 0 : 1,
  };
}

export function shownCall(call: CallValues, record: CallShownRecord): CallValues {
  if (record.view === 'read') return { ...call, reads: call.reads + 1, read_bytes: call.read_bytes + record.bytes };
  return {
    ...call,
    shown_n: call.shown_n + 1,
    shown_bytes: call.shown_bytes + record.bytes,
    whole: record.whole === true ? 1 : call.whole,
  };
}

function tokenOf(runId: string): string {
  return /-([0-9a-f]{10})$/.exec(runId)?.[1] ?? runId;
}

function callNumberOf(token: string, callId: string): number {
  if (!callId.startsWith(`${token}-`)) return 0;
  const digits = callId.slice(token.length + 1);
  return /^[1-9]\d{0,14}$/.test(digits) ? Number(digits) : 0;
}

function sourceKindOf(src: unknown): string {
  const kind = src !== null && typeof src === 'object' ? (src as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' && SOURCE_KINDS.has(kind) ? kind : 'tool';
}

function timeOf(text: string): number {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : 0;
}

export function startedRun(record: RunStartedRecord, tenant: string): RunValues {
  const src = (record as { source?: unknown }).source;
  return {
    run_id: record.runId,
    token: tokenOf(record.runId),
    ok: record.tenant === tenant ? 1 : 0,
    started_ms: timeOf(record.startedAt),
    started_at: record.startedAt,
    finished_at: null,
    status: null,
    label: record.label ?? null,
    pinned: record.pinned ? 1 : 0,
    source: src === undefined ? null : JSON.stringify(src),
    source_kind: sourceKindOf(src),
    profile_hash: record.profileHash,
    torn: 0,
    problems: null,
    log_size: 0,
    log_mtime: 0,
    blob_bytes: 0,
    call_count: 0,
  };
}

function foreignRun(runId: string): RunValues {
  return {
    run_id: runId,
    token: tokenOf(runId),
    ok: 0,
    started_ms: 0,
    started_at: '',
    finished_at: null,
    status: null,
    label: null,
    pinned: 0,
    source: null,
    source_kind: 'tool',
    profile_hash: '',
    torn: 0,
    problems: null,
    log_size: 0,
    log_mtime: 0,
    blob_bytes: 0,
    call_count: 0,
  };
}

export type CallRun = Pick<RunValues, 'token' | 'started_ms' | 'source_kind' | 'source'>;

export function startedCall(run: CallRun, record: CallStartedRecord): CallValues {
  const listing: CallListing = { s: record.startedAt };
  return {
    run_id: record.runId,
    call_id: record.callId,
    n: callNumberOf(run.token, record.callId),
    run_started_ms: run.started_ms,
    source_kind: run.source_kind,
    tool: record.tool,
    started_ms: timeOf(record.startedAt),
    outcome: 'open',
    bytes: 0,
    blob_bytes: 0,
    log_off: null,
    log_len: null,
    ambiguous: 0,
    entry: JSON.stringify(listing),
    agent: agentOf(run.source, run.source_kind),
    command: commandWordOf(record.arguments.command),
    ...NOTHING_SHOWN,
  };
}

function exitOf(record: CallFinishedRecord): { x?: number | null; sg?: string | null; to?: boolean; ca?: boolean } {
  const out: { x?: number | null; sg?: string | null; to?: boolean; ca?: boolean } = {};
  const value = record.attachments.find((a) => a.name === 'value' && a.inline !== undefined);
  if (value) {
    try {
      const v = JSON.parse(value.inline!) as {
        code?: unknown;
        signal?: unknown;
        timedOut?: unknown;
        aborted?: unknown;
      };
      if (typeof v.code === 'number' || v.code === null) out.x = v.code;
      if (typeof v.signal === 'string' || v.signal === null) out.sg = v.signal;
      if (v.timedOut === true) out.to = true;
      if (v.aborted === true) out.ca = true;
    } catch {
      /* not a command's exit value: nothing to list */
    }
  }
  if (record.error?.code === 'timeout') out.to = true;
  if (record.error?.code === 'aborted') out.ca = true;
  return out;
}

/** docs/contracts.md §3.4, "Outcome". */
export function finishedCall(run: CallRun, record: CallFinishedRecord, at: number, length: number): CallValues {
  // The artifact a read names counts like a blob (docs/contracts.md §2.7).
  let blob = record.stored === 'blob' || record.stored === 'artifact' ? record.resultBytes : 0;
  let attached = 0;
  for (const a of record.attachments) {
    attached += a.sizeBytes;
    if (a.stored === 'blob') blob += a.sizeBytes;
  }
  const exit = exitOf(record);
  const failedExit =
    (typeof exit.x === 'number' && exit.x !== 0) ||
    (typeof exit.sg === 'string' && exit.sg !== '') ||
    exit.to === true ||
    exit.ca === true;
  const listing: CallListing = {
    s: record.startedAt,
    f: record.finishedAt,
    st: record.status,
    ...(record.error ? { e: record.error.code } : {}),
    ...exit,
    b: record.resultBytes,
    sto: record.stored,
    sha: record.sha256,
    ...(record.manifestDigest ? { md: record.manifestDigest } : {}),
    ...(record.resultHandle ? { h: record.resultHandle } : {}),
    a: record.attachments.map((a) => [a.name, a.slot, a.sizeBytes, a.stored, a.handle] as const),
  };
  return {
    run_id: record.runId,
    call_id: record.callId,
    n: callNumberOf(run.token, record.callId),
    run_started_ms: run.started_ms,
    source_kind: run.source_kind,
    tool: record.tool,
    started_ms: timeOf(record.startedAt),
    outcome: record.status === 'ok' && !failedExit ? 'ok' : 'failed',
    bytes: record.resultBytes + attached,
    blob_bytes: blob,
    log_off: at,
    log_len: length,
    ambiguous: 0,
    entry: JSON.stringify(listing),
    agent: agentOf(run.source, run.source_kind),
    command: commandWordOf(record.arguments.command),
    ...NOTHING_SHOWN,
    ...outputOf(record),
  };
}

/** Stored, never derived: an opaque handle cannot be. */
export function handlesOfListing(e: CallListing): string[] {
  const out: string[] = e.h ? [e.h] : [];
  for (const a of e.a ?? []) out.push(a[4]);
  return out;
}

export interface RunSnapshot {
  readonly run: RunValues;
  readonly calls: readonly CallValues[];
}

export function snapshotOf(
  runId: string,
  tenant: string,
  log: ReadLogResult,
  stamp: { size: number; mtimeMs: number },
): RunSnapshot {
  const first = log.records[0];
  const problems: readonly LogProblem[] = log.problems;
  const stamped = (run: RunValues): RunValues => ({
    ...run,
    torn: log.tornTail ? 1 : 0,
    problems: problems.length ? JSON.stringify(problems) : null,
    log_size: stamp.size,
    log_mtime: stamp.mtimeMs,
  });
  if (first?.type !== 'run_started' || first.tenant !== tenant || first.runId !== runId)
    return { run: stamped(foreignRun(runId)), calls: [] };
  const run = startedRun(first, tenant);
  const calls = new Map<string, CallValues>();
  log.records.forEach((r: RunRecord, i) => {
    const [start, end] = log.spans[i]!;
    applyToRun(run, calls, r, start, end - start);
  });
  return { run: stamped(run), calls: [...calls.values()] };
}

/** The same rules `writer.ts` follows in SQL. */
function applyToRun(run: RunValues, calls: Map<string, CallValues>, r: RunRecord, at: number, length: number): void {
  switch (r.type) {
    case 'run_started':
      return;
    case 'run_pinned':
      run.pinned = r.pinned ? 1 : 0;
      return;
    case 'run_finished':
      run.finished_at = r.finishedAt;
      run.status = r.status;
      return;
    case 'call_started':
      if (!calls.has(r.callId)) calls.set(r.callId, startedCall(run, r));
      return;
    case 'call_finished': {
      const prior = calls.get(r.callId);
      const next = finishedCall(run, r, at, length);
      if (prior && prior.outcome !== 'open') {
        next.ambiguous = 1;
        run.blob_bytes -= prior.blob_bytes;
      } else run.call_count++;
      run.blob_bytes += next.blob_bytes;
      calls.set(r.callId, next);
      return;
    }
    case 'call_shown': {
      const call = calls.get(r.callId);
      if (call && call.outcome !== 'open') calls.set(r.callId, shownCall(call, r));
    }
  }
}
