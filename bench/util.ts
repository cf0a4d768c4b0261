/** Small helpers shared by the benchmarks: timing, medians, RSS sampling, scratch dirs. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';

/** Median of a list of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs `fn` `runs` times and returns each duration in milliseconds. */
export async function timeRuns(runs: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** Samples RSS every few milliseconds while `fn` runs; returns the peak growth in bytes. */
export async function peakRssGrowth(fn: () => Promise<unknown>): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return peak - base;
}

/** A scratch directory under .bench-runs (gitignored), removed by the returned function. */
export function scratchDir(name: string): { dir: string; cleanup: () => void } {
  const base = path.join(__dirname, '..', '.bench-runs');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(path.join(base, `${name}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Formats a ratio line: `label: value (target)`. */
export function report(label: string, value: string, target?: string): void {
  console.log(`${label.padEnd(58)} ${value}${target ? `   [target ${target}]` : ''}`);
}
