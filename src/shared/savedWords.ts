/**
 * The saved figure in words that are true of the figures they summarise, the same in the
 * Savings view and `bounded-evidence stats`: saved counts only outputs a model was handed,
 * so its share is of those outputs' bytes (the denominator is said); outputs no model
 * reached (a person's own captures) are counted apart, and a range where none reached a
 * model says that instead of "0 bytes (0.0%)".
 */

export interface SavedFigures {
  readonly outputs: number;
  readonly outputBytes: number;
  readonly savedBytes: number;
  readonly unreachedOutputs: number;
  readonly unreachedBytes: number;
}

const outputsWord = (n: number): string => `${n.toLocaleString('en-US')} ${n === 1 ? 'output' : 'outputs'}`;

/** Saved as a share of the bytes of the outputs a model reached (`99.4%`); `–` when none did. */
export function savedShare(f: Pick<SavedFigures, 'outputBytes' | 'savedBytes' | 'unreachedBytes'>): string {
  const reached = f.outputBytes - f.unreachedBytes;
  return reached > 0 ? `${((100 * f.savedBytes) / reached).toFixed(1)}%` : '–';
}

/**
 * `514 KiB (99.4% of the 517 KiB of output a model reached); 15 MiB in 2 outputs no model reached (a person's own
 * captures) are counted apart`, sizes by `bytes`.
 */
export function savedWords(f: SavedFigures, bytes: (n: number) => string): string {
  if (f.outputs === 0) return `${bytes(0)}: nothing was recorded in this range`;
  const reached = f.outputs - f.unreachedOutputs;
  // A capture a person starts is for them to read: it never reaches a model, so there is nothing it spared one.
  if (reached === 0)
    return (
      `${bytes(0)}: none of the ${outputsWord(f.outputs)} (${bytes(f.outputBytes)}) reached a model; ` +
      "a person's own captures save nothing"
    );
  const apart =
    f.unreachedOutputs > 0
      ? `; ${bytes(f.unreachedBytes)} in ${outputsWord(f.unreachedOutputs)} no model reached ` +
        "(a person's own captures) counted apart"
      : '';
  const of = bytes(f.outputBytes - f.unreachedBytes);
  return `${bytes(f.savedBytes)} (${savedShare(f)} of the ${of} of output a model reached${apart})`;
}
