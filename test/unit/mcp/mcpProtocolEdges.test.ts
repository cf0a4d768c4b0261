/**
 * Protocol edges of the MCP server over real stdio (docs/contracts.md §4).
 * A request line over the SDK's 10 MiB stdio limit ends the server with a stderr line saying
 * why and a non-zero exit code; non-object `arguments` are answered with JSON-RPC invalid
 * params, in one line. Both revisions on the raw wire: `server/discover` and the
 * 2026-07-28 result fields, `initialize` for 2025-11-25, and one text item per tool result,
 * never `structuredContent` nor a `resource_link` (docs/contracts.md §4.1).
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MCP_TOOL_NAMES } from '../../../src/node/packageJson.js';
import { SERVER_INSTRUCTIONS } from '../../../src/mcp/server.js';
import { handshake, startServer } from './mcpProcess.js';

describe('MCP protocol edges', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-edges-'));
    mkdirSync(path.join(tmp, 'ws'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('non-object arguments: JSON-RPC invalid params (-32602), a one-line message; the server keeps serving', async function () {
    this.timeout(60_000);
    const s = startServer(path.join(tmp, 'storage'), path.join(tmp, 'ws'));
    try {
      await handshake(s);
      const bad: unknown[] = ['x', [1, 2], 5, true];
      for (let i = 0; i < bad.length; i++) {
        s.send({
          jsonrpc: '2.0',
          id: 10 + i,
          method: 'tools/call',
          params: { name: 'evidence_readFile', arguments: bad[i] },
        });
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

  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const SERVER_INFO = {
    'io.modelcontextprotocol/serverInfo': { name: 'bounded-evidence', title: 'Bounded Evidence', version: '0.1.0' },
  };

  it('2026-07-28 on the raw wire: server/discover, resultType on every result, cache fields on the list; the tool result is one text item', async function () {
    this.timeout(60_000);
    const s = startServer(path.join(tmp, 'storage'), path.join(tmp, 'ws'));
    try {
      s.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
      const discover = (await s.reply(1)).result as Record<string, unknown>;
      assert.deepEqual(discover.supportedVersions, ['2026-07-28']);
      assert.deepEqual(discover.capabilities, { tools: {} });
      assert.equal(discover.instructions, SERVER_INSTRUCTIONS);
      assert.deepEqual(
        [discover.resultType, discover.ttlMs, discover.cacheScope, discover._meta],
        ['complete', 600_000, 'private', SERVER_INFO],
      );
      s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } });
      const list = (await s.reply(2)).result as Record<string, unknown>;
      assert.deepEqual(
        (list.tools as { name: string }[]).map((t) => t.name),
        MCP_TOOL_NAMES,
      );
      assert.deepEqual([list.resultType, list.ttlMs, list.cacheScope], ['complete', 600_000, 'private']);
      s.send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'evidence_runCommand', arguments: { command: 'seq 1 3' }, _meta: META },
      });
      assert.deepEqual((await s.reply(3)).result, {
        content: [
          { type: 'text', text: '$ seq 1 3\nexit code 0\nstdout: 6 bytes, 3 lines:\n1\n2\n3\n\nstderr: empty' },
        ],
        resultType: 'complete',
        _meta: SERVER_INFO,
      });
      // The sentence once (the SDK 1.x doubled `MCP error -32602:` into the message).
      s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: META } });
      assert.deepEqual((await s.reply(4)).error, { code: -32602, message: 'Unknown tool: nope' });
    } finally {
      s.proc.kill('SIGKILL');
    }
  });

  it('stdio: the revision follows each request, not the first one: enveloped after plain, plain after enveloped, an unknown claim -32022 every time', async function () {
    this.timeout(60_000);
    const s = startServer(path.join(tmp, 'storage'), path.join(tmp, 'ws'));
    const shape = async (id: number, params: object): Promise<unknown> => {
      s.send({ jsonrpc: '2.0', id, method: 'tools/list', params });
      const r = await s.reply(id);
      return r.error ?? Object.keys(r.result as object);
    };
    const modern = ['tools', 'resultType', 'ttlMs', 'cacheScope', '_meta'];
    const unknown = (requested: string): unknown => ({
      code: -32022,
      message: `Unsupported protocol version: ${requested}`,
      data: { supported: ['2026-07-28'], requested },
    });
    const claiming = (v: string): object => ({ _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': v } });
    try {
      // A plain request first (it used to pin the connection to 2025 for good).
      assert.deepEqual(await shape(1, {}), ['tools']);
      assert.deepEqual(await shape(2, { _meta: META }), modern);
      assert.deepEqual(await shape(3, claiming('2099-01-01')), unknown('2099-01-01'));
      assert.deepEqual(await shape(4, {}), ['tools']);
      assert.deepEqual(await shape(5, { _meta: META }), modern);
      assert.deepEqual(await shape(6, claiming('2026-01-01')), unknown('2026-01-01'));
      // A tool call in each shape, on the same connection.
      const call = { name: 'evidence_runCommand', arguments: { command: 'seq 1 3' } };
      s.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...call, _meta: META } });
      s.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: call });
      const [enveloped, plain] = [(await s.reply(7)).result, (await s.reply(8)).result] as Record<string, unknown>[];
      assert.deepEqual([enveloped!.resultType, plain!.resultType], ['complete', undefined]);
      assert.deepEqual(enveloped!.content, plain!.content);
    } finally {
      s.proc.kill('SIGKILL');
    }
  });

  it('2025-11-25 on the raw wire: initialize (also when 2026-07-28 is offered there), the same tool text, nothing more than one text item', async function () {
    this.timeout(60_000);
    const s = startServer(path.join(tmp, 'storage'), path.join(tmp, 'ws'));
    try {
      s.send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      const init = (await s.reply(0)).result as Record<string, unknown>;
      // The new revision is negotiated by server/discover only: an initialize gets the newest 2025-era revision.
      assert.deepEqual(
        [init.protocolVersion, init.instructions, init.serverInfo],
        ['2025-11-25', SERVER_INSTRUCTIONS, { name: 'bounded-evidence', title: 'Bounded Evidence', version: '0.1.0' }],
      );
      s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const list = (await s.reply(2)).result as Record<string, unknown>;
      assert.deepEqual(Object.keys(list), ['tools']);
      s.send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'evidence_runCommand', arguments: { command: 'seq 1 3' } },
      });
      assert.deepEqual((await s.reply(3)).result, {
        content: [
          { type: 'text', text: '$ seq 1 3\nexit code 0\nstdout: 6 bytes, 3 lines:\n1\n2\n3\n\nstderr: empty' },
        ],
      });
      s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {} } });
      assert.deepEqual((await s.reply(4)).error, { code: -32602, message: 'Unknown tool: nope' });
    } finally {
      s.proc.kill('SIGKILL');
    }
  });

  it('lines the SDK would drop get their JSON-RPC answer: not JSON -32700, no jsonrpc, a batch, too deep -32600; then it serves on', async function () {
    this.timeout(60_000);
    const s = startServer(path.join(tmp, 'storage'), path.join(tmp, 'ws'));
    try {
      await handshake(s);
      s.proc.stdin.write('not json at all\n');
      s.proc.stdin.write(`${JSON.stringify({ id: 7, method: 'ping' })}\n`);
      s.proc.stdin.write(`${JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'ping' }])}\n`);
      s.proc.stdin.write(
        `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}\n`,
      );
      s.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
      const errorOf = (r: Record<string, unknown>): { code: number; message: string } =>
        r.error as { code: number; message: string };
      assert.equal(errorOf(await s.reply(7)).code, -32600);
      assert.match(errorOf(await s.reply(7)).message, /"jsonrpc": "2\.0"/);
      assert.equal(errorOf(await s.reply(8)).code, -32600);
      assert.deepEqual((await s.reply(9)).result, {});
      // The two lines with no usable id were answered with id null, in the order they came.
      assert.deepEqual(
        s.nullReplies().map((r) => errorOf(r).code),
        [-32700, -32600],
      );
      assert.equal(
        s.stderr().match(/protocol error: Parse error: the line is not JSON \(a line of 16 bytes/g)?.length,
        1,
      );
      assert.equal(s.proc.exitCode, null, 'the server is still serving');
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
    assert.match(
      s.stderr(),
      /\[bounded-evidence mcp\] closing: a request line exceeded the 10485760-byte stdio limit \(ReadBuffer exceeded maximum size of 10485760 bytes\)\n/,
    );
  });
});
