/**
 * The 8 KiB rule on model-facing text, shared by every front end (the editor's language
 * model tools and the MCP server), so both answer with the same bytes: sizes are UTF-8
 * bytes, and a cut never splits a code point.
 */
import { floorCodePointBoundary } from '../utf8.js';

/** The model-facing text of every tool stays under this many bytes (editor contract). */
export const MODEL_TEXT_LIMIT_BYTES = 8 * 1024;

/** Appended when a text had to be cut to fit (never expected with the default settings). */
export const CUT_MARKER = '\n…[cut to stay under 8 KiB; read the rest by handle]';

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** True when `text` fits the model-facing limit (strictly under 8 KiB). */
export function fitsModel(text: string): boolean {
  return utf8Bytes(text) < MODEL_TEXT_LIMIT_BYTES;
}

/**
 * `text` unchanged when it fits; otherwise its longest prefix (cut between code points)
 * that fits together with `CUT_MARKER`. A last resort: each tool sizes its text to fit.
 */
export function boundModelText(text: string): string {
  if (fitsModel(text)) return text;
  const bytes = Buffer.from(text, 'utf8');
  const room = MODEL_TEXT_LIMIT_BYTES - 1 - utf8Bytes(CUT_MARKER);
  const end = floorCodePointBoundary(bytes, room);
  return bytes.subarray(0, end).toString('utf8') + CUT_MARKER;
}

/**
 * Characters of a run label's subject: a whole command line as people type them (views ellipsize; the text filter and
 * tooltips need it whole).
 */
const RUN_LABEL_CHARS = 400;

/** A run's label: the kind of call and one line of its subject (at most RUN_LABEL_CHARS characters). */
export function runLabel(kind: string, subject: string): string {
  const line = subject.replace(/\s+/g, ' ').trim();
  return `${kind}: ${line.length > RUN_LABEL_CHARS ? `${line.slice(0, RUN_LABEL_CHARS - 1)}…` : line}`;
}
