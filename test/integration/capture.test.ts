import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RunCaptureResult } from '../../src/extension/commands/runCommandAndCapture.js';
import { buildLogCommand, evidenceApi, evidenceStorage, listRuns, reference, workspaceDir } from './helpers.js';

describe('Run Command and Capture', () => {
  before(async () => {
    await evidenceApi();
  });

  it('records a multi-megabyte build log with stdout, stderr and exit value attachments, byte for byte', async () => {
    const command = buildLogCommand(30000);
    const ref = reference(command, workspaceDir());
    const result = await vscode.commands.executeCommand<RunCaptureResult>('boundedEvidence.runCommandAndCapture', {
      command,
      openInspector: false,
    });
    assert.ok(result, 'the command returns its summary');
    assert.equal(result.status, 'ok');
    const byName = new Map(result.attachments.map((a) => [a.name, a]));
    assert.deepEqual([...byName.keys()].sort(), ['stderr', 'stdout', 'value']);
    const stdout = byName.get('stdout')!;
    assert.equal(stdout.sizeBytes, ref.stdout.length);
    assert.ok(stdout.sizeBytes > 2_000_000, `multi-megabyte: ${stdout.sizeBytes}`);
    assert.equal(stdout.sha256, ref.sha256);
    assert.equal(stdout.stored, 'blob');
    assert.equal(stdout.truncated, false);
    assert.match(stdout.handle, /^out_[a-z2-7]{26}$/);
    // The run says the palette command started it (docs/contracts.md §2.2.1), so the inspector can filter by it.
    const { storage, tenant } = await evidenceStorage();
    assert.deepEqual((await listRuns(storage, tenant)).find((r) => r.runId === result.runId)?.source, {
      kind: 'command',
    });
    const api = await evidenceApi();
    const value = await api.read({ handle: byName.get('value')!.handle });
    assert.equal(JSON.parse(value.content).code, 1, 'the demo build exits 1');
    const stderr = await api.read({ handle: byName.get('stderr')!.handle });
    assert.equal(stderr.content, ref.stderr.toString('utf8').replace(/\n$/, ''));
    const found = await api.read({ handle: stdout.handle, pattern: 'error TS' });
    assert.equal(found.total_matches, 1);
    assert.equal(found.matches?.[0]?.line_number, 15001);
  });
});
