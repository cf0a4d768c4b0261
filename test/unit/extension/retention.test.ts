import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ArtifactStore } from '../../../src/core/artifacts.js';
import { clearAll } from '../../../src/extension/retention.js';
import { openStore, scratch } from '../runs/helpers.js';

const quiet = { info(): void {}, warn(): void {} };

describe('Clear All (src/extension/retention.ts, docs/contracts.md §2.7)', () => {
  let dir: string; let cleanup: () => void;
  let other: string; let cleanupOther: () => void;
  beforeEach(() => { ({ dir, cleanup } = scratch('clear')); ({ dir: other, cleanup: cleanupOther } = scratch('clear-other')); });
  afterEach(() => { cleanup(); cleanupOther(); });

  it('deletes a run log another process wrote that the catalog has not indexed yet', async () => {
    const store = await openStore(dir);
    await store.catalogSettled();
    const artifactsDir = path.join(dir, 'artifacts');
    mkdirSync(artifactsDir);
    const artifacts = await ArtifactStore.open(artifactsDir);
    const ours = await store.startRun({ label: 'ours' });
    await ours.recordResult('t', {}, 'indexed by this store');
    await ours.finish();
    // Another writer's log lands in the logs folder before any catalog line names it
    // (the window between its log append and its catalog append, or a writer that indexes nothing).
    const writer = await openStore(other);
    const theirs = await writer.startRun({ label: 'theirs' });
    await theirs.recordResult('t', {}, 'written by another process');
    await theirs.finish();
    const logs = path.join(dir, 'logs', 'tenant-a');
    const theirLog = path.join(logs, `${theirs.runId}.jsonl`);
    copyFileSync(path.join(other, 'logs', 'tenant-a', `${theirs.runId}.jsonl`), theirLog);
    const ourLog = path.join(logs, `${ours.runId}.jsonl`);
    const bytes = statSync(ourLog).size + statSync(theirLog).size;
    // The premise: the catalog's pages do not show that run yet.
    assert.deepEqual((await store.queryRuns({ limit: 10 })).map((r) => r.runId), [ours.runId]);

    const report = await clearAll({ runs: store, artifacts }, quiet);
    assert.deepEqual([...report.deletedRuns].sort(), [ours.runId, theirs.runId].sort());
    assert.deepEqual(report.skippedRuns, []);
    assert.equal(report.freedBytes, bytes);
    assert.equal(existsSync(theirLog), false);
    assert.equal(existsSync(ourLog), false);
    const reopened = await openStore(dir);
    assert.deepEqual(await reopened.listRuns(), []);
  });
});
