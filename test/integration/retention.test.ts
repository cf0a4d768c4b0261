import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { layoutOfFolder, RunStore } from '../../src/core/index.js';
import type { RetentionReport } from '../../src/extension/pruneStorage.js';
import { evidenceApi, evidenceStorage, invoke, workspaceDir } from './helpers.js';

const clearAll = 'boundedEvidence.clearAll';
const prune = 'boundedEvidence.pruneStorage';
const denied = 'error: access denied: unknown or expired handle';

async function readable(handle: string): Promise<boolean> {
  const r = await invoke('read_tool_output', { handle, limit: 1 });
  if (r === denied) return false;
  JSON.parse(r);
  return true;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('retention and clearing', () => {
  it('Clear All Evidence deletes nothing without its modal confirmation, everything with it', async () => {
    const api = await evidenceApi();
    const { handle } = await api.record('t', {}, 'z'.repeat(50_000));
    await vscode.workspace.fs.writeFile(
      vscode.Uri.file(path.join(workspaceDir(), 'logs', 'retention.log')),
      Buffer.from('retained?\n'.repeat(10_000)),
    );
    const artifact = /"artifact_id":"(artifact-[0-9a-f]{64})"/.exec(
      await invoke('evidence_readFile', { path: 'logs/retention.log' }),
    )?.[1];
    assert.ok(artifact, 'the file became an artifact');
    assert.match(
      await invoke('evidence_readFile', { path: `.tool-artifacts/${artifact}/bytes/0-10` }),
      /^Artifact range:/,
    );
    // The test host refuses modal dialogs: an unconfirmed clear must keep everything.
    assert.equal(await vscode.commands.executeCommand<RetentionReport | undefined>(clearAll), undefined);
    assert.ok(await readable(handle!));
    const report = await vscode.commands.executeCommand<RetentionReport>(clearAll, { confirmed: true });
    assert.ok(report.deletedRuns.length >= 1);
    assert.ok(report.freedBytes >= 50_000);
    assert.equal(await readable(handle!), false);
    // The artifact's only run is gone, so the artifact is deleted with it.
    assert.equal(
      await invoke('evidence_readFile', { path: `.tool-artifacts/${artifact}/bytes/0-10` }),
      'error: artifact is not available in this store',
    );
    assert.ok(report.deletedArtifacts >= 1);
  });

  it('Clear All Evidence deletes a run log another process wrote before the catalog indexed it', async () => {
    const { storage, tenant } = await evidenceStorage();
    const logs = path.join(layoutOfFolder(storage, false).logsDir, tenant);
    // Another writer (an MCP server, the command line) has appended its log but not yet its catalog line.
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'other-writer-'));
    try {
      const writer = await RunStore.open({ logsDir: elsewhere, tenant });
      const run = await writer.startRun({ label: 'another process' });
      await run.recordResult('t', {}, 'not yet in the catalog');
      await run.finish();
      const log = path.join(logs, `${run.runId}.jsonl`);
      copyFileSync(path.join(elsewhere, tenant, `${run.runId}.jsonl`), log);
      const report = await vscode.commands.executeCommand<RetentionReport>(clearAll, { confirmed: true });
      assert.ok(report.deletedRuns.includes(run.runId), `deleted ${report.deletedRuns.join(', ')}`);
      assert.equal(existsSync(log), false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('prunes oldest unpinned finished runs first, to the budget, never pinned or running ones, and reports what it freed', async function () {
    this.timeout(60_000);
    const api = await evidenceApi();
    await vscode.commands.executeCommand(clearAll, { confirmed: true });
    const make = async (
      label: string,
      bytes: number,
      finish = true,
    ): Promise<{ runId: string; handle: string; finish(): Promise<void> }> => {
      const run = await api.startRun(label);
      const r = await run.record('t', { label }, `${label}\n`.repeat(Math.ceil(bytes / (label.length + 1))));
      if (finish) await run.finish();
      await pause(15);
      return { runId: run.runId, handle: r.handle!, finish: () => run.finish() };
    };
    const old = await make('old', 3_000_000);
    const pinned = await make('pinned', 3_000_000);
    await api.setPinned(pinned.runId, true);
    const running = await make('running', 3_000_000, false);
    const mid = await make('mid', 100_000);
    const newest = await make('newest', 100_000);
    try {
      // Budget 6.5 MB: pinned + running alone are 6 MB, so deleting "old" (3 MB) is enough.
      const byBudget = await vscode.commands.executeCommand<RetentionReport>(prune, {
        maxBytes: 6_500_000,
        maxAgeMs: 0,
      });
      assert.deepEqual(byBudget.deletedRuns, [old.runId]);
      assert.ok(byBudget.freedBytes >= 3_000_000 && byBudget.freedBytes < 3_100_000, `freed ${byBudget.freedBytes}`);
      assert.deepEqual(await Promise.all([old, pinned, running, mid, newest].map((r) => readable(r.handle))), [
        false,
        true,
        true,
        true,
        true,
      ]);
      // A budget of one byte deletes every finished unpinned run, oldest first, and nothing else.
      const all = await vscode.commands.executeCommand<RetentionReport>(prune, { maxBytes: 1, maxAgeMs: 0 });
      assert.deepEqual(all.deletedRuns, [mid.runId, newest.runId]);
      assert.deepEqual(await Promise.all([pinned, running].map((r) => readable(r.handle))), [true, true]);
      // Age: a finished unpinned run older than the limit goes; the running one stays even when old.
      await running.finish();
      const later = await make('later', 1000);
      const byAge = await vscode.commands.executeCommand<RetentionReport>(prune, {
        maxBytes: 0,
        maxAgeMs: 60_000,
        now: Date.now() + 120_000,
      });
      assert.deepEqual([...byAge.deletedRuns].sort(), [running.runId, later.runId].sort());
      assert.equal(await readable(pinned.handle), true);
    } finally {
      await api.setPinned(pinned.runId, false);
      await running.finish();
    }
  });
});
