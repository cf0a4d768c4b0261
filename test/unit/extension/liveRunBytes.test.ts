/** A running run's bytes so far: the sum of its running calls' streams, dropped as each call finishes. */
import * as assert from 'node:assert/strict';
import type { RunRecordEvent } from '../../../src/core/index.js';
import { LiveRunBytes } from '../../../src/extension/views/liveRunBytes.js';

const progress = (runId: string, callId: string, stream: 'stdout' | 'stderr', bytes: number) => ({
  runId,
  callId,
  stream,
  bytes,
  tail: new Uint8Array(),
});
const finished = (runId: string, callId: string): RunRecordEvent =>
  ({ runId, record: { type: 'call_finished', runId, callId } }) as unknown as RunRecordEvent;

describe('LiveRunBytes', () => {
  it('sums the streams of a run’s running calls, and only its own', () => {
    const live = new LiveRunBytes();
    assert.equal(live.of('r1'), undefined);
    assert.equal(live.progress(progress('r1', 'c1', 'stdout', 28)), true);
    live.progress(progress('r1', 'c1', 'stderr', 4));
    live.progress(progress('r1', 'c2', 'stdout', 100));
    live.progress(progress('r2', 'c1', 'stdout', 7));
    assert.equal(live.of('r1'), 132);
    assert.equal(live.of('r2'), 7);
    // A stream's figure is its latest total, not added up.
    live.progress(progress('r1', 'c1', 'stdout', 40));
    assert.equal(live.of('r1'), 144);
    assert.equal(live.progress(progress('r1', 'c1', 'stdout', 40)), false);
  });

  it('drops a finished call, and the run once none of its calls runs', () => {
    const live = new LiveRunBytes();
    live.progress(progress('r1', 'c1', 'stdout', 28));
    live.progress(progress('r1', 'c10', 'stdout', 5));
    live.record(finished('r1', 'c1'));
    assert.equal(live.of('r1'), 5);
    live.record(finished('r1', 'c10'));
    assert.equal(live.of('r1'), undefined);
  });
});
