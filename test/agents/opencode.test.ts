/**
 * opencode from npm (opencode-ai, pinned in scripts/setup-tools.sh; its binary is the registry's opencode-linux-x64)
 * against the scripted Anthropic Messages server on loopback (its `anthropic` provider with `baseURL`): the model
 * runs the 3 MB build log through opencode's `bash` tool; the test asserts on the request bodies the server
 * receives. The plugin file and the project's `opencode.json` lines are the ones `init` plans
 * (src/core/reach/agents/opencode.ts, project scope), and the project gets no `.opencode/` folder.
 */
import * as assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { opencode, opencodeConfigDir } from '../../src/core/reach/agents/opencode.js';
import { ensureTools, repoRoot, toolPaths } from '../harness/tools.js';
import {
  buildCommand,
  firstViewStdout,
  ERROR_LINE,
  errorLineReply,
  handleIn,
  initContext,
  pathWithCli,
  LOG_BYTES,
  listRuns,
  keptRuns,
  machineWords,
  makeSandbox,
  NEEDLE,
  replayedInputs,
  runAgent,
  SMALL_COMMANDS,
  spoolsLeft,
  type Sandbox,
  commandsInTurns,
  replayedBytes,
} from './agentSandbox.js';
import {
  startOneBashCall,
  startScriptedAnthropic,
  toolResultText,
  type MessagesRequest,
  type ScriptedAnthropic,
  type ScriptedReply,
} from './anthropicServer.js';

const TOOLS = process.env.BE_TOOLS_DIR ?? path.join(repoRoot, '.tools');
const OPENCODE = toolPaths().opencode;
/** opencode's own config folder with @opencode-ai/plugin installed once by setup-tools.sh (what opencode installs before a plugin loads). */
const CONFIG_SEED = path.join(TOOLS, 'opencode', 'config-seed');
const TIMEOUT_MS = 150_000;
const BASH_ID = 'toolu_bash_1';
const READ_ID = 'toolu_read_1';

const env = (s: Sandbox): NodeJS.ProcessEnv => ({
  PATH: pathWithCli(s),
  HOME: s.home,
  TMPDIR: s.tmp,
  LANG: 'C.UTF-8',
  SHELL: '/bin/bash',
  XDG_CONFIG_HOME: path.join(s.home, '.config'),
  XDG_DATA_HOME: path.join(s.home, '.local', 'share'),
  XDG_CACHE_HOME: path.join(s.home, '.cache'),
  XDG_STATE_HOME: path.join(s.home, '.local', 'state'),
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
});

/** The project's opencode.json (the scripted provider) plus, routed, what init plans for the project. */
function configure(s: Sandbox, server: ScriptedAnthropic, routed: boolean): void {
  const config: Record<string, unknown> = {
    $schema: 'https://opencode.ai/config.json',
    model: 'anthropic/claude-sonnet-4-5',
    provider: { anthropic: { options: { baseURL: `${server.baseUrl}/v1`, apiKey: 'sk-scripted-test' } } },
  };
  // opencode's own folder as it is once opencode has installed its plugin package (setup-tools.sh did that from the registry).
  if (routed && existsSync(CONFIG_SEED))
    cpSync(CONFIG_SEED, opencodeConfigDir({ env: env(s), home: s.home }), { recursive: true, verbatimSymlinks: true });
  if (routed) {
    const ctx = initContext(s, env(s));
    for (const e of opencode.plan(ctx, 'project').edits) {
      if (e.kind === 'file') {
        mkdirSync(path.dirname(e.file), { recursive: true });
        writeFileSync(e.file, e.text);
      } else if (e.kind === 'json') {
        assert.equal(e.file, path.join(s.workspace, 'opencode.json'));
        const [key, member] = e.path as [string, string | -1];
        if (member === -1) config[key] = [...((config[key] as unknown[] | undefined) ?? []), e.value];
        else config[key] = { ...(config[key] as object | undefined), [member]: e.value };
      }
    }
  }
  writeFileSync(path.join(s.workspace, 'opencode.json'), `${JSON.stringify(config, null, 2)}\n`);
}

const isAgentTurn = (req: MessagesRequest): boolean => (req.tools ?? []).some((t) => t.name === 'bash');

