import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PATTERN_WORKER_MARK } from './patternProtocol.js';

/** Machine load, not the pattern. */
export const WORKER_START_MS = 10_000;

/**
 * A fresh isolate is costly to start. A timed-out, cancelled or failed worker is terminated, never reused; idle ones
 * are unreferenced so they never keep a process alive.
 */
const idleWorkers: Worker[] = [];
export const startedWorkers = new WeakSet<Worker>();
/** One per lane of a split search. */
const MAX_IDLE_WORKERS = 2;

export function acquireWorker(): Worker {
  const w = idleWorkers.pop() ?? startWorker();
  w.ref();
  return w;
}

export function releaseWorker(w: Worker, clean: boolean): Promise<unknown> {
  w.removeAllListeners('message');
  w.removeAllListeners('error');
  w.removeAllListeners('exit');
  if (clean && idleWorkers.length < MAX_IDLE_WORKERS) {
    idleWorkers.push(w);
    const drop = (): void => {
      const i = idleWorkers.indexOf(w);
      if (i !== -1) idleWorkers.splice(i, 1);
    };
    w.on('error', drop);
    w.on('exit', drop);
    w.unref();
    return Promise.resolve();
  }
  return w.terminate();
}

/**
 * From source (tests, benches), the TypeScript file through tsx. No inspector flags or loaders from the parent: a
 * bare, fast-starting isolate.
 */
function startWorker(): Worker {
  const options = {
    workerData: PATTERN_WORKER_MARK,
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
  };
  const bundled = path.join(__dirname, 'patternWorker.js');
  if (existsSync(bundled)) return new Worker(bundled, options);
  const source = path.join(__dirname, 'patternWorker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { ...options, eval: true });
}
