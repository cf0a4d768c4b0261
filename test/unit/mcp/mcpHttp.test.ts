/**
 * The Streamable HTTP transport (`mcp --http [PORT]`, docs/contracts.md §4.2): refusals
 * in their order (Host, Origin, then the bearer token) with their HTTP statuses, read
 * over raw HTTP; the real v2 client on both revisions, two at once on one store; the
 * command line's start (token printed once, the 0600 info file, removed on SIGTERM).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serveHttp, type EvidenceHttpServer } from '../../../src/mcp/http.js';
import { MCP_TOOL_NAMES } from '../../../src/node/packageJson.js';
import { createEvidenceMcpServer, type EvidenceMcpServer } from '../../../src/mcp/server.js';
import { alive } from '../core/runs/helpers.js';
import { openSession } from '../../../src/cli/session.js';

const REPO = path.resolve(__dirname, '..', '..', '..');
const SEQ3 = '$ seq 1 3\nexit code 0\nstdout: 6 bytes, 3 lines:\n1\n2\n3\n\nstderr: empty';
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

/** One raw HTTP POST (node:http, which lets a test set Host), answered with status, headers and body. */
function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** A real v2 client over HTTP with the token, on `revision`. */
async function connect(http: EvidenceHttpServer, revision: '2026-07-28' | '2025-11-25'): Promise<Client> {
  const client = new Client(
    { name: `http-${revision}`, version: '1' },
    { versionNegotiation: { mode: revision === '2025-11-25' ? 'legacy' : { pin: revision } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
    }),
  );
  assert.equal(client.getNegotiatedProtocolVersion(), revision);
  return client;
}

/** The JSON-RPC message of a response body: plain JSON, or the one `data:` line of an SSE answer. */
function messageOf(body: string): Record<string, unknown> {
  const data = body.startsWith('event:') || body.startsWith('data:') ? /^data: (.*)$/m.exec(body)![1]! : body;
  return JSON.parse(data) as Record<string, unknown>;
}

function textOf(result: unknown): string {
  const r = result as { content: { type: string; text: string }[]; structuredContent?: unknown };
  assert.equal('structuredContent' in r, false);
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0]!.type, 'text');
  return r.content[0]!.text;
}

