/**
 * The pattern workers (`patternWorker.ts`, its own bundle): started bare, kept idle between
 * searches, taken and given back by the two ways of searching.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PATTERN_WORKER_MARK } from './patternProtocol.js';

/** Time allowed for the worker isolate to start (machine load, not the pattern). */
export const WORKER_START_MS = 10_000;

/**
 * Idle workers kept between searches (a fresh isolate costs tens of milliseconds, more
 * under tsx): taken by the next search, returned after a clean `done`, terminated after
 * anything else (a timed-out, cancelled or failed worker may still be busy or hold stale
 * messages). Unreferenced while idle, so they never keep a process alive.
 */
const idleWorkers: Worker[] = [];
/** Workers whose isolate has said `ready` (starting is not the pattern's time). */
export const startedWorkers = new WeakSet<Worker>();
/** Idle workers kept: one per lane of a split search (§2.10). */
const MAX_IDLE_WORKERS = 2;

/** An idle worker, or a new one. */
export function acquireWorker(): Worker {
  const w = idleWorkers.pop() ?? startWorker();
  w.ref();
  return w;
}

/** Returns the worker to the idle list, or terminates it (the promise of its end). */
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
 * The worker's entry: the bundle beside this one (`dist/patternWorker.js` next to
 * `dist/extension.js` and `dist/mcp.js`, see esbuild.js), or, when running from source
 * (tests, benchmarks under tsx), the TypeScript file through tsx's require hook. No
 * inspector flags or loaders from the parent: a bare, fast-starting isolate.
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
