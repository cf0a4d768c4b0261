/**
 * The catalog's file format (docs/architecture.md §6): one append-only file per
 * tenant, `<logsDir>/<tenant>/.catalog-v1`, whose lines index the run logs.
 *
 * Every line is written by one `write` on an O_APPEND descriptor as
 * `"\n" + json + "\t" + crc32(json) as 8 hex`. The leading newline ends a line a crashed
 * writer left torn, so the next line is always whole; the checksum makes every line
 * self-checking (a torn or altered line is skipped and reported, never trusted). JSON
 * never contains a raw tab, so the last tab splits payload from checksum.
 *
 * The entries mirror the run-log records, each with the log's size and mtime after the
 * record was appended (`z`, `m`): a reader compares them with the log before it serves a
 * row, so a catalog that fell behind its logs is detected and that run re-indexed. A
 * `snap` is one run re-indexed from its log in one line (one write, so it never
 * interleaves with another process's lines).
 */
import { frameLine, unframeLine } from '../checkedLines.js';
import type { ReadLogResult } from './runLog.js';
import type { CallFinishedRecord, LogProblem, RunRecord, RunStatus } from './types.js';

/** File name of the catalog inside the tenant's log folder (not `*.jsonl`: never a run). */
export const CATALOG_FILE = '.catalog-v1';

/** Where a call's bytes are, as listed: one entry per attachment: name, slot, size, storage state. */
export type AttachmentCell = readonly [name: string, slot: string, sizeBytes: number, stored: string];

/** A run started. */
export interface RunEntry { readonly k: 'run'; readonly r: string; readonly s: string; readonly ph: string; readonly l?: string; readonly p?: boolean; readonly src?: unknown }
/** A call started. */
export interface CallStartEntry { readonly k: 'cs'; readonly r: string; readonly c: string; readonly t: string; readonly s: string }
/** A call finished: what the inspector lists, and where its record is in the log (`o`, `n`). */
export interface CallEntry {
  readonly k: 'cf'; readonly r: string; readonly c: string; readonly t: string; readonly s: string; readonly f: string;
  readonly st: string; readonly e?: string; readonly x?: number | null; readonly sg?: string | null; readonly to?: boolean; readonly ca?: boolean;
  /** Result bytes, bytes kept in blobs (result and attachments), result storage state, full sha256. */
  readonly b: number; readonly bb: number; readonly sto: string; readonly sha: string;
  /** Manifest digest of the artifact a call names (`sto: 'artifact'`: its bytes live once, docs/contracts.md §2.9). */
  readonly md?: string;
  /** Result handle minted. */
  readonly h?: boolean;
  readonly a: readonly AttachmentCell[];
  /** Byte offset and length of the `call_finished` line in the run log. */
  readonly o: number; readonly n: number;
}
/** A run was pinned or unpinned. */
export interface PinEntry { readonly k: 'pin'; readonly r: string; readonly p: boolean }
/** A run finished. */
export interface FinEntry { readonly k: 'fin'; readonly r: string; readonly f: string; readonly st: string }
/** One of the entries a record produces. */
export type RecordEntry = RunEntry | CallStartEntry | CallEntry | PinEntry | FinEntry;

/** Log size and mtime after the record was appended. */
export interface LogStamp { readonly z: number; readonly m: number }

/** A run deleted. */
export interface DelEntry { readonly k: 'del'; readonly r: string }
/**
 * A run re-indexed from its log: the entries of every valid record, the log's problems,
 * and `ok: false` when the log is not this tenant's run (it then lists and mints nothing).
 */
export interface SnapEntry extends LogStamp {
  readonly k: 'snap'; readonly r: string; readonly ok: boolean; readonly e: readonly RecordEntry[];
  readonly pr: readonly LogProblem[]; readonly tt: boolean;
}
/** First line of the file. */
export interface HeaderEntry { readonly k: 'hdr'; readonly v: 1; readonly tenant: string; /** Random: names this file (a checkpoint is only used with its own catalog). */ readonly id?: string }
/** Written once the writer that created the file has indexed every log that existed. */
export interface BuiltEntry { readonly k: 'built' }

/** Any catalog line. */
export type CatalogEntry = HeaderEntry | BuiltEntry | DelEntry | SnapEntry | (RecordEntry & LogStamp);

/** One line as written: leading newline, payload, tab, checksum (checkedLines.ts). */
export function encodeLine(entry: CatalogEntry): Buffer {
  return frameLine(Buffer.from(JSON.stringify(entry), 'utf8'));
}

/** A line's entry, or undefined when it is torn, altered or not an entry. `line` excludes the newline. */
export function decodeLine(buf: Buffer, start: number, end: number): CatalogEntry | undefined {
  const payload = unframeLine(buf, start, end);
  if (payload === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(payload.toString('utf8'));
    return v !== null && typeof v === 'object' && typeof (v as { k?: unknown }).k === 'string' ? (v as CatalogEntry) : undefined;
  } catch {
    return undefined;
  }
}

