/**
 * `read_tool_output` (docs/contracts.md §2.5, §2.10, §1.3): one reader for every storage shape, so the model cannot
 * tell which one it reads. The manifest's newline index locates a line and gives `total_lines` without a scan;
 * patterns run in a worker with a time budget; lines that do not fit the bounds are left out whole and `truncated`
 * says so.
 */
import { EvidenceError, ErrorText } from '../../errors.js';
import { locateLine, readVerified, totalNewlines, type Manifest, type RangeSource } from '../../integrity/integrity.js';
import { decodeUtf8Strict } from '../../utf8.js';
import { searchPattern } from '../search/patternSearch.js';
import type { ReadOptions, ReadToolOutputResult, ReaderLimits } from '../types.js';

export const DEFAULT_READER_LIMITS: ReaderLimits = {
  maxContentChars: 10_000,
  maxLineChars: 2_000,
  maxByteWindow: 8_192,
  patternBudgetMs: 2_000,
  searchTimeoutMs: 30_000,
};

export const LINE_CUT_MARKER = '…[line cut]';

export interface ContentView {
  readonly manifest: Manifest;
  readonly source: RangeSource;
  /** Checked against the manifest. */
  readonly lineCount: number;
  readonly binary: boolean;
  /** A capture cap kept only the first `manifest.byteCount` of this many observed bytes. */
  readonly observedBytes?: number;
}

export interface ReadRequest {
  readonly handle: string;
  readonly offset: number;
  readonly limit: number;
  readonly pattern: string | null;
  readonly bytes: { readonly start: number; readonly end: number } | null;
}

const invalid = (message: string): EvidenceError => new EvidenceError('invalidArgument', message);

/**
 * The handle only has to be a string here: an empty, long or unknown one is refused later with the same sentence as
 * any unknown handle.
 */
export function validateReadArgs(args: unknown, limits: ReaderLimits = DEFAULT_READER_LIMITS): ReadRequest {
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw invalid('read_tool_output arguments must be an object');
  const a = args as Record<string, unknown>;
  if (typeof a.handle !== 'string') throw invalid('handle must be a string');
  const offset = a.offset ?? 0;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
    throw invalid('offset must be an integer >= 0');
  const limit = a.limit ?? 200;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
    throw invalid('limit must be an integer from 1 to 1000');
  const pattern = a.pattern === undefined ? null : checkPattern(a.pattern);
  let bytes: ReadRequest['bytes'] = null;
  if (a.bytes !== undefined) {
    if (pattern !== null) throw invalid('bytes cannot be combined with pattern');
    const b = a.bytes as Record<string, unknown> | null;
    if (b === null || typeof b !== 'object' || Array.isArray(b))
      throw invalid('bytes must be an object { start, end }');
    const { start, end } = b;
    if (
      typeof start !== 'number' ||
      typeof end !== 'number' ||
      !Number.isSafeInteger(start) ||
      !Number.isSafeInteger(end)
    )
      throw invalid('bytes.start and bytes.end must be integers');
    if (end - start > limits.maxByteWindow)
      throw new EvidenceError('invalidArgument', `artifact range exceeds ${limits.maxByteWindow} bytes`);
    if (!(start >= 0 && start < end)) throw new EvidenceError('rangeOrder');
    bytes = { start, end };
  }
  return { handle: a.handle, offset, limit, pattern, bytes };
}

export function checkPattern(pattern: unknown): string {
  if (typeof pattern !== 'string' || pattern.length < 1 || pattern.length > 1024)
    throw invalid('pattern must be a string of 1 to 1024 characters');
  try {
    new RegExp(pattern);
  } catch (e) {
    // Keep V8's reason only.
    const reason = String((e as Error).message).replace(/^Invalid regular expression: \/[\s\S]*\/[a-z]*: /, '');
    throw invalid(`pattern is not a valid regular expression: ${reason}`);
  }
  return pattern;
}

