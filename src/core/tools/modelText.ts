/** The 8 KiB rule, shared so every front end answers with the same bytes; a cut never splits a code point. */
import { floorCodePointBoundary } from '../utf8.js';

export const MODEL_TEXT_LIMIT_BYTES = 8 * 1024;

/** Never expected with the default settings. */
export const CUT_MARKER = '\n…[cut to stay under 8 KiB; read the rest by handle]';

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function fitsModel(text: string): boolean {
  return utf8Bytes(text) < MODEL_TEXT_LIMIT_BYTES;
}

/** A last resort: each tool sizes its text to fit. */
export function boundModelText(text: string): string {
  if (fitsModel(text)) return text;
  const bytes = Buffer.from(text, 'utf8');
  const room = MODEL_TEXT_LIMIT_BYTES - 1 - utf8Bytes(CUT_MARKER);
  const end = floorCodePointBoundary(bytes, room);
  return bytes.subarray(0, end).toString('utf8') + CUT_MARKER;
}

/** Views ellipsize; the text filter and tooltips need the command whole. */
const RUN_LABEL_CHARS = 400;

export function runLabel(kind: string, subject: string): string {
  const line = subject.replace(/\s+/g, ' ').trim();
  return `${kind}: ${line.length > RUN_LABEL_CHARS ? `${line.slice(0, RUN_LABEL_CHARS - 1)}…` : line}`;
}
