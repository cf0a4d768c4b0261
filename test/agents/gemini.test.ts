/**
 * Gemini CLI from npm (@google/gemini-cli, pinned in scripts/setup-tools.sh) against a scripted Gemini API on
 * loopback (`GOOGLE_GEMINI_BASE_URL`, test/agents/geminiServer.ts): its model runs the 3 MB build log through
 * Gemini CLI's own `run_shell_command`; the test asserts on the request bodies the server receives, i.e. on
 * exactly what Gemini CLI gives its model. The hook and the MCP registration are the ones `init` plans
 * (src/core/reach/agents/gemini.ts), in the user's settings.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gemini } from '../../src/core/reach/agents/gemini.js';
import { ensureTools, toolPaths } from '../harness/tools.js';
import {
  applyJsonEdits,
  buildCommand,
  firstViewStdout,
  ERROR_LINE,
  errorLineReply,
  handleIn,
  initContext,
  pathWithCli,
  LOG_BYTES,
  listRuns,
  makeSandbox,
  NEEDLE,
  runAgent,
  keptRuns,
  machineWords,
  SMALL_COMMANDS,
  spoolsLeft,
  type Sandbox,
} from './agentSandbox.js';
import { functionResponseText, startScriptedGemini, type GeminiReply, type ScriptedGemini } from './geminiServer.js';

const GEMINI = toolPaths().gemini;
const TIMEOUT_MS = 120_000;
const MODEL = 'gemini-2.5-pro';

/** `~/.gemini/settings.json`: API-key auth, plus (routed) what init plans for the user's settings. */
function configure(s: Sandbox, routed: boolean, more: Record<string, unknown> = {}): void {
  const settings: Record<string, unknown> = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: { disableAutoUpdate: true },
    privacy: { usageStatisticsEnabled: false },
    ...more,
  };
  if (routed) {
    const edits = gemini.plan(initContext(s), 'global').edits;
    assert.deepEqual([...new Set(edits.map((e) => e.file))], [path.join(s.home, '.gemini', 'settings.json')]);
    applyJsonEdits(settings, edits);
  }
  mkdirSync(path.join(s.home, '.gemini'), { recursive: true });
  writeFileSync(path.join(s.home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

async function runGemini(
  s: Sandbox,
  server: ScriptedGemini,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: pathWithCli(s),
    HOME: s.home,
    TMPDIR: s.tmp,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    GEMINI_API_KEY: 'scripted-test-key',
    GOOGLE_GEMINI_BASE_URL: server.baseUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_BROWSER: '1',
  };
  return runAgent(
    process.execPath,
    [GEMINI, '-p', 'Why does the build fail?', '-m', MODEL, '--yolo', '--output-format', 'json'],
    { cwd: s.workspace, env, timeoutMs: TIMEOUT_MS },
  );
}

describe('Reach: Gemini CLI from npm with a scripted Gemini API on loopback', function () {
  this.timeout(TIMEOUT_MS + 30_000);
  let sandbox: Sandbox;
  let server: ScriptedGemini | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('gemini');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it('baseline, no hook: Gemini CLI gives its model the 3 MB output cut, without the error line', async () => {
    server = await startScriptedGemini((_req, i) =>
      i === 0
        ? { call: { name: 'run_shell_command', args: { command: buildCommand, description: 'Build' } } }
        : { text: 'done' },
    );
    configure(sandbox, false);
    const run = await runGemini(sandbox, server);
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}\n${server.paths.join('\n')}`);
    assert.equal(server.requests.length, 2);
    const out = functionResponseText(server.requests[1]!, 'run_shell_command');
    assert.ok(out, 'the shell output was given to the model');
    const bytes = Buffer.byteLength(out, 'utf8');
    console.log(
      `[reach] Gemini CLI, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${out.includes(NEEDLE) ? 'reached' : 'NOT reached'}`,
    );
    if (process.env.BE_DUMP) console.log(out.slice(0, 800), '\n…\n', out.slice(-800));
  });

  it("with init's hook: the bounded observation first, one read_tool_output the error line, the exit code the command's", async () => {
    let handle = '';
    server = await startScriptedGemini((req, i): GeminiReply => {
      if (i === 0)
        return { call: { name: 'run_shell_command', args: { command: buildCommand, description: 'Build' } } };
      if (i === 1) {
        handle = handleIn(functionResponseText(req, 'run_shell_command'));
        return { call: { name: 'mcp_bounded-evidence_read_tool_output', args: { handle, pattern: 'error TS' } } };
      }
      return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
    });
    configure(sandbox, true);
    const run = await runGemini(sandbox, server);
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}\n${server.paths.join('\n')}`);
    const names = (server.requests[0]!.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    console.log(`[reach] Gemini CLI tools: ${names.join(', ')}`);
    assert.equal(server.requests.length, 3, run.stderr.slice(-1500));
    const obs = functionResponseText(server.requests[1]!, 'run_shell_command')!;
    if (process.env.BE_DUMP) console.log(obs);
    const obsBytes = Buffer.byteLength(obs, 'utf8');
    assert.match(obs, /^exit code 1$/m);
    // Gemini CLI's own report of the routed command's status: the command's.
    assert.match(obs, /^Exit Code: 1$/m);
    assert.ok(obs.includes(firstViewStdout(handle)), obs);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);
    // Nothing of the machine: no storage or spool path, no session id.
    assert.ok(!obs.includes(sandbox.storage) && !obs.includes(sandbox.root), obs);
    const readName = names.find((n) => n.endsWith('read_tool_output')) ?? 'mcp_bounded-evidence_read_tool_output';
    const read = functionResponseText(server.requests[2]!, readName);
    assert.ok(read, `the read_tool_output result was given to the model (${readName})`);
    assert.ok(read.includes(errorLineReply()), read.slice(0, 600));
    console.log(
      `[reach] Gemini CLI, hook + MCP: model received ${obsBytes} bytes (run_shell_command) + ${Buffer.byteLength(read, 'utf8')} bytes (read_tool_output); needle at line ${ERROR_LINE}`,
    );
    const routed = listRuns(sandbox).filter((r) => r.source?.kind === 'hook');
    assert.equal(routed.length, 1);
    assert.equal(routed[0]!.source?.agent, 'gemini');
  });

  it('replays to its model the commands it wrote: the call inputs of a 10-call conversation, routed and unrouted; no path, spool or product word in any request', async () => {
    const conversation = async (routed: boolean): Promise<ScriptedGemini> => {
      const s = makeSandbox('gemini-replay');
      const srv = await startScriptedGemini((_req, i) =>
        i < SMALL_COMMANDS.length
          ? { call: { name: 'run_shell_command', args: { command: SMALL_COMMANDS[i]!, description: 'Run' } } }
          : { text: 'done' },
      );
      try {
        configure(s, routed);
        const run = await runGemini(s, srv);
        assert.equal(run.code, 0, `${run.stderr.slice(-2000)}\n${srv.paths.join('\n')}`);
        for (const req of srv.requests) {
          const body = JSON.stringify(req);
          // (Gemini CLI's own prompt names the home folder, routed or not.)
          assert.deepEqual(
            machineWords(body, s).filter((w) => w !== s.home),
            [],
            'nothing of the machine or the product',
          );
          assert.doesNotMatch(body, /BOUNDED_EVIDENCE|\/spool\/|1\.\$\$/);
        }
        if (routed)
          assert.equal((await keptRuns(s, 'gemini', SMALL_COMMANDS.length)).runs.length, SMALL_COMMANDS.length);
        return srv;
      } finally {
        await srv.close();
        rmSync(s.root, { recursive: true, force: true });
      }
    };
    /** Each call's arguments as Gemini CLI resends them in its last request. */
    const calls = (srv: ScriptedGemini): string[] =>
      srv.requests
        .at(-1)!
        .contents.filter((c) => c.role === 'model')
        .flatMap((c) => c.parts.filter((p) => p.functionCall).map((p) => JSON.stringify(p.functionCall!.args)));
    const plain = calls(await conversation(false));
    const routed = calls(await conversation(true));
    const bytes = (xs: string[]): number => xs.reduce((n, x) => n + Buffer.byteLength(x, 'utf8'), 0);
    console.log(
      `[reach] Gemini CLI, call inputs replayed after ${SMALL_COMMANDS.length} calls: routed ${bytes(routed)} bytes, unrouted ${bytes(plain)}`,
    );
    assert.equal(plain.length, SMALL_COMMANDS.length);
    assert.deepEqual(routed, plain);
  });

  /** One shell call of `command` under a 4 s inactivity limit: what the model got, the runs kept, the spools left. */
  async function underInactivityLimit(
    command: string,
    routed: boolean,
  ): Promise<{ text: string; kept: number; spools: string[] }> {
    const s = makeSandbox('gemini-limit');
    const srv = await startScriptedGemini((_req, i) =>
      i === 0 ? { call: { name: 'run_shell_command', args: { command, description: 'Run' } } } : { text: 'done' },
    );
    try {
      configure(s, routed, { tools: { shell: { inactivityTimeout: 4 } } });
      const run = await runGemini(s, srv);
      assert.equal(run.code, 0, `${run.stderr.slice(-2000)}\n${srv.paths.join('\n')}`);
      // Gemini CLI notes any hook's change to a call's input (docs/agents.md): its line, not the command's output.
      const note = '\n\n[System] Tool input parameters were modified by a hook before execution.';
      const text = functionResponseText(srv.requests[1]!, 'run_shell_command') ?? '';
      if (routed) assert.ok(text.endsWith(note), text);
      const kept = routed ? await keptRuns(s, 'gemini', 1) : { runs: listRuns(s), spools: spoolsLeft(s) };
      return {
        text: (routed ? text.slice(0, -note.length) : text).replace(
          /^Process Group PGID: \d+$/m,
          'Process Group PGID: N',
        ),
        kept: kept.runs.length,
        spools: kept.spools,
      };
    } finally {
      await srv.close();
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('a command silent past its inactivity limit: the model gets what it printed before as unrouted, and the run is kept', async function () {
    this.timeout(2 * TIMEOUT_MS + 60_000);
    const command = "printf 'partial\\n'; sleep 20";
    const plain = await underInactivityLimit(command, false);
    const routed = await underInactivityLimit(command, true);
    console.log(
      `[reach] Gemini CLI at its inactivity limit: unrouted ${JSON.stringify(plain)} | routed ${JSON.stringify(routed)}`,
    );
    assert.match(
      plain.text,
      /exceeded the timeout of 0\.1 minutes without output\. Below is the output before it was cancelled:\npartial/,
    );
    assert.equal(routed.text, plain.text);
    assert.deepEqual([routed.kept, routed.spools, plain.kept], [1, [], 0]);
  });

  it('a command that writes more often than its inactivity limit runs to its end, routed as unrouted', async function () {
    this.timeout(2 * TIMEOUT_MS + 60_000);
    const command = 'for i in 1 2 3 4 5 6 7 8 9 10; do echo "tick $i"; sleep 1; done';
    const plain = await underInactivityLimit(command, false);
    const routed = await underInactivityLimit(command, true);
    console.log(
      `[reach] Gemini CLI writing under its inactivity limit: unrouted ${JSON.stringify(plain)} | routed ${JSON.stringify(routed)}`,
    );
    assert.match(plain.text, /^<untrusted_context>\nOutput: tick 1\n[^]*tick 10\n/);
    assert.equal(routed.text, plain.text);
    assert.deepEqual([routed.kept, routed.spools, plain.kept], [1, [], 0]);
  });
});