export async function readContent(
  view: ContentView,
  req: ReadRequest,
  limits: ReaderLimits = DEFAULT_READER_LIMITS,
  options: ReadOptions = {},
): Promise<ReadToolOutputResult> {
  const { signal, deadline } = options;
  const base = {
    handle: req.handle,
    binary: view.binary,
    total_size_bytes: view.manifest.byteCount,
    total_lines: view.lineCount,
    offset: req.offset,
    limit: req.limit,
    pattern: req.pattern,
    // A capped output says in every reply which bytes exist to be read or searched.
    ...(view.observedBytes !== undefined && {
      kept_bytes: { start: 0, end: view.manifest.byteCount, observed: view.observedBytes },
    }),
  };
  if (req.bytes)
    return { ...base, ...(await bytesWindow(view, req.bytes, limits)), total_matches: null, matches: null };
  if (req.pattern !== null) {
    const r = await searchPattern(view.source, view.manifest, {
      pattern: req.pattern,
      offset: req.offset,
      limit: req.limit,
      maxLineChars: limits.maxLineChars,
      maxContentChars: limits.maxContentChars,
      budgetMs: limits.patternBudgetMs,
      cutMarker: LINE_CUT_MARKER,
      binary: view.binary,
      timeoutMs:
        deadline === undefined
          ? limits.searchTimeoutMs
          : Math.max(1, Math.min(limits.searchTimeoutMs, deadline - Date.now())),
      ...(signal && { signal }),
    });
    return {
      ...base,
      total_matches: r.totalMatches,
      returned_lines: r.matches.length,
      truncated: r.cut || req.offset + r.matches.length < r.totalMatches,
      content: r.matches.map((m) => `${m.line_number}:${m.text}`).join('\n'),
      matches: r.matches.map((m) => ({
        line_number: m.line_number,
        byte_offset: m.byte_offset,
        column: m.column,
        ...(m.window && { window: m.window }),
      })),
    };
  }
  if (view.binary)
    return { ...base, total_matches: null, returned_lines: 0, truncated: false, content: '', matches: null };
  const w = await linesWindow(view, req.offset, req.limit, limits);
  return {
    ...base,
    total_matches: null,
    returned_lines: w.lines.length,
    truncated: w.cut || req.offset + w.lines.length < view.lineCount,
    content: w.lines.join('\n'),
    matches: null,
  };
}

export function checkLineCount(m: Manifest, lineCount: number): void {
  const n = totalNewlines(m);
  const ok = m.byteCount === 0 ? lineCount === 0 : lineCount === n || lineCount === n + 1;
  if (!ok) throw new EvidenceError('digestMismatch');
}

/** So the reply stays under 8 KiB once JSON-escaped. */
const HEX_DUMP_MAX_BYTES = 1024;

/** `hexdump -C` rows. */
export function hexDump(bytes: Uint8Array, offset: number): string {
  const rows: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = bytes.subarray(i, i + 16);
    let hex = '';
    let ascii = '';
    for (let j = 0; j < 16; j++) {
      const b = row[j];
      hex += (j === 8 ? ' ' : '') + (b === undefined ? '   ' : ` ${b.toString(16).padStart(2, '0')}`);
      if (b !== undefined) ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
    }
    rows.push(`${(offset + i).toString(16).padStart(8, '0')} ${hex}  |${ascii}|`);
  }
  return rows.join('\n');
}

async function bytesWindow(
  view: ContentView,
  range: { start: number; end: number },
  limits: ReaderLimits,
): Promise<{ returned_lines: number; truncated: boolean; content: string; hex_dump?: { start: number; end: number } }> {
  // readVerified applies 1.3's remaining order: stored size/digest, then stored byte count.
  const data = await readVerified(view.source, view.manifest, range.start, range.end);
  const more = range.end < view.manifest.byteCount;
  if (view.binary) {
    // Binary: a hex dump, since text would be mojibake.
    const shown = data.subarray(0, HEX_DUMP_MAX_BYTES);
    const content = hexDump(shown, range.start);
    return {
      returned_lines: content === '' ? 0 : content.split('\n').length,
      truncated: more || shown.length < data.length,
      content,
      hex_dump: { start: range.start, end: range.start + shown.length },
    };
  }
  let text: string;
  try {
    text = decodeUtf8Strict(data);
  } catch {
    throw new EvidenceError('rangeNotUtf8', ErrorText.rangeNotUtf8);
  }
  let cut = false;
  if (text.length > limits.maxContentChars) {
    text = sliceChars(text, limits.maxContentChars);
    cut = true;
  }
  const newlines = text.split('\n').length - 1;
  const returned = text.length === 0 ? 0 : newlines + (text.endsWith('\n') ? 0 : 1);
  return { returned_lines: returned, truncated: more || cut, content: text };
}

