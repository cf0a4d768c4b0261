/**
 * A window of an output a person names, with the one check of it, so every way in refuses a bad window with the same
 * sentence (docs/contracts.md §3.4). No `vscode`: unit tests import it.
 */
import type { HandleSource } from '../../core/index.js';
import type { ExcerptRangeDto } from '../../shared/protocol.js';

type OutputShape = Pick<HandleSource, 'handle' | 'byteCount' | 'binary' | 'lineCount'>;

/** Lines 1-based, inclusive. */
export type ExcerptWindow =
  | { readonly bytes: { readonly start: number; readonly end: number } }
  | { readonly lines: { readonly first: number; readonly last: number } };

export type LinkWindow =
  { readonly line: number; readonly endLine?: number } | { readonly start: number; readonly end: number };

/** `allowEmpty`: `[0, 0)` of an empty output is a window (Compare). */
export function windowProblem(src: OutputShape, w: ExcerptWindow, allowEmpty = false): string | undefined {
  if ('bytes' in w) {
    const { start, end } = w.bytes;
    if (allowEmpty && start === 0 && end === 0 && src.byteCount === 0) return undefined;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start)
      return 'a byte range needs 0 ≤ start < end';
    if (end > src.byteCount)
      return `${src.handle} has ${src.byteCount} byte(s); bytes ${start}-${end} lie past its end`;
    return undefined;
  }
  const { first, last } = w.lines;
  if (src.binary) return `${src.handle} is binary: it has no lines; give bytes START-END`;
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first < 1 || last < first)
    return 'a line range needs 1 ≤ first ≤ last';
  const count = Math.max(1, src.lineCount);
  if (last > count) return `${src.handle} has ${count} line(s); line ${last} does not exist`;
  return undefined;
}

export function linkedWindow(src: OutputShape, w: LinkWindow): ExcerptRangeDto | string {
  if ('line' in w) {
    const last = w.endLine ?? w.line;
    return (
      windowProblem(src, { lines: { first: w.line, last } }) ?? {
        kind: 'lines',
        offset: w.line - 1,
        count: last - w.line + 1,
      }
    );
  }
  return windowProblem(src, { bytes: { start: w.start, end: w.end } }) ?? { kind: 'bytes', start: w.start, end: w.end };
}
