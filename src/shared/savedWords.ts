/**
 * The same words in the Savings view and `bounded-evidence stats`: saved counts only outputs a model was handed, so
 * the denominator is said, and a range where nothing reached a model says so.
 */

export interface SavedFigures {
  readonly outputs: number;
  readonly outputBytes: number;
  readonly shownBytes: number;
  readonly readBytes: number;
  readonly savedBytes: number;
}

export function savedWords(f: SavedFigures, bytes: (n: number) => string): string {
  if (f.outputs === 0) return `${bytes(0)}: nothing was recorded in this range`;
  // A capture a person starts never reaches a model, so there is nothing it spared one.
  if (f.shownBytes + f.readBytes === 0) return `${bytes(0)}: no output in this range reached a model`;
  const share = f.outputBytes > 0 ? `${((100 * f.savedBytes) / f.outputBytes).toFixed(1)}%` : '–';
  return (
    `${bytes(f.savedBytes)} (${share} of the ${bytes(f.outputBytes)} of output; ` +
    'an output no model was shown saves nothing)'
  );
}
