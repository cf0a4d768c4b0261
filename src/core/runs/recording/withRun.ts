/**
 * A run of its own around one piece of work: started, handed to the work, and finished
 * whatever happens, as `failed` unless the work said otherwise.
 */
import type { RunFinishStatus } from '../log/records.js';
import type { StartRunOptions } from '../types.js';
import type { Run } from './run.js';

/**
 * Starts a run, runs `work` in it and finishes it in every case: with the status `work`
 * last passed to `finishAs`, else `failed` (a throw included). A run that cannot be
 * finished goes to `onFinishError` when given, else its error is thrown (replacing the
 * work's own outcome, as a `finally` does).
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
