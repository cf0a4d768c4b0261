/**
 * What the model reads instead of a large result: bounded by the preview plus a few hundred bytes; never a host path.
 */
import type { AttachmentRecord, CallFinishedRecord, ErrorLines } from '../log/records.js';

/** The shapes and units of the three ways to read are in the tool's input schema (docs/contracts.md §3.2). */
function howToRead(handle: string): string {
  return `Read more: read_tool_output {"handle":"${handle}"} with "pattern" (regex), "offset"/"limit" or "bytes"`;
}

export function searchHint(handle: string): string {
  return `Searchable by line or pattern: read_tool_output {"handle":"${handle}"}`;
}

function lineWord(n: number): string {
  return n === 1 ? '1 line' : `${n} lines`;
}

function shape(c: { lineCount: number; binary: boolean; sha256: string }): string {
  return c.binary ? `binary, sha256 ${c.sha256}` : `${lineWord(c.lineCount)}, sha256 ${c.sha256}`;
}

function previewBlock(preview: string, binary: boolean): string {
  if (binary) return 'Binary content is not shown as text.';
  return `Preview:\n${preview}`;
}

/** docs/contracts.md §2.13. */
export function errorBlock(e: ErrorLines, handle: string | undefined): string {
  const within = e.scannedBytes !== undefined ? ` in the first ${e.scannedBytes} bytes` : '';
  const lines = [`Error lines (${e.lines.length} of ${e.total}${within}):`];
  for (const l of e.lines) lines.push(`line ${l.lineNumber}, byte ${l.byteOffset}: ${l.text}`);
  // A union of many rules can outgrow read_tool_output's pattern limit (§2.5): then no call is offered.
  if (handle !== undefined && e.total > e.lines.length && e.pattern.length <= 1024) {
    lines.push(`More: read_tool_output ${JSON.stringify({ handle, pattern: e.pattern, offset: e.lines.length })}`);
  }
  return lines.join('\n');
}

function errorsBefore(c: { errorLines?: ErrorLines }, handle: string | undefined): string {
  return c.errorLines ? `${errorBlock(c.errorLines, handle)}\n` : '';
}

export function resultObservation(r: CallFinishedRecord): string {
  if (!r.elided) return r.preview;
  if (r.stored === 'preview_only') {
    const shown = r.previewRange ? r.previewRange.headEnd + (r.resultBytes - r.previewRange.tailStart) : 0;
    return (
      `Tool result not kept: ${r.resultBytes} bytes (${shape(r)}) need a blob store and none is configured; ` +
      `${r.resultBytes - shown} bytes were let go.\n` +
      `${errorsBefore(r, undefined)}${previewBlock(r.preview, r.binary)}`
    );
  }
  return (
    `Tool result elided: ${r.resultBytes} bytes (${shape(r)}), handle ${r.resultHandle}.\n` +
    `${howToRead(r.resultHandle ?? '')}\n` +
    `${errorsBefore(r, r.resultHandle)}${previewBlock(r.preview, r.binary)}`
  );
}

export interface AttachmentView {
  readonly attachment: AttachmentRecord;
  readonly whole: boolean;
}

function previewShown(a: AttachmentRecord): number {
  return a.previewRange
    ? a.previewRange.headEnd + (a.sizeBytes - a.previewRange.tailStart)
    : a.binary
      ? 0
      : a.sizeBytes;
}

function attachmentBlock(v: AttachmentView): string {
  const a = v.attachment;
  if (a.observedBytes === 0) return `${a.name}: empty`;
  const parts = [`${a.name}: ${a.sizeBytes} bytes`, a.binary ? 'binary' : lineWord(a.lineCount)];
  if (a.truncated) parts.push(`truncated at the capture cap (${a.observedBytes} bytes observed)`);
  if (!a.readable) {
    parts.push(`not kept (no blob store): ${a.observedBytes - previewShown(a)} bytes were let go`);
  } else if (!v.whole) parts.push(`handle ${a.handle}`);
  const head = parts.join(', ');
  if (a.binary) return `${head}\nBinary content is not shown as text.`;
  if (v.whole) return `${head}:\n${a.preview}`;
  return a.errorLines
    ? `${head}. ${errorBlock(a.errorLines, a.readable ? a.handle : undefined)}\nPreview:\n${a.preview}`
    : `${head}. Preview:\n${a.preview}`;
}

export function lostBytesOf(a: AttachmentRecord): number {
  return !a.readable ? a.observedBytes - previewShown(a) : a.truncated ? a.observedBytes - a.sizeBytes : 0;
}

function letGo(views: readonly AttachmentView[]): string | undefined {
  let lost = 0;
  let observed = 0;
  const names: string[] = [];
  for (const { attachment: a } of views) {
    if (a.name === 'value') continue;
    const n = lostBytesOf(a);
    if (n > 0) {
      lost += n;
      observed += a.observedBytes;
      names.push(a.name);
    }
  }
  return lost
    ? `warning: ${lost} of ${observed} output bytes were let go (${names.join(', ')}); ` +
        `reads and searches cover only what was kept`
    : undefined;
}

export interface CommandEnd {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly timeoutMs?: number;
  readonly aborted: boolean;
  readonly failure?: string;
  readonly strays?: readonly { readonly pid: number; readonly name: string; readonly ended: boolean }[];
  readonly pipesAbandoned?: boolean;
}

function strayLines(end: CommandEnd): string[] {
  const list = (ps: readonly { pid: number; name: string }[]): string =>
    ps.map((p) => `${p.name} (pid ${p.pid})`).join(', ');
  const plural = (n: number): string => (n === 1 ? 'process' : 'processes');
  const ended = (end.strays ?? []).filter((p) => p.ended);
  const alive = (end.strays ?? []).filter((p) => !p.ended);
  const lines: string[] = [];
  if (ended.length) lines.push(`ended ${ended.length} ${plural(ended.length)} left in another session: ${list(ended)}`);
  if (alive.length)
    lines.push(
      `could not end ${alive.length} ${plural(alive.length)} left in another session (still running): ${list(alive)}`,
    );
  if (end.pipesAbandoned)
    lines.push('output was still held open by a process out of reach: reading stopped; the bytes up to then are kept');
  return lines;
}

function endLine(end: CommandEnd): string {
  if (end.timedOut) return `killed: timed out after ${end.timeoutMs} ms`;
  if (end.aborted) return 'killed: cancelled';
  if (end.signal) return `killed by ${end.signal}`;
  return `exit code ${end.code}`;
}

/** This is the call's recorded result. */
export function commandSummary(
  command: string,
  end: CommandEnd,
  views: readonly AttachmentView[],
  missingFiles: readonly string[],
): string {
  const shown = command.length > 200 ? `${command.slice(0, 200)}…` : command;
  // A failure comes first, so the result reads as an error (an MCP client sees isError).
  const lines = end.failure ? [`error: ${end.failure}`, `$ ${shown}`] : [`$ ${shown}`, endLine(end)];
  // Bytes let go come right after any failure: no later line may suggest the output is whole (docs/contracts.md
  // §2.10).
  const lost = letGo(views);
  if (lost) lines.splice(end.failure ? 1 : 0, 0, lost);
  lines.push(...strayLines(end));
  for (const v of views) if (v.attachment.name !== 'value') lines.push(attachmentBlock(v));
  for (const f of missingFiles) lines.push(`file:${f}: not found`);
  const handles = views.filter((v) => !v.whole && v.attachment.readable).map((v) => v.attachment.handle);
  if (handles.length) lines.push(howToRead(handles[0]!));
  return lines.join('\n');
}