describe('MCP over Streamable HTTP (mcp --http)', () => {
  let tmp: string;
  let mcp: EvidenceMcpServer;
  let http: EvidenceHttpServer;
  let auth: Record<string, string>;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-http-'));
    mkdirSync(path.join(tmp, 'ws'));
    mcp = await createEvidenceMcpServer({
      storageDir: path.join(tmp, 'storage'),
      workspaceFolder: path.join(tmp, 'ws'),
      log: () => undefined,
    });
    http = await serveHttp(mcp, { port: 0, storageDir: path.join(tmp, 'storage') });
    auth = { Authorization: `Bearer ${http.token}` };
  });

  after(async () => {
    await http?.close();
    await mcp?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 only, with a 32-byte token, and leaves URL and token in a 0600 file', () => {
    assert.match(http.url, /^http:\/\/127\.0\.0\.1:[0-9]+\/mcp$/);
    assert.match(http.token, /^[0-9a-f]{64}$/);
    assert.deepEqual(JSON.parse(readFileSync(http.infoFile, 'utf8')), {
      url: http.url,
      token: http.token,
      pid: process.pid,
    });
    assert.equal(http.infoFile, path.join(tmp, 'storage', 'mcp-http.json'));
    assert.equal(statSync(http.infoFile).mode & 0o777, 0o600);
  });

  it('refuses a foreign Host (403) and a foreign Origin (403) before looking at the token; no or a wrong token is 401', async () => {
    const port = new URL(http.url).port;
    // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own name.
    const badHost = await post(http.url, { Host: `evil.example:${port}` }, LIST);
    assert.equal(badHost.status, 403, badHost.body);
    assert.match(badHost.body, /"code":-32000/);
    const badOrigin = await post(http.url, { ...auth, Origin: 'http://evil.example' }, LIST);
    assert.equal(badOrigin.status, 403, badOrigin.body);
    // The token would not have helped: the refusal comes first, with or without it.
    assert.equal((await post(http.url, { ...auth, Host: `evil.example:${port}` }, LIST)).status, 403);
    const none = await post(http.url, {}, LIST);
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer');
    assert.equal(
      none.body,
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Unauthorized: send the bearer token of this server start (printed at its start, and in mcp-http.json in its storage folder)"},"id":null}',
    );
    assert.equal((await post(http.url, { Authorization: `Bearer ${'0'.repeat(64)}` }, LIST)).status, 401);
    assert.equal((await post(http.url, { Authorization: `Bearer ${http.token}x` }, LIST)).status, 401);
    assert.equal((await post(http.url, { Authorization: http.token }, LIST)).status, 401);
    // HTTP auth schemes are case-insensitive: any spelling of Bearer with the token is served.
    for (const scheme of ['bearer', 'BEARER', 'bEaReR'])
      assert.equal((await post(http.url, { Authorization: `${scheme} ${http.token}` }, LIST)).status, 200, scheme);
    // A loopback origin (a local web tool) with the token is served; another path is 404.
    const local = await post(http.url, { ...auth, Origin: 'http://localhost:5173' }, LIST);
    assert.equal(local.status, 200, local.body);
    assert.deepEqual(
      (messageOf(local.body) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name),
      MCP_TOOL_NAMES,
    );
    assert.equal((await post(http.url.replace(/\/mcp$/, '/other'), auth, LIST)).status, 404);
  });

  it('answers non-object arguments with a one-line -32602, as stdio does, and server/discover on the raw wire', async () => {
    for (const args of ['x', [1], 5, null]) {
      const r = await post(http.url, auth, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'evidence_readFile', arguments: args },
      });
      assert.deepEqual(
        [r.status, JSON.parse(r.body)],
        [200, { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'arguments must be an object' } }],
      );
    }
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const r = await post(
      http.url,
      { ...auth, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' },
      { jsonrpc: '2.0', id: 8, method: 'server/discover', params: { _meta: meta } },
    );
    assert.equal(r.status, 200, r.body);
    const discover = (messageOf(r.body) as { result: Record<string, unknown> }).result;
    assert.deepEqual(
      [discover.supportedVersions, discover.capabilities, discover.resultType],
      [['2026-07-28'], { tools: {} }, 'complete'],
    );
  });

  it('answers a body nested 100,000 deep with 400 and one JSON-RPC invalid request, then goes on serving', async () => {
    const depth = 100_000;
    const deep = `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const r = await post(http.url, auth, deep);
    assert.deepEqual(
      [r.status, JSON.parse(r.body)],
      [
        400,
        {
          jsonrpc: '2.0',
          id: 9,
          error: { code: -32600, message: 'Invalid Request: the message is nested more than 64 deep' },
        },
      ],
    );
    assert.equal((await post(http.url, auth, LIST)).status, 200);
  });

  it('2025-11-25: a notifications/cancelled (202) stops the call it names: its process tree is gone, the call answers cancelled', async function () {
    this.timeout(60_000);
    const v2025 = { ...auth, 'mcp-protocol-version': '2025-11-25' };
    const ws = path.join(tmp, 'ws');
    const pidFile = path.join(ws, 'cancel-me.pid');
    // A command that runs until it is killed, its child in the group and one in a session of its own.
    const command = `sleep 300 & echo $! > ${pidFile}.tmp; setsid sleep 300 & echo $! >> ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; wait`;
    const answered = post(http.url, v2025, {
      jsonrpc: '2.0',
      id: 'cancel-42',
      method: 'tools/call',
      params: { name: 'evidence_runCommand', arguments: { command } },
    });
    for (const end = Date.now() + 30_000; !existsSync(pidFile) && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 20));
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    assert.equal(pids.length, 2);
    assert.deepEqual(pids.map(alive), [true, true]);
    const cancel = await post(http.url, v2025, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'cancel-42', reason: 'the user pressed stop' },
    });
    assert.equal(cancel.status, 202, cancel.body);
    const reply = await answered;
    assert.equal(reply.status, 200, reply.body);
    const result = messageOf(reply.body).result as { content: { text: string }[]; isError?: boolean };
    assert.match(result.content[0]!.text, /\nkilled: cancelled\n/);
    for (const end = Date.now() + 30_000; pids.some(alive) && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(pids.map(alive), [false, false]);
  });

  it('2026-07-28: the client cancelling a call (it closes that request) stops it: its process tree is gone, the run is recorded cancelled', async function () {
    this.timeout(60_000);
    const ws = path.join(tmp, 'ws');
    const pidFile = path.join(ws, 'cancel-2026.pid');
    const command = `sleep 300 & echo $! > ${pidFile}.tmp; setsid sleep 300 & echo $! >> ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; wait`;
    const client = await connect(http, '2026-07-28');
    try {
      const abort = new AbortController();
      const answered = client.callTool(
        { name: 'evidence_runCommand', arguments: { command } },
        { signal: abort.signal },
      );
      for (const end = Date.now() + 30_000; !existsSync(pidFile) && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 20));
      const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
      assert.deepEqual(pids.map(alive), [true, true]);
      abort.abort();
      await assert.rejects(answered);
      for (const end = Date.now() + 30_000; pids.some(alive) && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(pids.map(alive), [false, false]);
      // The call's run ends as cancelled (not completed at the command's end, nor left running).
      const session = await openSession(path.join(tmp, 'storage'));
      const runs = async (): Promise<{ label?: string; status: string }[]> =>
        (await session.runs.listRuns()).filter((r) => r.label?.includes('cancel-2026'));
      for (const end = Date.now() + 30_000; (await runs()).some((r) => r.status !== 'cancelled') && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        (await runs()).map((r) => r.status),
        ['cancelled'],
      );
    } finally {
      await client.close();
    }
  });

  it("serves two clients at once on one store (one per revision): the same bytes, and each reads the other's handle", async () => {
    const modern = await connect(http, '2026-07-28');
    const legacy = await connect(http, '2025-11-25');
    try {
      const [a, b] = await Promise.all([
        modern.callTool({ name: 'evidence_runCommand', arguments: { command: 'sleep 0.3; seq 1 20000' } }),
        legacy.callTool({ name: 'evidence_runCommand', arguments: { command: 'sleep 0.3; seq 1 20000' } }),
      ]);
      const handleOf = (text: string): string => /stdout: [^\n]*handle (out_[a-z2-7]{26})\./.exec(text)![1]!;
      const [ha, hb] = [handleOf(textOf(a)), handleOf(textOf(b))];
      assert.notEqual(ha, hb);
      assert.equal(textOf(a).replaceAll(ha, 'H'), textOf(b).replaceAll(hb, 'H'));
      // Exact bytes of a read, across clients and revisions.
      const read = JSON.parse(
        textOf(await legacy.callTool({ name: 'read_tool_output', arguments: { handle: ha, offset: 19997, limit: 3 } })),
      ) as { content: string };
      assert.equal(read.content, '19998\n19999\n20000');
      for (const [client, handle] of [
        [modern, hb],
        [legacy, ha],
      ] as const) {
        assert.equal(
          textOf(
            await client.callTool({ name: 'read_tool_output', arguments: { handle, bytes: { start: 0, end: 6 } } }),
          ),
          `{"handle":"${handle}","binary":false,"total_size_bytes":108894,"total_lines":20000,"offset":0,"limit":200,"pattern":null,"returned_lines":3,"truncated":true,"content":"1\\n2\\n3\\n","total_matches":null,"matches":null}`,
        );
      }
      assert.equal(
        textOf(await modern.callTool({ name: 'evidence_runCommand', arguments: { command: 'seq 1 3' } })),
        SEQ3,
      );
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});

describe('mcp --http on the command line', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-http-cli-'));
    mkdirSync(path.join(tmp, 'ws'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('prints the token once on stderr, writes mcp-http.json, serves a client, and removes the file on SIGTERM', async function () {
    this.timeout(60_000);
    const storage = path.join(tmp, 'storage');
    const info = path.join(storage, 'mcp-http.json');
    const proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(REPO, 'src', 'mcp', 'main.ts'),
        '--storage',
        storage,
        '--workspace',
        path.join(tmp, 'ws'),
        '--http',
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let stdout = '';
    proc.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    proc.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    try {
      const end = Date.now() + 30_000;
      while (!/bearer token/.test(stderr)) {
        if (Date.now() > end) throw new Error(`no start line: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const written = JSON.parse(readFileSync(info, 'utf8')) as { url: string; token: string; pid: number };
      assert.equal(written.pid, proc.pid);
      assert.equal(statSync(info).mode & 0o777, 0o600);
      assert.equal(stderr.split(written.token).length - 1, 1, stderr);
      assert.match(stderr, new RegExp(`over Streamable HTTP at ${written.url.replace(/[.]/g, '\\.')}\\n`));
      const client = await connect(
        { url: written.url, token: written.token, infoFile: info, close: async () => undefined },
        '2026-07-28',
      );
      try {
        assert.equal(
          textOf(await client.callTool({ name: 'evidence_runCommand', arguments: { command: 'seq 1 3' } })),
          SEQ3,
        );
      } finally {
        await client.close();
      }
    } finally {
      proc.kill('SIGTERM');
    }
    assert.equal(await exited, 0, stderr);
    assert.equal(existsSync(info), false);
    assert.equal(stdout, '');
  });

  it('refuses a bad PORT with the usage', async function () {
    this.timeout(30_000);
    const proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(REPO, 'src', 'mcp', 'main.ts'),
        '--storage',
        path.join(tmp, 's'),
        '--http',
        '70000',
      ],
      { cwd: REPO },
    );
    let stderr = '';
    proc.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    assert.equal(await new Promise((resolve) => proc.once('exit', resolve)), 2);
    assert.ok(stderr.startsWith('--http PORT must be a whole number from 0 to 65535\n\nUsage:'), stderr);
  });
});
