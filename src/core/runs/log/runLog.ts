/**
 * The run log (docs/contracts.md §2.2): JSON Lines, append-only, one `write` per record on an O_APPEND descriptor so
 * records never interleave. A torn last line is ignored and reported; a valid last line missing only its `\n` is
 * accepted, because the writer terminates it before appending. Any other bad line is skipped and reported, never a
 * crash.
 */
import { constants as fsConstants, promises as fsp } from 'node:fs';
import { isSafeSegment } from '../../blobs/blobKey.js';
import {
  legacyAttachmentHandle,
  legacyResultHandle,
  MINTED_ATTACHMENT_HANDLE,
  MINTED_RESULT_HANDLE,
} from './handles.js';
import { isRunOwner } from './owner.js';
import type { RunSource, AttachmentRecord, CallFinishedRecord, LogProblem, RunRecord } from './records.js';

export interface ReadLogResult {
  readonly records: RunRecord[];
  /** Newline excluded. */
  readonly spans: [number, number][];
  readonly problems: LogProblem[];
  readonly tornTail: boolean;
  readonly sizeBytes: number;
}

export async function appendRecord(
  file: string,
  record: RunRecord,
  flag: 'a' | 'wx' | 'existing' = 'a',
): Promise<number> {
  const line = Buffer.from(JSON.stringify(record) + '\n');
  // `existing`: a note about a run deleted meanwhile must not make a new log.
  const fh = await fsp.open(file, flag === 'existing' ? fsConstants.O_WRONLY | fsConstants.O_APPEND : flag);
  try {
    let off = 0;
    while (off < line.length) off += (await fh.write(line, off, line.length - off)).bytesWritten;
  } finally {
    await fh.close();
  }
  return line.length;
}

/** The torn bytes then read as one bad line. */
export async function terminateTornTail(file: string): Promise<void> {
  const fh = await fsp.open(file, 'r');
  let needsNewline = false;
  try {
    const { size } = await fh.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      needsNewline = last[0] !== 10;
    }
  } finally {
    await fh.close();
  }
  if (needsNewline) await fsp.appendFile(file, '\n', { flag: 'a' });
}

export async function readRunLog(file: string, runId: string): Promise<ReadLogResult> {
  return parseRunLog(await fsp.readFile(file), runId);
}

/**
 * Split on the byte `\n`, so each record's byte span is known: the catalog reads a record back alone
 * (docs/architecture.md §6).
 */
export function parseRunLog(buf: Buffer, runId: string): ReadLogResult {
  const records: RunRecord[] = [];
  const spans: [number, number][] = [];
  const problems: LogProblem[] = [];
  let tornTail = false;
  const endsClean = buf.length === 0 || buf[buf.length - 1] === 10;
  let start = 0;
  let lineNo = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(10, start);
    const end = nl < 0 ? buf.length : nl;
    lineNo++;
    const isLast = nl < 0 || nl === buf.length - 1;
    const line = buf.toString('utf8', start, end);
    const lineStart = start;
    start = end + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (isLast && !endsClean) {
        tornTail = true;
        problems.push({ line: lineNo, kind: 'torn_tail', detail: 'last line is incomplete (interrupted write)' });
      } else problems.push({ line: lineNo, kind: 'invalid_json', detail: 'line is not JSON' });
      continue;
    }
    const why = checkRecord(value, runId);
    if (why === undefined) {
      records.push(value as RunRecord);
      spans.push([lineStart, end]);
      continue;
    }
    if (isLast && !endsClean) {
      tornTail = true;
      problems.push({ line: lineNo, kind: 'torn_tail', detail: `last line is incomplete: ${why}` });
    } else problems.push({ line: lineNo, kind: 'wrong_shape', detail: why });
  }
  return { records, spans, problems, tornTail, sizeBytes: buf.length };
}

