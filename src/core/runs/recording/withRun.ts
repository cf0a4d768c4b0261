import type { RunFinishStatus } from '../log/records.js';
import type { StartRunOptions } from '../types.js';
import type { Run } from './run.js';

/**
 * Finishes with the status last passed to `finishAs`, else `failed` (a throw included). A finish error goes to
 * `onFinishError` when given, else replaces the work's outcome, as a `finally` does.
 */
export async function withRun<T>(
  runs: { startRun(options: StartRunOptions): Promise<Run> },
  options: StartRunOptions,
  work: (run: Run, finishAs: (status: RunFinishStatus) => void) => Promise<T>,
  onFinishError?: (error: unknown) => unknown,
): Promise<T> {
  const run = await runs.startRun(options);
  let status: RunFinishStatus = 'failed';
  try {
    return await work(run, (s) => {
      status = s;
    });
  } finally {
    if (onFinishError) await run.finish(status).catch(onFinishError);
    else await run.finish(status);
  }
}
