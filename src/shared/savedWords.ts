/**
 * The saved figure in words that are true of the figures they summarise, the same in the
 * Savings view and `bounded-evidence stats`: saved counts only outputs a model was handed,
 * so its share is of every output byte (the denominator is said), and a range where no
 * output reached a model says that instead of "0 bytes (0.0%)".
 */

/** The figures the sentence needs (a subset of the core's `UsageFigures`). */
export interface SavedFigures {
  readonly outputs: number;
  readonly outputBytes: number;
  readonly shownBytes: number;
  readonly readBytes: number;
  readonly savedBytes: number;
}

/** `514 KiB (99.4% of the 517 KiB of output; an output no model was shown saves nothing)`, sizes by `bytes`. */
export function savedWords(f: SavedFigures, bytes: (n: number) => string): string {
  if (f.outputs === 0) return `${bytes(0)}: nothing was recorded in this range`;
  // A capture a person starts is for them to read: it never reaches a model, so there is nothing it spared one.
  if (f.shownBytes + f.readBytes === 0) return `${bytes(0)}: no output in this range reached a model`;
  const share = f.outputBytes > 0 ? `${((100 * f.savedBytes) / f.outputBytes).toFixed(1)}%` : '–';
  return (
    `${bytes(f.savedBytes)} (${share} of the ${bytes(f.outputBytes)} of output; ` +
    'an output no model was shown saves nothing)'
  );
}
