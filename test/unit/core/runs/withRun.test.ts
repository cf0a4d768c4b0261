import * as assert from 'node:assert/strict';
import { withRun } from '../../../../src/core/runs/recording/withRun.js';
import type { Run } from '../../../../src/core/runs/recording/run.js';
import type { RunFinishStatus } from '../../../../src/core/runs/types.js';

/** A store whose runs note how they were finished. */
function fakeRuns(finishFails = false): { runs: { startRun(): Promise<Run> }; finished: RunFinishStatus[] } {
  const finished: RunFinishStatus[] = [];
  const run = {
    runId: 'run-x',
    finish: async (status: RunFinishStatus) => {
      finished.push(status);
      if (finishFails) throw new Error('finish failed');
    },
  } as unknown as Run;
  return { runs: { startRun: async () => run }, finished };
}

describe('withRun', () => {
  it('finishes the run with the status the work gave, else failed', async () => {
    const a = fakeRuns();
    assert.equal(
      await withRun(a.runs, {}, async (_run, finishAs) => {
        finishAs('completed');
        return 7;
      }),
      7,
    );
    assert.deepEqual(a.finished, ['completed']);
    const b = fakeRuns();
    await withRun(b.runs, {}, async () => undefined);
    assert.deepEqual(b.finished, ['failed']);
  });

  it('a throw keeps the status set before it and is rethrown', async () => {
    const a = fakeRuns();
    await assert.rejects(
      withRun(a.runs, {}, async (_run, finishAs) => {
        finishAs('cancelled');
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.deepEqual(a.finished, ['cancelled']);
  });

  it('a run that cannot be finished goes to onFinishError, else its error is thrown', async () => {
    const seen: unknown[] = [];
    assert.equal(
      await withRun(
        fakeRuns(true).runs,
        {},
        async () => 1,
        (e) => seen.push(e),
      ),
      1,
    );
    assert.equal(seen.length, 1);
    await assert.rejects(
      withRun(fakeRuns(true).runs, {}, async () => 1),
      /finish failed/,
    );
  });
});