function sliceChars(text: string, max: number): string {
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

function renderLine(prefix: Uint8Array, complete: boolean, maxLineChars: number): { text: string; cut: boolean } {
  // A cut prefix may end inside a code point: a streaming decoder holds that tail back.
  const text = complete
    ? decodeUtf8Strict(prefix)
    : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(prefix, { stream: true });
  if (complete && text.length <= maxLineChars) return { text, cut: false };
  return { text: sliceChars(text, maxLineChars - LINE_CUT_MARKER.length) + LINE_CUT_MARKER, cut: true };
}

const LINE_WINDOW = 1024 * 1024;

/** The rest of a line longer than the cap is skipped via the newline index: chunks with no newline are not read. */
async function linesWindow(
  view: ContentView,
  offset: number,
  limit: number,
  limits: ReaderLimits,
): Promise<{ lines: string[]; cut: boolean }> {
  const m = view.manifest;
  const lines: string[] = [];
  if (offset >= view.lineCount) return { lines, cut: false };
  const loc = locateLine(m, offset);
  if (!loc) return { lines, cut: false };
  // At most 3 bytes per UTF-16 unit, plus a code point.
  const keepBytes = limits.maxLineChars * 3 + 4;
  let pos = loc.chunk * m.chunkSize;
  let skip = offset - loc.newlinesBefore;
  let chars = 0;
  let anyCut = false;
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  let overflow = false;

  const finishLine = (complete: boolean): boolean => {
    const prefix = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const r = renderLine(prefix, complete && !overflow, limits.maxLineChars);
    parts = [];
    partBytes = 0;
    overflow = false;
    const need = (lines.length ? 1 : 0) + r.text.length;
    if (chars + need > limits.maxContentChars) {
      anyCut = true;
      return false;
    }
    chars += need;
    lines.push(r.text);
    if (r.cut) anyCut = true;
    return lines.length < limit;
  };
  const append = (bytes: Uint8Array): void => {
    if (bytes.length === 0) return;
    if (partBytes >= keepBytes) {
      overflow = true;
      return;
    }
    const take = Math.min(bytes.length, keepBytes - partBytes);
    if (take < bytes.length) overflow = true;
    parts.push(Uint8Array.from(bytes.subarray(0, take)));
    partBytes += take;
  };

  // Start small (a window usually ends within a chunk or two); whole chunks keep `pos` aligned for the jump below.
  const maxWindow = Math.max(1, Math.floor(LINE_WINDOW / m.chunkSize)) * m.chunkSize;
  let window = Math.min(2 * m.chunkSize, maxWindow);
  while (pos < m.byteCount) {
    const end = Math.min(pos + window, m.byteCount);
    window = Math.min(window * 2, maxWindow);
    const got = await readVerified(view.source, m, pos, end);
    const data = Buffer.from(got.buffer, got.byteOffset, got.byteLength);
    let p = 0;
    while (skip > 0) {
      const nl = data.indexOf(10, p);
      if (nl === -1) {
        p = data.length;
        break;
      }
      p = nl + 1;
      skip--;
    }
    if (skip > 0) {
      pos = end;
      continue;
    }
    while (p < data.length) {
      const nl = data.indexOf(10, p);
      if (nl === -1) {
        append(data.subarray(p));
        break;
      }
      append(data.subarray(p, nl));
      p = nl + 1;
      if (!finishLine(true)) return { lines, cut: anyCut };
    }
    pos = end;
    if (overflow) {
      // The current line is already cut: jump to the next chunk that holds a newline.
      let c = Math.ceil(pos / m.chunkSize);
      while (c < m.chunkNewlines.length && m.chunkNewlines[c] === 0) c++;
      pos = Math.min(Math.max(pos, c * m.chunkSize), m.byteCount);
    }
  }
  if (partBytes > 0 || overflow) finishLine(true);
  return { lines, cut: anyCut };
}
