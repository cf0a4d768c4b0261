/**
 * Issue 10, defect 8: protocol edges of the MCP server over real stdio (docs/contracts.md §4).
 * A request line over the SDK's 10 MiB stdio limit ends the server with a stderr line saying
 * why and a non-zero exit code; non-object `arguments` are answered with JSON-RPC invalid
 * params, in one line.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { handshake, startServer } from './mcpProcess.js';

describe('MCP protocol edges (issue 10, defect 8)', () => {
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-edges-')); mkdirSync(path.join(tmp, 'ws')); });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('non-object arguments: JSON-RPC invalid params (-32602), a one-line message; the server keeps serving', async function () {
    this.timeout(60_000);
    const s = startServer(path.join(tmp, 'storage'), path.join(tmp, 'ws'));
    try {
      await handshake(s);
      const bad: unknown[] = ['x', [1, 2], 5, true];
      for (let i = 0; i < bad.length; i++) {
        s.send({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'evidence_readFile', arguments: bad[i] } });
        const r = await s.reply(10 + i);
        const error = r.error as { code: number; message: string } | undefined;
        assert.ok(error, JSON.stringify(r));
        assert.equal(error.code, -32602, JSON.stringify(r));
        assert.equal(error.message, 'arguments must be an object', JSON.stringify(r));
      }
      s.send({ jsonrpc: '2.0', id: 20, method: 'tools/list' });
      assert.ok(Array.isArray(((await s.reply(20)).result as { tools: unknown[] }).tools));
    } finally {
      s.proc.kill('SIGKILL');
    }
  });

  it('a request line over 10 MiB: the server says why on stderr and exits non-zero', async function () {
    this.timeout(60_000);
    const s = startServer(path.join(tmp, 'storage'), path.join(tmp, 'ws'));
    await handshake(s);
    const exited = new Promise<number | null>((resolve) => s.proc.once('exit', (code) => resolve(code)));
    s.proc.stdin.on('error', () => undefined);
    s.proc.stdin.write('x'.repeat(11 * 1024 * 1024));
    const code = await exited;
    assert.equal(code, 1, s.stderr());
    assert.match(s.stderr(), /\[bounded-evidence mcp\] closing: a request line exceeded the 10485760-byte stdio limit \(ReadBuffer exceeded maximum size of 10485760 bytes\)\n/);
  });
});
