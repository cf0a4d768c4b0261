/**
 * Work over every row of a large store, done in slices so the event loop stays free
 * (docs/architecture.md §6): the catalog, its checkpoint and its queries share these.
 */

/** Lets the event loop run (pings, other requests) between slices of work. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Slices a loop by time, not by a row count: a row's cost varies with cold code, the
 * garbage collector and a loaded machine. `due()` is checked every row (it reads the
 * clock every 256 calls); when it says so, the loop awaits `pause()`.
 */
export class Slicer {
  private start = performance.now();
  private n = 0;
  constructor(private readonly budgetMs = 4) {}
  due(): boolean {
    return (++this.n & 255) === 0 && this.dueNow();
  }
  /** The budget is spent (reads the clock: for loops that check once per batch). */
  dueNow(): boolean {
    return performance.now() - this.start > this.budgetMs;
  }
  async pause(): Promise<void> {
    await yieldToLoop();
    this.start = performance.now();
  }
}
