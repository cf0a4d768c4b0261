const maxLineBack = 4096;

/** The start of the line the head cut, unless that line is long. */
export function gapStart(head: string, headEnd: number): number {
  const cut = head.slice(head.lastIndexOf('\n') + 1);
  const back = new TextEncoder().encode(cut).length;
  return back <= maxLineBack && back <= headEnd ? headEnd - back : headEnd;
}
