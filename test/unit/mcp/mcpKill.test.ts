/**
 * A command outlives a killed MCP server no more, and the run the
 * killed server left open is finished as `interrupted` at the next start
 * (docs/contracts.md §5.4). A real server process (node --import tsx src/mcp/main.ts),
 * a real `sleep 300`, a real SIGKILL.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStorage } from '../../../src/node/openStorage.js';
import { RunStore } from '../../../src/core/index.js';
import { handshake, startServer } from './mcpProcess.js';
import { alive, waitGone } from '../core/runs/helpers.js';

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('a killed MCP server leaves nothing running', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-kill-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('SIGKILL of the server ends its `sleep 300`; the next start finishes the run as interrupted', async function () {
    this.timeout(60_000);
    const storageDir = path.join(tmp, 'storage');
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    const pidFile = path.join(ws, 'sleep.pid');
    const s = startServer(storageDir, ws);
    await handshake(s);
    s.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'evidence_runCommand', arguments: { command: `echo $$ > ${pidFile}; exec sleep 300` } },
    });
    assert.ok(
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 20_000),
      s.stderr(),
    );
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(alive(sleeper), true);
    s.proc.kill('SIGKILL');
    await new Promise((r) => s.proc.once('exit', r));
    assert.equal(await waitGone(sleeper, 10_000), true, 'sleep 300 outlived the killed server');

    const storage = await openStorage(storageDir);
    const runs = await RunStore.open({ logsDir: storage.logsDir, tenant: storage.tenant });
    const before = await runs.listRuns();
    assert.deepEqual(
      before.map((r) => r.status),
      ['running'],
      'its log was touched moments ago, so by age alone it looks running',
    );
    // The next start (a server over the same storage) finishes it.
    const next = startServer(storageDir, ws);
    await handshake(next);
    const after = await runs.listRuns();
    next.proc.stdin.end();
    await new Promise((r) => next.proc.once('exit', r));
    assert.deepEqual(
      after.map((r) => r.status),
      ['interrupted'],
    );
    const report = await runs.report(after[0]!.runId);
    assert.deepEqual(
      report.map((c) => c.status),
      ['interrupted'],
    );
  });
});
