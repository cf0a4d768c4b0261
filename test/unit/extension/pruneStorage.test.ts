import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ArtifactStore } from '../../../src/core/artifacts/artifacts.js';
import { FsBlobStore } from '../../../src/core/blobs/fsBlobStore.js';
import { EvidenceToolNames } from '../../../src/core/tools/inputs.js';
import { encodeManifest, manifestOf } from '../../../src/core/integrity/integrity.js';
import { clearAll } from '../../../src/extension/pruneStorage.js';
import type { RunApi } from '../../../src/core/runs/types.js';
import { openStore, scratch, sha } from '../core/runs/helpers.js';

const quiet = { info(): void {}, warn(): void {} };

describe('Clear All (src/extension/pruneStorage.ts, docs/contracts.md §2.7)', () => {
  let dir: string;
  let cleanup: () => void;
  let other: string;
  let cleanupOther: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = scratch('clear'));
    ({ dir: other, cleanup: cleanupOther } = scratch('clear-other'));
  });
  afterEach(() => {
    cleanup();
    cleanupOther();
  });

  it('deletes a run log another process wrote that the catalog has not indexed yet', async () => {
    const store = await openStore(dir);
    await store.catalogSettled();
    const artifacts = new ArtifactStore({ blobs: await FsBlobStore.open(path.join(dir, 'blobs')), tenant: 'tenant-a' });
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
    assert.deepEqual(
      (await store.queryRuns({ limit: 10 })).map((r) => r.runId),
      [ours.runId],
    );

    const report = await clearAll({ runs: store, artifacts }, quiet);
    assert.deepEqual([...report.deletedRuns].sort(), [ours.runId, theirs.runId].sort());
    assert.deepEqual(report.skippedRuns, []);
    assert.equal(report.freedBytes, bytes);
    assert.equal(existsSync(theirLog), false);
    assert.equal(existsSync(ourLog), false);
    const reopened = await openStore(dir);
    assert.deepEqual(await reopened.listRuns(), []);
  });

  /** Records an `evidence_readFile` result as the front ends do: by naming its artifact. */
  async function readInto(run: RunApi, artifacts: ArtifactStore, file: string, text: string): Promise<void> {
    const ref = await artifacts.put(text);
    await run.recordArtifact(
      EvidenceToolNames.readFile,
      { path: file },
      {
        artifactId: ref.artifactId,
        bytes: new TextEncoder().encode(text),
        ...(await artifacts.manifestFor(ref.artifactId)),
      },
    );
  }

  it('deletes the artifacts no remaining run references: one shared by two runs stays until both are gone; an old-layout copy goes too', async () => {
    const blobsDir = path.join(dir, 'blobs');
    const legacyRoot = path.join(dir, 'artifacts');
    const artifacts = new ArtifactStore({ blobs: await FsBlobStore.open(blobsDir), tenant: 'tenant-a', legacyRoot });
    const store = await openStore(dir, { artifacts });
    const shared = 'read by both runs\n'.repeat(100);
    const own = 'read by the first run only\n'.repeat(100);
    const first = await store.startRun({ label: 'first' });
    await readInto(first, artifacts, 'shared.txt', shared);
    await readInto(first, artifacts, 'own.txt', own);
    // A run recorded before the upgrade: its artifact is still in the old layout.
    const legacyText = 'kept in evidence/artifacts before issue 20\n'.repeat(50);
    const legacyId = `artifact-${sha(legacyText)}`;
    mkdirSync(path.join(legacyRoot, 'tenant-a', '.manifests'), { recursive: true });
    writeFileSync(path.join(legacyRoot, 'tenant-a', legacyId), legacyText);
    writeFileSync(
      path.join(legacyRoot, 'tenant-a', '.manifests', `${legacyId}.manifest`),
      encodeManifest(manifestOf(new TextEncoder().encode(legacyText))),
    );
    await first.recordArtifact(
      EvidenceToolNames.readFile,
      { path: 'old.txt' },
      {
        artifactId: legacyId,
        bytes: new TextEncoder().encode(legacyText),
        manifest: manifestOf(new TextEncoder().encode(legacyText)),
        manifestDigest: sha(encodeManifest(manifestOf(new TextEncoder().encode(legacyText)))),
      },
    );
    await first.finish();
    // Still running: Clear All keeps it, and what it references.
    const second = await store.startRun({ label: 'second' });
    await readInto(second, artifacts, 'shared.txt', shared);
    const stored = (): string[] =>
      existsSync(path.join(blobsDir, 'tenant-a', 'artifacts'))
        ? readdirOf(path.join(blobsDir, 'tenant-a', 'artifacts'))
        : [];
    assert.deepEqual(stored(), [sha(shared), `${sha(shared)}._manifest`, sha(own), `${sha(own)}._manifest`].sort());

    const firstBytes = (await store.queryRuns({ limit: 10 })).find((r) => r.runId === first.runId)!.totalBytes;
    const report = await clearAll({ runs: store, artifacts }, quiet);
    assert.deepEqual(report.deletedRuns, [first.runId]);
    assert.deepEqual(report.skippedRuns, [second.runId]);
    assert.equal(report.deletedArtifacts, 2);
    // The run's own bytes as the catalog counts them, plus the two artifacts' exact sizes.
    assert.equal(report.freedBytes, firstBytes + Buffer.byteLength(own) + Buffer.byteLength(legacyText));
    assert.deepEqual(stored(), [sha(shared), `${sha(shared)}._manifest`]);
    assert.equal(existsSync(path.join(legacyRoot, 'tenant-a', legacyId)), false);
    assert.equal(existsSync(path.join(legacyRoot, 'tenant-a', '.manifests', `${legacyId}.manifest`)), false);
    assert.equal(
      new TextDecoder().decode(await artifacts.readRange(`artifact-${sha(shared)}`, 0, 17)),
      'read by both runs',
    );

    await second.finish();
    const again = await clearAll({ runs: store, artifacts }, quiet);
    assert.deepEqual([again.deletedRuns, again.deletedArtifacts], [[second.runId], 1]);
    assert.deepEqual(stored(), []);
    await assert.rejects(
      artifacts.readRange(`artifact-${sha(shared)}`, 0, 1),
      /^EvidenceError: artifact is not available in this store$/,
    );
  });
});

function readdirOf(dir: string): string[] {
  return readdirSync(dir).sort();
}