// ---- shape checks -------------------------------------------------------------------

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isIso = (v: unknown): boolean => isStr(v) && !Number.isNaN(Date.parse(v));
const isHex64 = (v: unknown): boolean => isStr(v) && /^[0-9a-f]{64}$/.test(v);
const STORED = new Set(['inline', 'blob', 'artifact', 'preview_only']);
const CALL_STATUS = new Set(['ok', 'error', 'failed']);
const FINISH_STATUS = new Set(['completed', 'failed', 'cancelled', 'interrupted']);
const CALL_ID = /^[a-z0-9-]{1,64}$/;
const SLOT = /^[a-z0-9][a-z0-9-]{0,31}$/;

function firstBad(
  o: Obj,
  fields: Record<string, (v: unknown) => boolean>,
  optional: Record<string, (v: unknown) => boolean> = {},
): string | undefined {
  for (const [k, test] of Object.entries(fields)) if (!test(o[k])) return k;
  for (const [k, test] of Object.entries(optional)) if (o[k] !== undefined && !test(o[k])) return k;
  return undefined;
}

/** docs/contracts.md §2.13. */
function isErrorLines(v: unknown): boolean {
  if (!isObj(v) || !isCount(v.total) || !isStr(v.pattern) || !Array.isArray(v.lines) || v.lines.length > v.total)
    return false;
  if (v.scannedBytes !== undefined && !isCount(v.scannedBytes)) return false;
  return v.lines.every(
    (l: unknown) =>
      isObj(l) &&
      isCount(l.lineNumber) &&
      (l.lineNumber as number) >= 1 &&
      isCount(l.byteOffset) &&
      isStr(l.text) &&
      (l.window === undefined ||
        (isObj(l.window) && isCount(l.window.start) && isCount(l.window.end) && l.window.start <= l.window.end)),
  );
}

function badStoredContent(o: Obj): string | undefined {
  const bad = firstBad(
    o,
    {
      contentType: isStr,
      sha256: isHex64,
      stored: (v) => STORED.has(v as string),
      preview: isStr,
      lineCount: isCount,
      binary: isBool,
      readable: isBool,
    },
    {
      previewRange: (v) => isObj(v) && isCount(v.headEnd) && isCount(v.tailStart) && v.headEnd <= v.tailStart,
      inline: isStr,
      inlineBase64: isStr,
      manifestDigest: isHex64,
      artifactId: (v) => isStr(v) && /^artifact-[0-9a-f]{64}$/.test(v),
      errorLines: isErrorLines,
    },
  );
  if (bad) return bad;
  if (o.stored === 'inline' && o.inline === undefined && o.inlineBase64 === undefined) return 'inline';
  if (o.stored === 'blob' && o.manifestDigest === undefined) return 'manifestDigest';
  if (o.stored === 'artifact' && (o.manifestDigest === undefined || o.artifactId !== `artifact-${o.sha256 as string}`))
    return o.manifestDigest === undefined ? 'manifestDigest' : 'artifactId';
  if (o.stored !== 'artifact' && o.artifactId !== undefined) return 'artifactId';
  return undefined;
}

function badAttachment(a: unknown, callId: string): string | undefined {
  if (!isObj(a)) return 'attachment';
  const bad =
    firstBad(a, {
      name: isStr,
      slot: (v) => isStr(v) && SLOT.test(v),
      handle: isStr,
      sizeBytes: isCount,
      observedBytes: isCount,
      truncated: isBool,
    }) ?? badStoredContent(a);
  if (bad) return `attachment ${bad}`;
  // A minted handle, or the one a record before them derived from its call id and slot.
  if (
    !MINTED_ATTACHMENT_HANDLE.test(a.handle as string) &&
    a.handle !== legacyAttachmentHandle(callId, a.slot as string)
  )
    return 'attachment handle';
  if ((a.observedBytes as number) < (a.sizeBytes as number)) return 'attachment observedBytes';
  return undefined;
}

const SOURCE_KINDS: ReadonlySet<unknown> = new Set<RunSource['kind']>([
  'tool',
  'participant',
  'hook',
  'cli',
  'mcp',
  'command',
  'api',
]);

