/** The list gets no preview text, so 10,000 rows stay small. Pure, no `vscode`. */
import type {
  AttachmentRecord,
  CallFinishedRecord,
  CallReport,
  CallStartedRecord,
  ErrorLines,
  PreviewRange,
  RunSummary,
} from '../../core/index.js';
import type { CallDto, PartDto, PreviewDto, RunDto } from '../../shared/protocol.js';

const argsSummaryChars = 160;

export function toRunDto(r: RunSummary): RunDto {
  return {
    runId: r.runId,
    ...(r.label !== undefined ? { label: r.label } : {}),
    startedAt: r.startedAt,
    ...(r.finishedAt !== undefined ? { finishedAt: r.finishedAt } : {}),
    status: r.status,
    pinned: r.pinned,
    callCount: r.callCount,
    failedCalls: r.failedCalls,
    totalBytes: r.totalBytes,
    outputBytes: r.outputBytes,
    source: sourceLabel(r.source),
    ...(r.store !== undefined ? { store: r.store } : {}),
  };
}

/** Older logs have no source and were tool runs. */
export function sourceLabel(source: RunSummary['source']): string {
  if (!source) return 'tool';
  return source.kind === 'hook' && source.agent ? `hook:${source.agent}` : source.kind;
}

export function summarizeArgs(args: Record<string, unknown>): string {
  let s: string;
  try {
    s = JSON.stringify(args) ?? '';
  } catch {
    s = '';
  }
  return s.length > argsSummaryChars ? `${s.slice(0, argsSummaryChars - 1)}…` : s;
}

export function attachmentPart(a: AttachmentRecord): PartDto {
  return {
    name: a.name,
    handle: a.handle,
    sizeBytes: a.sizeBytes,
    observedBytes: a.observedBytes,
    truncated: a.truncated,
    sha256: a.sha256,
    stored: a.stored,
    contentType: a.contentType,
    lineCount: a.lineCount,
    binary: a.binary,
    readable: a.readable,
  };
}

export type OutcomeFields = Pick<CallDto, 'exitCode' | 'signal' | 'timedOut' | 'cancelled'>;

/**
 * A non-zero exit shows although the call itself is `ok` (the command ran and was recorded). Anything else gives no
 * fields: older logs and other tools show their status.
 */
export function outcomeFields(attachments: readonly AttachmentRecord[]): OutcomeFields {
  const value = attachments.find((a) => a.name === 'value');
  const text = value?.inline ?? value?.preview;
  if (!text) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof v !== 'object' || v === null) return {};
  const o = v as Record<string, unknown>;
  const out: { exitCode?: number | null; signal?: string | null; timedOut?: boolean; cancelled?: boolean } = {};
  if (o.code === null || (typeof o.code === 'number' && Number.isInteger(o.code))) out.exitCode = o.code;
  if (o.signal === null || typeof o.signal === 'string') out.signal = o.signal;
  if (o.timedOut === true) out.timedOut = true;
  if (o.aborted === true) out.cancelled = true;
  return out;
}

export function callFromReport(r: CallReport): CallDto {
  return {
    runId: r.runId,
    callId: r.callId,
    tool: r.tool,
    argsSummary: summarizeArgs(r.arguments),
    status: r.status,
    ...(r.error ? { errorMessage: r.error.message } : {}),
    ...outcomeFields(r.attachments),
    startedAt: r.startedAt,
    ...(r.finishedAt !== undefined ? { finishedAt: r.finishedAt } : {}),
    result: {
      name: 'result',
      ...(r.handle !== undefined ? { handle: r.handle } : {}),
      sizeBytes: r.resultBytes,
      ...(r.sha256 !== undefined ? { sha256: r.sha256 } : {}),
      ...(r.stored !== undefined ? { stored: r.stored } : {}),
      ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
      ...(r.lineCount !== undefined ? { lineCount: r.lineCount } : {}),
      binary: r.binary,
      readable: r.readable,
    },
    attachments: r.attachments.map(attachmentPart),
    ...(r.store !== undefined ? { store: r.store } : {}),
  };
}

/** Started calls show as running until finished. */
export function callFromRecord(r: CallStartedRecord | CallFinishedRecord): CallDto {
  if (r.type === 'call_started') {
    return {
      runId: r.runId,
      callId: r.callId,
      tool: r.tool,
      argsSummary: summarizeArgs(r.arguments),
      status: 'running',
      startedAt: r.startedAt,
      result: { name: 'result', sizeBytes: 0, binary: false, readable: false },
      attachments: [],
    };
  }
  return {
    runId: r.runId,
    callId: r.callId,
    tool: r.tool,
    argsSummary: summarizeArgs(r.arguments),
    status: r.status,
    ...(r.error ? { errorMessage: r.error.message } : {}),
    ...outcomeFields(r.attachments),
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    result: {
      name: 'result',
      ...(r.resultHandle !== undefined ? { handle: r.resultHandle } : {}),
      sizeBytes: r.resultBytes,
      sha256: r.sha256,
      stored: r.stored,
      contentType: r.contentType,
      lineCount: r.lineCount,
      binary: r.binary,
      readable: r.readable,
    },
    attachments: r.attachments.map(attachmentPart),
  };
}

/** When the byte counts do not fit the preview, the whole preview is returned. */
export function splitPreview(
  preview: string,
  range: PreviewRange | undefined,
  size: number,
  errors?: ErrorLines,
): PreviewDto {
  // The error lines the first view showed before the preview (docs/contracts.md §2.13).
  const marked = errors
    ? {
        errorLines: {
          total: errors.total,
          lines: errors.lines.map((l) => ({ lineNumber: l.lineNumber, byteOffset: l.byteOffset, text: l.text })),
        },
      }
    : {};
  return { ...split(preview, range, size), ...marked };
}

function split(preview: string, range: PreviewRange | undefined, size: number): PreviewDto {
  if (!range || range.tailStart <= range.headEnd) return { text: preview };
  const bytes = new TextEncoder().encode(preview);
  const tailBytes = size - range.tailStart;
  if (range.headEnd + tailBytes > bytes.length || tailBytes < 0) return { text: preview };
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return {
      text: preview,
      head: decoder.decode(bytes.subarray(0, range.headEnd)),
      tail: decoder.decode(bytes.subarray(bytes.length - tailBytes)),
      headEnd: range.headEnd,
      tailStart: range.tailStart,
    };
  } catch {
    return { text: preview };
  }
}