/** The exit value of a command call (its inline `value` attachment), when there is one. */
function exitOf(record: CallFinishedRecord): { x?: number | null; sg?: string | null; to?: boolean; ca?: boolean } {
  const out: { x?: number | null; sg?: string | null; to?: boolean; ca?: boolean } = {};
  const value = record.attachments.find((a) => a.name === 'value' && a.inline !== undefined);
  if (value) {
    try {
      const v = JSON.parse(value.inline!) as { code?: unknown; signal?: unknown; timedOut?: unknown; aborted?: unknown };
      if (typeof v.code === 'number' || v.code === null) out.x = v.code;
      if (typeof v.signal === 'string' || v.signal === null) out.sg = v.signal;
      if (v.timedOut === true) out.to = true;
      if (v.aborted === true) out.ca = true;
    } catch { /* not a command's exit value: nothing to list */ }
  }
  if (record.error?.code === 'timeout') out.to = true;
  if (record.error?.code === 'aborted') out.ca = true;
  return out;
}

/** The entry one log record produces; `at` is where its line starts in the log and `length` its bytes. */
export function entryOf(record: RunRecord, at: number, length: number): RecordEntry {
  switch (record.type) {
    case 'run_started': {
      const src = (record as { source?: unknown }).source;
      return {
        k: 'run', r: record.runId, s: record.startedAt, ph: record.profileHash,
        ...(record.label !== undefined ? { l: record.label } : {}), ...(record.pinned !== undefined ? { p: record.pinned } : {}),
        ...(src !== undefined ? { src } : {}),
      };
    }
    case 'call_started':
      return { k: 'cs', r: record.runId, c: record.callId, t: record.tool, s: record.startedAt };
    case 'call_finished': {
      // Kept bytes a run accounts for in retention: its blobs and the artifact a read names (its bytes live once,
      // in the artifact store; docs/contracts.md §2.7 counts them against the budget like blobs).
      let bb = record.stored === 'blob' || record.stored === 'artifact' ? record.resultBytes : 0;
      for (const a of record.attachments) if (a.stored === 'blob') bb += a.sizeBytes;
      return {
        k: 'cf', r: record.runId, c: record.callId, t: record.tool, s: record.startedAt, f: record.finishedAt, st: record.status,
        ...(record.error ? { e: record.error.code } : {}), ...exitOf(record),
        b: record.resultBytes, bb, sto: record.stored, sha: record.sha256, ...(record.manifestDigest ? { md: record.manifestDigest } : {}), ...(record.resultHandle ? { h: true } : {}),
        a: record.attachments.map((a) => [a.name, a.slot, a.sizeBytes, a.stored] as const), o: at, n: length,
      };
    }
    case 'run_pinned':
      return { k: 'pin', r: record.runId, p: record.pinned };
    case 'run_finished':
      return { k: 'fin', r: record.runId, f: record.finishedAt, st: record.status };
  }
}

/** Handles a call entry stands for (the same strings `handlesOf` gives for its record). */
export function handlesOfEntry(e: CallEntry): string[] {
  const out: string[] = [];
  if (e.h) out.push(`res_${e.c}`);
  for (const [, slot] of e.a) out.push(`out_${e.c}_${slot}`);
  return out;
}

/**
 * One run re-indexed from its parsed log: a log whose first record is not this tenant's
 * `run_started` lists and mints nothing.
 */
export function snapOf(runId: string, tenant: string, log: ReadLogResult, stamp: LogStamp): SnapEntry {
  const first = log.records[0];
  const ok = first?.type === 'run_started' && first.tenant === tenant;
  const e: RecordEntry[] = [];
  if (ok) {
    log.records.forEach((r, i) => {
      const [start, end] = log.spans[i]!;
      e.push(entryOf(r, start, end - start));
    });
  }
  return { k: 'snap', r: runId, ok, e, pr: log.problems, tt: log.tornTail, z: stamp.z, m: stamp.m };
}

/** How a listed call ended, coarsely, for the outcome filter. */
export function outcomeOf(status: string): 'ok' | 'failed' | 'running' {
  return status === 'ok' ? 'ok' : status === 'running' ? 'running' : 'failed';
}

/**
 * The status a call row is filtered by: its recorded status, except that a command
 * recorded `ok` whose exit says it failed (non-zero code, a signal, timed out, cancelled)
 * is listed as `exited` — failed in the outcome filter, as the inspector's badge says
 * (docs/contracts.md §3.4, "Outcome"). Rows show the recorded status (`st`) itself.
 */
export function listedStatus(e: CallEntry): string {
  const failedExit = (typeof e.x === 'number' && e.x !== 0) || (typeof e.sg === 'string' && e.sg !== '') || e.to === true || e.ca === true;
  return e.st === 'ok' && failedExit ? 'exited' : e.st;
}

/** Statuses a run can have once read back (for validation of entries). */
export const RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['running', 'interrupted', 'completed', 'failed', 'cancelled']);
