/**
 * Windows read through verified `readRange`, never the whole artifact; text decodes strictly as docs/contracts.md
 * §1.3 does, unless the panel asked to snap inward. Pure, no `vscode`.
 */
import {
  ceilCodePointBoundary,
  decodeUtf8Strict,
  EvidenceError,
  floorCodePointBoundary,
  type HandleSource,
} from '../../core/index.js';
import type { WindowDto } from '../../shared/protocol.js';
import { hexDump } from './excerpt.js';
import type { LineIndex } from './lineIndex.js';

export interface ResolvedWindow {
  readonly start: number;
  readonly end: number;
  readonly bytes: Uint8Array;
  readonly encoding: 'text' | 'hex';
  readonly text: string;
  readonly firstLine?: number;
  readonly lineSpan?: number;
  readonly truncated: boolean;
  readonly note?: string;
}

export type IndexGetter = (opts: { readonly required: boolean }) => Promise<LineIndex | undefined>;

function decodeOrContractError(bytes: Uint8Array): string {
  try {
    return decodeUtf8Strict(bytes);
  } catch {
    throw new EvidenceError('rangeNotUtf8');
  }
}

function lineSpanOf(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let n = 0;
  for (const b of bytes) if (b === 10) n++;
  return bytes[bytes.length - 1] === 10 ? n : n + 1;
}

/** The reply states the exact range it covers. */
export async function resolveBytes(
  src: HandleSource,
  start: number,
  end: number,
  snap: boolean,
  index: IndexGetter,
): Promise<ResolvedWindow> {
  let s = start;
  let e = end;
  let note: string | undefined;
  let bytes: Uint8Array;
  if (snap && !src.binary) {
    e = Math.min(e, src.byteCount);
    if (s >= e) throw pastTheEnd(s, src.byteCount);
    // Three bytes past the end let the floor/ceil scans see the next lead byte.
    const around = await src.readRange(s, Math.min(e + 3, src.byteCount));
    const s2 = ceilCodePointBoundary(around, 0);
    let e2 = floorCodePointBoundary(around, e - s);
    if (e2 <= s2) e2 = ceilCodePointBoundary(around, s2 + 1);
    bytes = around.subarray(s2, e2);
    if (s2 !== 0 || e2 !== e - s || e !== end) note = `adjusted from [${start}, ${end}) to whole characters`;
    e = s + e2;
    s = s + s2;
  } else {
    if (e > src.byteCount) throw pastTheEnd(e, src.byteCount);
    bytes = await src.readRange(s, e);
  }
  if (src.binary) return { start: s, end: e, bytes, encoding: 'hex', text: hexDump(bytes, s), truncated: false };
  const text = decodeOrContractError(bytes);
  const idx = await index({ required: false });
  const firstLine = idx ? await idx.lineAt(s) : undefined;
  return {
    start: s,
    end: e,
    bytes,
    encoding: 'text',
    text,
    firstLine,
    lineSpan: lineSpanOf(bytes),
    truncated: false,
    note,
  };
}

/** A window past the end, with the size it went past (a person can correct the range from it). */
export function pastTheEnd(at: number, byteCount: number): EvidenceError {
  return new EvidenceError(
    'exceedsStored',
    `byte ${at.toLocaleString('en-US')} is past the end: the output holds ${byteCount.toLocaleString('en-US')} bytes`,
  );
}

/** Sentence for a binary artifact asked for lines. */
const binaryHasNoLines = 'binary content has no lines: use a byte window (shown as hex)';

/** Past the last line: an empty window, not an error (docs/contracts.md §2.5). */
export async function resolveLines(
  src: HandleSource,
  offset: number,
  count: number,
  maxBytes: number,
  index: IndexGetter,
): Promise<ResolvedWindow> {
  if (src.binary) throw new EvidenceError('invalidArgument', binaryHasNoLines);
  const idx = await index({ required: true });
  if (!idx) throw new EvidenceError('backend', 'the line index could not be built');
  const range = await idx.linesRange(offset, count);
  if (!range) {
    return {
      start: src.byteCount,
      end: src.byteCount,
      bytes: new Uint8Array(0),
      encoding: 'text',
      text: '',
      firstLine: offset,
      lineSpan: 0,
      truncated: false,
      note: `past the end: the output has ${idx.lineCount} lines`,
    };
  }
  let { end } = range;
  let truncated = false;
  let bytes: Uint8Array;
  if (end - range.start > maxBytes) {
    truncated = true;
    const head = await src.readRange(range.start, range.start + maxBytes + 1);
    const lastNl = head.subarray(0, maxBytes).lastIndexOf(10);
    const cut = lastNl >= 0 ? lastNl + 1 : floorCodePointBoundary(head, maxBytes);
    bytes = head.subarray(0, cut);
    end = range.start + cut;
  } else {
    bytes = await src.readRange(range.start, end);
  }
  const text = decodeOrContractError(bytes);
  return {
    start: range.start,
    end,
    bytes,
    encoding: 'text',
    text,
    firstLine: offset,
    lineSpan: lineSpanOf(bytes),
    truncated,
    note: truncated
      ? `cut at ${maxBytes} bytes (the window cap)`
      : range.lines < count
        ? `the output ends after line ${offset + range.lines}`
        : undefined,
  };
}

export function toWindowDto(src: HandleSource, mode: 'bytes' | 'lines', w: ResolvedWindow): WindowDto {
  return {
    handle: src.handle,
    mode,
    start: w.start,
    end: w.end,
    totalBytes: src.byteCount,
    totalLines: src.lineCount,
    ...(w.firstLine !== undefined ? { firstLine: w.firstLine } : {}),
    encoding: w.encoding,
    text: w.text,
    truncated: w.truncated,
    ...(w.note !== undefined ? { note: w.note } : {}),
  };
}
