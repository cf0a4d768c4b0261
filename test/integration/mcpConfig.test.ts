import * as assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ArtifactStore, FsBlobStore, layoutOfFolder, MCP_HTTP_INFO_FILE, RunStore } from '../../src/core/index.js';
import { evidenceApi, invoke, repoRoot, workspaceDir } from './helpers.js';

describe('Copy MCP Server Configuration, and evidence shared with the server', () => {
  let args: string[];
  before(async () => {
    await evidenceApi();
    await vscode.env.clipboard.writeText('');
    const returned = await vscode.commands.executeCommand<string>('boundedEvidence.copyMcpConfig');
    const copied = await vscode.env.clipboard.readText();
    assert.equal(copied, returned);
    const config = JSON.parse(copied) as { mcpServers: Record<string, { command: string; args: string[] }> };
    assert.deepEqual(Object.keys(config.mcpServers), ['bounded-evidence']);
    assert.equal(config.mcpServers['bounded-evidence']!.command, 'node');
    args = config.mcpServers['bounded-evidence']!.args;
  });

  it('copies node <extension>/dist/mcp.js --storage <this storage> --workspace <folder> --tenant <tenant>', () => {
    const storage = args[2]!;
    // The storage folder is this extension's workspace storage, already holding its evidence,
    // and the tenant is the one the server would derive from it: the same derivation, not a copy.
    assert.equal(path.basename(storage), 'bounded-evidence.bounded-evidence');
    const tenant = layoutOfFolder(storage, false).tenant;
    assert.ok(existsSync(path.join(storage, 'evidence', 'logs', tenant)));
    assert.deepEqual(args, [
      path.join(repoRoot(), 'dist', 'mcp.js'),
      '--storage',
      storage,
      '--workspace',
      workspaceDir(),
      '--tenant',
      tenant,
    ]);
  });

  it('reads at once an artifact another process put (a key of the tenant in the shared blob store, nothing to learn)', async () => {
    const layout = layoutOfFolder(args[2]!, false);
    // What the server does on a large evidence_readFile: store the artifact, record the call.
    const blobs = await FsBlobStore.open(layout.blobsDir);
    const runs = await RunStore.open({ logsDir: layout.logsDir, tenant: args[6]!, blobs });
    const artifacts = new ArtifactStore({ blobs, tenant: args[6]! });
    const text = `mcp side ${Date.now()}\n`.repeat(500);
    const ref = await artifacts.put(text);
    const run = await runs.startRun({ label: 'mcp read: elsewhere.txt' });
    await run.recordResult('evidence_readFile', { path: 'elsewhere.txt' }, text);
    await run.finish();
    const reply = await invoke('evidence_readFile', { path: `.tool-artifacts/${ref.artifactId}/bytes/0-10` });
    assert.equal(
      reply,
      `Artifact range:\n{"artifact_id":"${ref.artifactId}","byte_count":10,"data":${JSON.stringify(text.slice(0, 10))},"end":10,"sha256":"${ref.sha256}","start":0,"total_byte_count":${Buffer.byteLength(text)}}`,
    );
  });
  it('adds an entry by URL and bearer token while `mcp --http` runs on this storage (its mcp-http.json), none once its process is gone', async () => {
    const info = path.join(args[2]!, MCP_HTTP_INFO_FILE);
    const token = 'ab'.repeat(32);
    try {
      // A live process (this one) stands for the server; the file is what serveHttp writes.
      writeFileSync(info, JSON.stringify({ url: 'http://127.0.0.1:8765/mcp', token, pid: process.pid }), {
        mode: 0o600,
      });
      const config = JSON.parse(await vscode.commands.executeCommand<string>('boundedEvidence.copyMcpConfig')) as {
        mcpServers: Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(config.mcpServers), ['bounded-evidence', 'bounded-evidence-http']);
      assert.deepEqual(config.mcpServers['bounded-evidence-http'], {
        type: 'http',
        url: 'http://127.0.0.1:8765/mcp',
        headers: { Authorization: `Bearer ${token}` },
      });
      // A server killed before it could remove its file: no entry for it.
      writeFileSync(info, JSON.stringify({ url: 'http://127.0.0.1:8765/mcp', token, pid: 2 ** 22 + 12345 }), {
        mode: 0o600,
      });
      const stale = JSON.parse(await vscode.commands.executeCommand<string>('boundedEvidence.copyMcpConfig')) as {
        mcpServers: Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(stale.mcpServers), ['bounded-evidence']);
    } finally {
      rmSync(info, { force: true });
    }
  });
});
