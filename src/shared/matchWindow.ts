/**
 * Where a pattern match is shown, for the host (which sends that window with a page of
 * matches) and the page (which asks for it when it has none), so both name the same window:
 * the lines around a match in text; in binary content, which has no lines, the byte window
 * around it, drawn as a hex dump of 16-byte rows.
 */

/**
 * The lines window of a match on 1-based line `lineNumber`: `context` lines either side, clipped at the output's start
 * (0-based `offset`).
 */
export function lineMatchWindow(
  lineNumber: number,
  context: number,
): { readonly offset: number; readonly count: number } {
  const line = lineNumber - 1;
  const offset = Math.max(0, line - context);
  return { offset, count: line - offset + context + 1 };
}

/** Bytes shown before a match, and the window's length (16 rows of the hex dump). */
const BEFORE = 64;
const LENGTH = 256;

/**
 * The window of a match at `byteOffset` in `size` bytes: from a 16-byte row a little before it, clipped to the output.
 */
export function binaryMatchWindow(byteOffset: number, size: number): { readonly start: number; readonly end: number } {
  const start = Math.max(0, Math.floor((byteOffset - BEFORE) / 16) * 16);
  return { start, end: Math.max(start + 1, Math.min(size, start + LENGTH)) };
}
