/**
 * The MCP Inspector's command line (@modelcontextprotocol/inspector 2.12.0 `--cli`, pinned
 * in scripts/setup-tools.sh) as a real client of the server: over stdio it starts
 * `bounded-evidence mcp` itself, over HTTP it connects by URL with the bearer token; each time
 * tools/list gives the served tools and one tools/call the exact text, as one text item.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureTools, type Tools } from '../../harness/tools.js';
import { serveHttp } from '../../../src/mcp/http.js';
import { MCP_TOOL_NAMES } from '../../../src/node/packageJson.js';
import { createEvidenceMcpServer } from '../../../src/mcp/server.js';

const REPO = path.resolve(__dirname, '..', '..', '..');
const TSX = pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const SEQ3 = '$ seq 1 3\nexit code 0\nstdout: 6 bytes, 3 lines:\n1\n2\n3\n\nstderr: empty';

describe('the MCP Inspector CLI as a client', function () {
  this.timeout(120_000);
  // Installed before the unit stage by `npm test`'s setup step; here only when missing (in `before`, not while mocha loads files).
  let tools: Tools;
  let tmp: string;
  before(() => {
    tools = ensureTools();
  });
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-inspector-'));
    mkdirSync(path.join(tmp, 'ws'));
    mkdirSync(path.join(tmp, 'home'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** One Inspector run (asynchronous: over HTTP the server answers from this process); its stdout parsed. */
  async function inspector(args: readonly string[]): Promise<unknown> {
    // Its own HOME: the Inspector keeps a catalog under ~/.mcp-inspector.
    const proc = spawn(tools.node24, [tools.mcpInspector, '--cli', ...args], {
      cwd: tmp,
      env: { ...process.env, HOME: path.join(tmp, 'home') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    proc.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    return JSON.parse(stdout);
  }

  const expectServed = (list: unknown, call: unknown): void => {
    assert.deepEqual(
      (list as { tools: { name: string }[] }).tools.map((t) => t.name),
      MCP_TOOL_NAMES,
    );
    // The whole result: one text item, nothing else (no structuredContent, no resource_link).
    assert.deepEqual(call, { content: [{ type: 'text', text: SEQ3 }] });
  };

  it('over stdio: starts `bounded-evidence mcp`, lists the tools, and one call gives the exact text', async () => {
    const server = [
      process.execPath,
      '--import',
      TSX,
      path.join(REPO, 'src', 'cli', 'main.ts'),
      'mcp',
      '--storage',
      path.join(tmp, 'storage'),
      '--workspace',
      path.join(tmp, 'ws'),
    ];
    const list = await inspector([...server, '--method', 'tools/list']);
    const call = await inspector([
      ...server,
      '--method',
      'tools/call',
      '--tool-name',
      'evidence_runCommand',
      '--tool-arg',
      'command=seq 1 3',
    ]);
    expectServed(list, call);
  });

  it('over Streamable HTTP with the bearer token: the same list and text; without the token it is refused', async () => {
    const mcp = await createEvidenceMcpServer({
      storageDir: path.join(tmp, 'storage'),
      workspaceFolder: path.join(tmp, 'ws'),
      log: () => undefined,
    });
    const http = await serveHttp(mcp, { port: 0, storageDir: path.join(tmp, 'storage') });
    try {
      const auth = ['--header', `Authorization: Bearer ${http.token}`];
      const list = await inspector([http.url, ...auth, '--method', 'tools/list']);
      const call = await inspector([
        http.url,
        ...auth,
        '--method',
        'tools/call',
        '--tool-name',
        'evidence_runCommand',
        '--tool-arg',
        'command=seq 1 3',
      ]);
      expectServed(list, call);
      // Without it the server's 401 (WWW-Authenticate: Bearer) sends the Inspector to its OAuth flow, which a test cannot finish.
      await assert.rejects(inspector([http.url, '--method', 'tools/list']), /"code":"auth_required"/);
    } finally {
      await http.close();
      await mcp.close();
    }
  });
});
