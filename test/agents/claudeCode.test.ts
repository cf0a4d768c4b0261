/**
 * Issue 11's proof against a real agent command line: Claude Code from npm (installed
 * into .tools/ by scripts/setup-tools.sh), pointed at a scripted Anthropic Messages
 * server on loopback. Its model runs the 3,002,891-byte build log through Claude Code's
 * own `Bash` tool; the test asserts on the request bodies the server receives, i.e. on
 * exactly what Claude Code gives its model (docs/architecture.md, "Reach").
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureTools, repoRoot } from '../harness/tools.js';
import { startScriptedAnthropic, toolResultText, type MessagesRequest, type ScriptedAnthropic, type ScriptedReply } from './anthropicServer.js';

/** 38,400 lines of demo/build-log.js: 3,002,891 bytes on stdout, the error on line 19,201, exit 1. */
const LOG_LINES = 38400;
const LOG_BYTES = 3_002_891;
const NEEDLE = "src/ledger/reconcile.ts(412,17): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Cents'.";
const BASH_ID = 'toolu_bash_1';
const CLAUDE_TIMEOUT_MS = 120_000;

function sh(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command the scripted model asks Bash to run. */
const buildCommand = `node ${sh(path.join(repoRoot, 'demo', 'build-log.js'))} ${LOG_LINES}`;

/** A temporary folder with the agent's private HOME, TMPDIR, workspace and evidence storage. */
interface Sandbox { root: string; home: string; tmp: string; workspace: string; storage: string }

function makeSandbox(): Sandbox {
  const root = mkdtempSync(path.join(os.tmpdir(), 'be-claude-'));
  const s = { root, home: path.join(root, 'home'), tmp: path.join(root, 'tmp'), workspace: path.join(root, 'workspace'), storage: path.join(root, 'storage') };
  for (const d of [s.home, s.tmp, s.workspace, s.storage]) mkdirSync(d, { recursive: true });
  return s;
}

/** The MCP server configuration Claude Code is given: our server on the sandbox's storage. */
function mcpConfig(s: Sandbox): string {
  return JSON.stringify({ mcpServers: { evidence: { command: process.execPath, args: [path.join(repoRoot, 'dist', 'mcp.js'), '--storage', s.storage, '--workspace', s.workspace] } } });
}

/** Runs `claude -p` in the sandbox against the scripted server; resolves with its exit code and output. */
async function runClaude(s: Sandbox, server: ScriptedAnthropic, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { claude } = ensureTools();
  // A clean environment: nothing of this machine's (or a coding client's) Anthropic
  // settings leaks in, no telemetry, no update checks, no traffic but to the server.
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: s.home, TMPDIR: s.tmp, LANG: 'C.UTF-8', SHELL: '/bin/bash',
    ANTHROPIC_BASE_URL: server.baseUrl, ANTHROPIC_API_KEY: 'sk-scripted-test',
    DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // MCP tools are offered directly instead of behind Claude Code's tool search, so the
    // scripted model can call read_tool_output the way it is listed.
    ENABLE_TOOL_SEARCH: 'false',
    ...extraEnv,
  };
  const args = ['-p', 'Why does the build fail?', '--output-format', 'json', '--mcp-config', mcpConfig(s), '--strict-mcp-config', '--allowedTools', 'Bash', 'mcp__evidence__read_tool_output'];
  const child = spawn(claude, args, { cwd: s.workspace, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
  const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, CLAUDE_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** True for a request of the main conversation (Claude Code offers its Bash tool there). */
function isAgentTurn(req: MessagesRequest): boolean {
  return (req.tools ?? []).some((t) => t.name === 'Bash');
}

describe('Reach: Claude Code from npm with a scripted Anthropic server on loopback', function () {
  this.timeout(CLAUDE_TIMEOUT_MS + 30_000);
  let sandbox: Sandbox;
  let server: ScriptedAnthropic | undefined;
  beforeEach(() => { sandbox = makeSandbox(); });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it('baseline, no hook: Claude Code gives its model 10,040 bytes from the head of the 3 MB output, without the error line', async () => {
    const agentTurns: MessagesRequest[] = [];
    server = await startScriptedAnthropic((req): ScriptedReply => {
      if (!isAgentTurn(req)) return { text: 'ok' };
      agentTurns.push(req);
      if (agentTurns.length === 1) return { tool: { id: BASH_ID, name: 'Bash', input: { command: buildCommand, description: 'Build the project' } } };
      return { text: 'done' };
    });
    const run = await runClaude(sandbox, server);
    assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
    assert.equal(agentTurns.length, 2, 'two model turns: the Bash call, then the answer');
    const result = toolResultText(agentTurns[1]!, BASH_ID);
    assert.ok(result, 'the Bash result was given to the model');
    const bytes = Buffer.byteLength(result.text, 'utf8');
    console.log(`[reach] Claude Code, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${result.text.includes(NEEDLE) ? 'reached' : 'NOT reached'}`);
    // Claude Code 2.1.332 keeps the head of the output and says nothing of the rest.
    assert.ok(result.text.startsWith('Exit code 1\n[000000] compiling'), result.text.slice(0, 200));
    assert.equal(result.isError, true);
    assert.ok(bytes < 16_384, `${bytes} bytes`);
    assert.ok(!result.text.includes(NEEDLE), 'the error line did not reach the model');
  });
});