describe('Reach: opencode from npm with a scripted Anthropic server on loopback', function () {
  this.timeout(TIMEOUT_MS + 30_000);
  let sandbox: Sandbox;
  let server: ScriptedAnthropic | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('opencode');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it('baseline, no plugin: opencode gives its model a cut of the 3 MB output, without the error line and without the exit code', async () => {
    const turns: MessagesRequest[] = [];
    server = await startScriptedAnthropic((req): ScriptedReply => {
      if (!isAgentTurn(req)) return { text: 'title' };
      turns.push(req);
      return turns.length === 1
        ? { tool: { id: BASH_ID, name: 'bash', input: { command: buildCommand, description: 'Build' } } }
        : { text: 'done' };
    });
    configure(sandbox, server, false);
    const run = await runAgent(OPENCODE, ['run', 'Why does the build fail?'], {
      cwd: sandbox.workspace,
      env: env(sandbox),
      timeoutMs: TIMEOUT_MS,
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const out = toolResultText(turns[1]!, BASH_ID);
    assert.ok(out);
    const bytes = Buffer.byteLength(out.text, 'utf8');
    console.log(
      `[reach] opencode, no plugin: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${out.text.includes(NEEDLE) ? 'reached' : 'NOT reached'}`,
    );
    if (process.env.BE_DUMP) console.log(out.text.slice(0, 600), '\n…\n', out.text.slice(-600));
    // opencode 1.18.33 keeps a head and a tail (~50 KB), saves the whole output to a file of its own, and says nothing of the exit code.
    assert.ok(bytes > 40_000, `${bytes} bytes`);
    assert.match(out.text, /Full output saved to: /);
    assert.doesNotMatch(out.text, /exit code|Exit Code/i);
    assert.ok(!out.text.includes(NEEDLE));
  });

  it("with init's plugin (project scope): the bounded observation first, one read_tool_output the error line, the exit code; no .opencode/ in the project", async () => {
    const turns: MessagesRequest[] = [];
    let handle = '';
    server = await startScriptedAnthropic((req): ScriptedReply => {
      if (!isAgentTurn(req)) return { text: 'title' };
      turns.push(req);
      if (turns.length === 1)
        return { tool: { id: BASH_ID, name: 'bash', input: { command: buildCommand, description: 'Build' } } };
      if (turns.length === 2) {
        handle = handleIn(toolResultText(req, BASH_ID)?.text);
        return {
          tool: { id: READ_ID, name: 'bounded-evidence_read_tool_output', input: { handle, pattern: 'error TS' } },
        };
      }
      return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
    });
    configure(sandbox, server, true);
    const started = Date.now();
    const run = await runAgent(OPENCODE, ['run', 'Why does the build fail?'], {
      cwd: sandbox.workspace,
      env: env(sandbox),
      timeoutMs: TIMEOUT_MS,
    });
    const ms = Date.now() - started;
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(turns.length, 3, `three model turns (${run.stderr.slice(-1000)})`);
    const obs = toolResultText(turns[1]!, BASH_ID)!.text;
    if (process.env.BE_DUMP) console.log(obs);
    const obsBytes = Buffer.byteLength(obs, 'utf8');
    assert.match(obs, /^exit code 1$/m);
    assert.ok(obs.includes(firstViewStdout(handle)), obs);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);
    // Nothing of the machine: no storage or spool path, no session id.
    assert.ok(!obs.includes(sandbox.storage) && !obs.includes(sandbox.root), obs);
    const read = toolResultText(turns[2]!, READ_ID);
    assert.ok(read, 'the read_tool_output result was given to the model');
    assert.ok(read.text.includes(errorLineReply()), read.text.slice(0, 600));
    console.log(
      `[reach] opencode, plugin + MCP: model received ${obsBytes} bytes (bash) + ${Buffer.byteLength(read.text, 'utf8')} bytes (read_tool_output); needle at line ${ERROR_LINE}; session ${ms} ms`,
    );
    assert.equal(listRuns(sandbox).filter((r) => r.source?.kind === 'hook' && r.source.agent === 'opencode').length, 1);
    // Nothing was installed into the project: its folder holds opencode.json and the plugin file (no .opencode/).
    assert.deepEqual(readdirSync(sandbox.workspace).sort(), ['.bounded-evidence', 'opencode.json']);
    assert.deepEqual(readdirSync(path.join(sandbox.workspace, '.bounded-evidence')), ['opencode-plugin.js']);
  });

  it("keeps every small routed command, failing or not, though opencode ends the command's process group: no spool left", async () => {
    const turns: MessagesRequest[] = [];
    server = await startScriptedAnthropic((req): ScriptedReply => {
      if (!isAgentTurn(req)) return { text: 'title' };
      turns.push(req);
      const i = turns.length - 1;
      return i < SMALL_COMMANDS.length
        ? {
            tool: {
              id: `toolu_small_${i}`,
              name: 'bash',
              input: { command: SMALL_COMMANDS[i]!, description: 'Small' },
            },
          }
        : { text: 'done' };
    });
    configure(sandbox, server, true);
    const run = await runAgent(OPENCODE, ['run', 'Run the small commands'], {
      cwd: sandbox.workspace,
      env: env(sandbox),
      timeoutMs: TIMEOUT_MS,
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(turns.length, SMALL_COMMANDS.length + 1);
    // Given back as written: the failing ones with their stderr.
    const last = turns[SMALL_COMMANDS.length]!;
    assert.equal(toolResultText(last, 'toolu_small_0')?.text, 'small 0\n');
    assert.equal(toolResultText(last, 'toolu_small_1')?.text, 'out 1\nerr 1\n');
    const kept = await keptRuns(sandbox, 'opencode', SMALL_COMMANDS.length);
    console.log(
      `[reach] opencode, small routed commands kept: ${kept.runs.length}/${SMALL_COMMANDS.length}, spools left ${kept.spools.length}`,
    );
    assert.deepEqual(kept.spools, []);
    assert.equal(kept.runs.length, SMALL_COMMANDS.length);
    assert.equal(kept.runs.filter((r) => r.failedCalls === 1).length, SMALL_COMMANDS.length / 2);
  });

  it('replays to its model the commands it wrote, routed as unrouted: no path, spool or product word in any request', async () => {
    const conversation = async (routed: boolean): Promise<MessagesRequest[]> => {
      const srv = await startScriptedAnthropic(
        commandsInTurns(isAgentTurn, SMALL_COMMANDS, 'toolu_call', 'title').script,
      );
      server = srv;
      configure(sandbox, srv, routed);
      const run = await runAgent(OPENCODE, ['run', 'Run the commands'], {
        cwd: sandbox.workspace,
        env: env(sandbox),
        timeoutMs: TIMEOUT_MS,
      });
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      await srv.close();
      server = undefined;
      return srv.requests;
    };
    const plain = await conversation(false);
    const routed = await conversation(true);
    const last = (reqs: MessagesRequest[]): MessagesRequest => reqs.filter(isAgentTurn).at(-1)!;
    const bytes = (reqs: MessagesRequest[]): number => replayedBytes(last(reqs));
    console.log(
      `[reach] opencode, call inputs replayed after ${SMALL_COMMANDS.length} calls: routed ${bytes(routed)} bytes, unrouted ${bytes(plain)}`,
    );
    assert.deepEqual(replayedInputs(last(routed)), replayedInputs(last(plain)));
    assert.equal(replayedInputs(last(routed)).length, SMALL_COMMANDS.length);
    for (const req of routed) assert.deepEqual(machineWords(JSON.stringify(req), sandbox), []);
    assert.equal((await keptRuns(sandbox, 'opencode', SMALL_COMMANDS.length)).runs.length, SMALL_COMMANDS.length);
  });

  /** One bash call of `command` with opencode's `timeout`: what the model got, the runs kept, the spools left. */
  async function atTimeLimit(
    command: string,
    routed: boolean,
  ): Promise<{ text: string; kept: number; spools: string[] }> {
    const s = makeSandbox('opencode-limit');
    const { server: srv, result } = await startOneBashCall({ command, description: 'Run', timeout: 4000 }, 'title');
    try {
      configure(s, srv, routed);
      const run = await runAgent(OPENCODE, ['run', 'Run it'], { cwd: s.workspace, env: env(s), timeoutMs: TIMEOUT_MS });
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const text = result();
      const kept = routed ? await keptRuns(s, 'opencode', 1) : { runs: [], spools: spoolsLeft(s) };
      return { text, kept: kept.runs.length, spools: kept.spools };
    } finally {
      await srv.close();
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('a command still running at its bash timeout: the model gets what it printed so far as unrouted, and the run is kept', async () => {
    const command = "printf 'partial\\n'; sleep 20";
    const plain = await atTimeLimit(command, false);
    const routed = await atTimeLimit(command, true);
    console.log(
      `[reach] opencode at its time limit: unrouted ${JSON.stringify(plain.text)} | routed ${JSON.stringify(routed.text)}`,
    );
    assert.match(plain.text, /^partial\n/);
    assert.equal(routed.text, plain.text);
    assert.equal(routed.kept, 1);
    assert.deepEqual(routed.spools, []);
  });
});
