/** Shared by host and page so both name the same window; binary content has no lines, so its window is bytes. */

export function lineMatchWindow(
  lineNumber: number,
  context: number,
): { readonly offset: number; readonly count: number } {
  const line = lineNumber - 1;
  const offset = Math.max(0, line - context);
  return { offset, count: line - offset + context + 1 };
}

const BEFORE = 64;
const LENGTH = 256;

export function binaryMatchWindow(byteOffset: number, size: number): { readonly start: number; readonly end: number } {
  const start = Math.max(0, Math.floor((byteOffset - BEFORE) / 16) * 16);
  return { start, end: Math.max(start + 1, Math.min(size, start + LENGTH)) };
}
