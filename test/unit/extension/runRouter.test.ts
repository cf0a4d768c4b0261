import * as assert from 'node:assert/strict';
import type { Run } from '../../../src/core/index.js';
import { RunRouter } from '../../../src/extension/runRouter.js';

const runA = { runId: 'a' } as Run;
const runB = { runId: 'b' } as Run;

describe("run router (participant calls land in the participant's run)", () => {
  it('hands an announced call to the first claim with the same tool and input, once', () => {
    const r = new RunRouter();
    r.expect('t', { b: 2, a: 1 }, runA);
    assert.equal(r.claim('t', { a: 1, b: 3 }), undefined, 'different input');
    assert.equal(r.claim('u', { a: 1, b: 2 }), undefined, 'different tool');
    assert.equal(r.claim('t', { a: 1, b: 2 }), runA, 'key order does not matter');
    assert.equal(r.claim('t', { a: 1, b: 2 }), undefined, 'claimed once');
  });

  it('queues identical announcements in order, and a withdrawn one is never claimed', () => {
    const r = new RunRouter();
    const first = r.expect('t', {}, runA);
    r.expect('t', {}, runB);
    first.dispose();
    assert.equal(r.claim('t', {}), runB);
    assert.equal(r.claim('t', {}), undefined);
  });
});