function isRunSource(x: unknown): boolean {
  return (
    isObj(x) &&
    SOURCE_KINDS.has(x.kind) &&
    (x.agent === undefined || isStr(x.agent)) &&
    (x.sessionId === undefined || isStr(x.sessionId))
  );
}

export function checkRecord(value: unknown, runId: string): string | undefined {
  if (!isObj(value)) return 'record is not an object';
  if (value.runId !== runId) return 'record belongs to another run';
  const v = value;
  let bad: string | undefined;
  switch (v.type) {
    case 'run_started':
      bad = firstBad(
        v,
        { tenant: isSafeSegment, startedAt: isIso, profileHash: isHex64 },
        { label: isStr, pinned: isBool, owner: isRunOwner, source: isRunSource },
      );
      break;
    case 'call_started':
      bad = firstBad(v, {
        callId: (x) => isStr(x) && CALL_ID.test(x),
        tool: isStr,
        arguments: isObj,
        startedAt: isIso,
      });
      break;
    case 'call_finished': {
      bad =
        firstBad(
          v,
          {
            callId: (x) => isStr(x) && CALL_ID.test(x),
            tool: isStr,
            arguments: isObj,
            startedAt: isIso,
            finishedAt: isIso,
            status: (x) => CALL_STATUS.has(x as string),
            resultBytes: isCount,
            elided: isBool,
            attachments: Array.isArray,
          },
          {
            error: (x) => isObj(x) && isStr(x.code) && isStr(x.message),
            resultHandle: (x) =>
              isStr(x) && (MINTED_RESULT_HANDLE.test(x) || x === legacyResultHandle(v.callId as string)),
          },
        ) ?? badStoredContent(v);
      if (!bad) {
        const slots = new Set<string>();
        // A record that gives two of its things one handle mints neither.
        const handles = new Set<unknown>(v.resultHandle === undefined ? [] : [v.resultHandle]);
        for (const a of v.attachments as unknown[]) {
          bad = badAttachment(a, v.callId as string);
          if (bad) break;
          const { slot, handle } = a as AttachmentRecord;
          if (slots.has(slot)) return 'call_finished: attachment slot is repeated';
          if (handles.has(handle)) return 'call_finished: a handle is repeated';
          slots.add(slot);
          handles.add(handle);
        }
      }
      break;
    }
    case 'run_pinned':
      bad = firstBad(v, { pinned: isBool, at: isIso });
      break;
    case 'run_finished':
      bad = firstBad(v, { finishedAt: isIso, status: (x) => FINISH_STATUS.has(x as string) });
      break;
    case 'call_shown':
      bad = firstBad(
        v,
        {
          callId: (x) => isStr(x) && CALL_ID.test(x),
          view: (x) => x === 'answer' || x === 'read',
          bytes: isCount,
          at: isIso,
        },
        { handle: isStr, whole: isBool },
      );
      break;
    default:
      return 'unknown record type';
  }
  return bad === undefined ? undefined : `${v.type as string}: field ${bad} is missing or invalid`;
}

export function handlesOf(record: CallFinishedRecord): string[] {
  const out: string[] = [];
  if (record.resultHandle) out.push(record.resultHandle);
  for (const a of record.attachments) out.push(a.handle);
  return out;
}

/** Nothing when the bytes there are not exactly that record: the catalog is checked, never trusted. */
export async function finishedRecordAt(
  fh: fsp.FileHandle,
  runId: string,
  callId: string,
  offset: number,
  length: number,
): Promise<CallFinishedRecord | undefined> {
  if (length <= 0) return undefined;
  let value: unknown;
  try {
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    value = JSON.parse(buf.toString('utf8', 0, bytesRead));
  } catch {
    return undefined;
  }
  if (checkRecord(value, runId) !== undefined) return undefined;
  const r = value as RunRecord;
  return r.type === 'call_finished' && r.callId === callId ? r : undefined;
}
