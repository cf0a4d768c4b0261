/** The gap's window start, pure (no DOM). */

/** A cut line longer than this is not read again from its start. */
const maxLineBack = 4096;

/**
 * Where the gap's window starts: at the start of the line the head cut (its first bytes read again), so the window
 * never opens mid-line; at the cut itself when the head ends a line or the cut line is long.
 */
export function gapStart(head: string, headEnd: number): number {
  const cut = head.slice(head.lastIndexOf('\n') + 1);
  const back = new TextEncoder().encode(cut).length;
  return back <= maxLineBack && back <= headEnd ? headEnd - back : headEnd;
}
