/**
 * The proof against the real Copilot CLI (@github/copilot from npm, pinned in scripts/setup-tools.sh),
 * pointed at the scripted Anthropic Messages server on loopback through its bring-your-own-model settings
 * (`COPILOT_PROVIDER_TYPE=anthropic`, `COPILOT_PROVIDER_BASE_URL`, `COPILOT_OFFLINE`): no sign-in, nothing leaves
 * the machine. VS Code's Copilot harness runs this same runtime in its agent host, with the same hook files.
 * Routed by `bounded-evidence init --agent copilot-cli` itself, run in the workspace with a VS Code terminal's two
 * variables; the test asserts on the request bodies, i.e. on exactly what the Copilot CLI gives its model.
 */
import * as assert from 'node:assert/strict';
import { portableHookCommand } from '../../src/core/reach/agents/context.js';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { ReadToolOutputResult } from '../../src/core/index.js';
import { ensureTools } from '../harness/tools.js';
import {
  startOneBashCall,
  startScriptedAnthropic,
  toolResultText,
  type MessagesRequest,
  type ScriptedAnthropic,
  type ScriptedReply,
} from './anthropicServer.js';
import {
  BASH_ID,
  buildCommand,
  buildThenRead,
  CLI,
  initInTerminal,
  listRuns,
  LOG_BYTES,
  keptRuns,
  machineWords,
  makeSandbox,
  NEEDLE,
  READ_ID,
  replayedInputs,
  runAgent,
  sh,
  SMALL_COMMANDS,
  spoolsLeft,
  terminalEnvironment,
  type Sandbox,
  commandsInTurns,
  replayedBytes,
} from './agentSandbox.js';

const COPILOT_TIMEOUT_MS = 120_000;

/** Runs `copilot -p` in the sandbox against the scripted server. */
async function runCopilot(
  s: Sandbox,
  server: ScriptedAnthropic,
  extraEnv: Record<string, string> = {},
  permissions: readonly string[] = ['--allow-all-tools', '--allow-all-paths'],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { copilot, copilotCache } = ensureTools();
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: s.home,
    TMPDIR: s.tmp,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_CACHE_HOME: copilotCache,
    COPILOT_PKG_CACHE_HOME: copilotCache,
    // Bring your own model: the scripted Messages API; offline, so no GitHub sign-in and no other traffic.
    COPILOT_PROVIDER_TYPE: 'anthropic',
    COPILOT_PROVIDER_BASE_URL: server.baseUrl,
    COPILOT_PROVIDER_API_KEY: 'sk-scripted-test',
    COPILOT_MODEL: 'claude-sonnet-4-5',
    COPILOT_OFFLINE: 'true',
    // In prompt mode the CLI loads a repository's hooks only for a trusted folder or with this opt-in (cli-main.js 1.0.102).
    GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: 'true',
    ...extraEnv,
  };
  return runAgent(copilot, ['-p', 'Why does the build fail?', ...permissions, '--no-color'], {
    cwd: s.workspace,
    env,
    timeoutMs: COPILOT_TIMEOUT_MS,
  });
}

const isAgentTurn = (req: MessagesRequest): boolean => (req.tools ?? []).some((t) => t.name === 'bash');

/**
 * The output the CLI saved (one file in its temporary folder, gone when it ends), read while the scripted model
 * answers: it runs the command as written and merges the two streams in an order of its own, and that is what is kept.
 */
function savedOutput(s: Sandbox): {
  watch: (req: MessagesRequest) => void;
  view: (handle: string) => { firstView: string; errorLine: number };
} {
  let saved: Buffer | undefined;
  return {
    watch: () => {
      const names = readdirSync(s.tmp).filter((n) => /copilot-tool-output-.*\.txt$/.test(n));
      if (!saved && names.length === 1) saved = readFileSync(path.join(s.tmp, names[0]!));
    },
    view: (handle) => {
      assert.ok(saved, 'the CLI saved the output');
      const at = saved.indexOf(NEEDLE);
      const errorLine = saved.subarray(0, at).toString('utf8').split('\n').length;
      const lines = saved.toString('utf8').split('\n').length - 1;
      return {
        firstView: `\nstdout: ${saved.length} bytes, ${lines} lines, handle ${handle}. Error lines (1 of 1):\nline ${errorLine}, byte ${at}: ${NEEDLE}\nPreview:\n`,
        errorLine,
      };
    },
  };
}

describe('Reach: the Copilot CLI from npm with a scripted Anthropic server on loopback', function () {
  this.timeout(COPILOT_TIMEOUT_MS + 30_000);
  let sandbox: Sandbox;
  let server: ScriptedAnthropic | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('copilot');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it('baseline, no hook: what the Copilot CLI gives its model of the 3 MB output', async () => {
    const turns: MessagesRequest[] = [];
    server = await startScriptedAnthropic((req): ScriptedReply => {
      if (!isAgentTurn(req)) return { text: 'ok' };
      turns.push(req);
      return turns.length === 1
        ? { tool: { id: BASH_ID, name: 'bash', input: { command: buildCommand, description: 'Build the project' } } }
        : { text: 'done' };
    });
    const run = await runCopilot(sandbox, server);
    assert.equal(run.code, 0, `copilot exited ${run.code}: ${run.stderr.slice(0, 2000)}${run.stdout.slice(0, 2000)}`);
    assert.equal(turns.length, 2);
    const result = toolResultText(turns[1]!, BASH_ID);
    assert.ok(result);
    const bytes = Buffer.byteLength(result.text, 'utf8');
    console.log(
      `[reach] Copilot CLI, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${result.text.includes(NEEDLE) ? 'reached' : 'NOT reached'}; starts ${JSON.stringify(result.text.slice(0, 160))}`,
    );
    // 1.0.102 offloads a large result to a temporary file and gives the model its path and a preview of the head.
    assert.match(
      result.text,
      /^Output too large to read at once \(2\.9 MB\)\. Saved to: \S+copilot-tool-output-\S+\.txt\n/,
    );
    assert.ok(!result.text.includes(NEEDLE));
    assert.equal(listRuns(sandbox).length, 0);
  });

  it("routed by `bounded-evidence init --agent copilot-cli`: the bounded observation with the command's exit code, one read by handle returns the error line with its number", async () => {
    const said = initInTerminal(sandbox, 'init', '--agent', 'copilot-cli');
    assert.match(
      said,
      /^GitHub Copilot \(VS Code agent: Local and Copilot harness; Copilot CLI\) \[copilot, project\]: \.github\/hooks\/bounded-evidence\.json created; routed/,
    );
    const hookFile = JSON.parse(
      readFileSync(path.join(sandbox.workspace, '.github', 'hooks', 'bounded-evidence.json'), 'utf8'),
    ) as unknown;
    assert.deepEqual(hookFile, {
      version: 1,
      hooks: {
        preToolUse: [{ type: 'command', bash: portableHookCommand(undefined), timeoutSec: 15 }],
        postToolUse: [{ type: 'command', bash: portableHookCommand(undefined), timeoutSec: 15 }],
      },
    });
    // The model reads the handle with the command line the observation names, through the same bash tool.
    const model = buildThenRead(isAgentTurn, 'bash', (h) => ({
      name: 'bash',
      input: { command: `${sh(sandbox.shim)} read ${h} --pattern 'error TS'`, description: 'Read the error' },
    }));
    const turns = model.turns;
    const output = savedOutput(sandbox);
    server = await startScriptedAnthropic((req) => {
      output.watch(req);
      return model.script(req);
    });
    const run = await runCopilot(sandbox, server, terminalEnvironment(sandbox));
    assert.equal(run.code, 0, `copilot exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
    assert.equal(turns.length, 3, 'three model turns: bash, the read, the answer');

    const observation = toolResultText(turns[1]!, BASH_ID);
    assert.ok(observation);
    const obsBytes = Buffer.byteLength(observation.text, 'utf8');
    assert.match(observation.text, /^exit code 1$/m);
    const saved = output.view(model.handle());
    assert.ok(observation.text.includes(saved.firstView), observation.text);
    // The exit code the CLI reports to its model is the command's.
    assert.match(observation.text, /<shellId: \d+ completed with exit code 1>$/);
    // Nothing of the machine in what the model gets: no storage path (the sandbox's root holds it), no session id.
    assert.ok(
      !observation.text.includes(sandbox.storage) && !observation.text.includes(sandbox.root),
      observation.text,
    );
    // Under the CLI's 8 KB offload: the model gets the observation itself, not a temp file's 500-character preview.
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);

    const read = toolResultText(turns[2]!, READ_ID);
    assert.ok(read);
    const json = read.text.slice(0, read.text.lastIndexOf('\n<shellId'));
    const reply = JSON.parse(json) as ReadToolOutputResult;
    assert.equal(reply.total_matches, 1);
    assert.equal(reply.content, `${saved.errorLine}:${NEEDLE}`);
    assert.match(read.text, /<shellId: \d+ completed with exit code 0>$/);
    const readBytes = Buffer.byteLength(read.text, 'utf8');
    console.log(
      `[reach] Copilot CLI, routed by init: model received ${obsBytes} bytes (bash) + ${readBytes} bytes (read by handle); needle reached at line ${reply.matches?.[0]?.line_number}`,
    );

    // Both commands were kept as this Copilot CLI session's, by its postToolUse.
    let routed = listRuns(sandbox).filter((r) => r.source?.kind === 'hook');
    for (let i = 0; i < 50 && routed.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      routed = listRuns(sandbox).filter((r) => r.source?.kind === 'hook');
    }
    assert.equal(routed.length, 2);
    assert.ok(
      routed.every((r) => r.source?.agent === 'copilot-cli' && typeof r.source.sessionId === 'string'),
      JSON.stringify(routed.map((r) => r.source)),
    );
    assert.ok(!observation.text.includes(routed[0]!.source!.sessionId!), 'no session id in what the model gets');

    // doctor names the routing and the last routed command; uninstall removes the file init created.
    const doctor = spawnSync(process.execPath, [CLI, 'doctor'], {
      cwd: sandbox.workspace,
      env: { PATH: process.env.PATH, HOME: sandbox.home, ...terminalEnvironment(sandbox) },
      encoding: 'utf8',
    });
    assert.match(
      doctor.stdout,
      /\[copilot\]: [^\n]*\n {2}project: routed \(\.github\/hooks\/bounded-evidence\.json ok\)/,
    );
    assert.match(doctor.stdout, /\[copilot\][\s\S]*?last routed command: \S+ /);
    const off = spawnSync(process.execPath, [CLI, 'init', '--uninstall', '--agent', 'copilot'], {
      cwd: sandbox.workspace,
      env: { PATH: process.env.PATH, HOME: sandbox.home, ...terminalEnvironment(sandbox) },
      encoding: 'utf8',
    });
    assert.equal(
      off.stdout,
      'GitHub Copilot (VS Code agent: Local and Copilot harness; Copilot CLI) [copilot, project]: .github/hooks/bounded-evidence.json deleted; routing off\n',
    );
  });

  it('routed for the user (`init --agent copilot-cli --global`): the hook in ~/.copilot/hooks with no repository opt-in, and the read by handle through the MCP server init registered', async () => {
    const said = initInTerminal(sandbox, 'init', '--agent', 'copilot-cli', '--global');
    assert.match(
      said,
      /^GitHub Copilot [^\n]*\[copilot, global\]: ~\/\.copilot\/hooks\/bounded-evidence\.json created, ~\/\.copilot\/mcp-config\.json created; routed/,
    );
    let readTool = '';
    const model = buildThenRead(isAgentTurn, 'bash', (h) => ({
      name: readTool,
      input: { handle: h, pattern: 'error TS' },
    }));
    const output = savedOutput(sandbox);
    server = await startScriptedAnthropic((req) => {
      output.watch(req);
      // The CLI names an MCP tool after its server; the model calls the one it was offered.
      readTool ||=
        (req.tools ?? []).map((t) => t.name).find((n) => n.endsWith('read_tool_output')) ??
        'no-read_tool_output-offered';
      return model.script(req);
    });
    // No GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: the user's own hooks need no folder trust.
    const run = await runCopilot(sandbox, server, {
      ...terminalEnvironment(sandbox),
      GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: '',
    });
    assert.equal(run.code, 0, `copilot exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
    assert.equal(model.turns.length, 3, `three model turns (read tool: ${readTool})`);
    const observation = toolResultText(model.turns[1]!, BASH_ID)!;
    const saved = output.view(model.handle());
    assert.ok(observation.text.includes(saved.firstView), observation.text);
    const read = toolResultText(model.turns[2]!, READ_ID)!;
    assert.equal((JSON.parse(read.text) as ReadToolOutputResult).content, `${saved.errorLine}:${NEEDLE}`, read.text);
    console.log(
      `[reach] Copilot CLI, routed by init --global: model received ${Buffer.byteLength(observation.text)} bytes (bash) + ${Buffer.byteLength(read.text)} bytes (${readTool} over MCP); needle reached`,
    );
    assert.equal(
      initInTerminal(sandbox, 'init', '--uninstall', '--agent', 'copilot', '--global'),
      'GitHub Copilot (VS Code agent: Local and Copilot harness; Copilot CLI) [copilot, global]: ~/.copilot/hooks/bounded-evidence.json deleted, ~/.copilot/mcp-config.json deleted; routing off\n',
    );
  });

  it('replays to its model the commands it wrote: the call inputs of a 10-call conversation, routed and unrouted; each command kept; no path, spool or product word in any request', async () => {
    const conversation = async (routed: boolean): Promise<MessagesRequest[]> => {
      const srv = await startScriptedAnthropic(commandsInTurns(isAgentTurn, SMALL_COMMANDS, 'toolu_call').script);
      server = srv;
      if (routed) initInTerminal(sandbox, 'init', '--agent', 'copilot-cli');
      const run = await runCopilot(sandbox, srv, routed ? terminalEnvironment(sandbox) : {});
      assert.equal(run.code, 0, `copilot exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      await srv.close();
      server = undefined;
      return srv.requests;
    };
    const plain = await conversation(false);
    const routed = await conversation(true);
    const last = (reqs: MessagesRequest[]): MessagesRequest => reqs.filter(isAgentTurn).at(-1)!;
    console.log(
      `[reach] Copilot CLI, call inputs replayed after ${SMALL_COMMANDS.length} calls: routed ${replayedBytes(last(routed))} bytes, unrouted ${replayedBytes(last(plain))}`,
    );
    assert.equal(replayedInputs(last(plain)).length, SMALL_COMMANDS.length);
    assert.deepEqual(replayedInputs(last(routed)), replayedInputs(last(plain)));
    assert.equal(replayedBytes(last(routed)), 685);
    // Small results reach the model as the CLI gave them unrouted (which stream's line comes first is the CLI's own),
    // and every command is kept.
    const lines = (reqs: MessagesRequest[], i: number): string[] =>
      toolResultText(last(reqs), `toolu_call_${i}`)!.text.split('\n').sort();
    for (let i = 0; i < SMALL_COMMANDS.length; i++) assert.deepEqual(lines(routed, i), lines(plain, i));
    const kept = await keptRuns(sandbox, 'copilot-cli', SMALL_COMMANDS.length);
    assert.deepEqual([kept.runs.length, kept.spools], [SMALL_COMMANDS.length, []]);
    // (The CLI's own prompt names its home folder, routed or not.)
    for (const req of routed) {
      const body = JSON.stringify(req);
      assert.deepEqual(
        machineWords(body, sandbox).filter((w) => w !== sandbox.home),
        [],
      );
      assert.doesNotMatch(body, /BOUNDED_EVIDENCE|bounded-evidence|\/spool\/|1\.\$\$/);
    }
  });

  /** What the Copilot CLI gives its model for each command, one session, routed by init's project file or not. */
  async function shellResults(
    commands: readonly string[],
    routed: boolean,
    permissions: readonly string[],
  ): Promise<{ results: { text: string; isError: boolean }[]; kept: number }> {
    const s = makeSandbox('copilot');
    try {
      if (routed) initInTerminal(s, 'init', '--agent', 'copilot-cli');
      const { script, turns } = commandsInTurns(isAgentTurn, commands, 'toolu_row');
      const srv = await startScriptedAnthropic(script);
      try {
        const run = await runCopilot(s, srv, terminalEnvironment(s), permissions);
        assert.equal(run.code, 0, `copilot exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      } finally {
        await srv.close();
      }
      const results = commands.map((_, i) => {
        const r = toolResultText(turns[i + 1]!, `toolu_row_${i}`);
        assert.ok(r, `row ${i} has a result`);
        return { text: r.text.split(s.workspace).join('<workspace>'), isError: r.isError };
      });
      return { results, kept: listRuns(s).length };
    } finally {
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('approvals: with --allow-tool for one command only, the CLI decides on the command as written: the allowed one runs and is kept, the other is denied in its own words', async () => {
    const rows = ["printf 'approved\\n'", 'touch not-allowed.txt'];
    const permissions = ['--allow-tool', 'shell(printf)'];
    const plain = await shellResults(rows, false, permissions);
    const routed = await shellResults(rows, true, permissions);
    console.log(
      `[reach] Copilot CLI --allow-tool: unrouted ${JSON.stringify(plain)} | routed ${JSON.stringify(routed)}`,
    );
    assert.equal(plain.results[0]!.text, 'approved\n<shellId: 0 completed with exit code 0>');
    assert.match(plain.results[1]!.text, /^Permission denied because no interactive user response was available\./);
    assert.deepEqual(routed.results, plain.results);
    assert.deepEqual([plain.kept, routed.kept], [0, 1]);
    // With every tool allowed, both run and both are kept.
    const all = await shellResults(rows, true, ['--allow-all-tools', '--allow-all-paths']);
    assert.equal(all.results[0]!.text, plain.results[0]!.text);
    assert.equal(all.kept, 2, JSON.stringify(all));
  });
  /** One bash call of `command` with the Copilot CLI's `initial_wait`: what the model got, the runs kept, the spools left. */
  async function atTimeLimit(
    command: string,
    routed: boolean,
    wait: Record<string, number>,
  ): Promise<{ text: string; kept: number; spools: string[] }> {
    const s = makeSandbox('copilot-limit');
    const { server: srv, result } = await startOneBashCall(
      { command, description: 'Run', mode: 'sync', ...wait },
      'ok',
    );
    try {
      if (routed) initInTerminal(s, 'init', '--agent', 'copilot-cli');
      const run = await runCopilot(s, srv, routed ? terminalEnvironment(s) : {});
      assert.equal(run.code, 0, `copilot exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      const text = result();
      return { text, kept: listRuns(s).length, spools: spoolsLeft(s) };
    } finally {
      await srv.close();
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('a command still running at its initial_wait (30 s at least): the model gets what it printed so far as unrouted; no run, no spool', async function () {
    this.timeout(2 * COPILOT_TIMEOUT_MS + 60_000);
    const command = "printf 'partial\\n'; sleep 45";
    const plain = await atTimeLimit(command, false, { initial_wait: 4 });
    const routed = await atTimeLimit(command, true, { initial_wait: 4 });
    console.log(
      `[reach] Copilot CLI at its initial_wait: unrouted ${JSON.stringify(plain)} | routed ${JSON.stringify(routed)}`,
    );
    assert.match(plain.text, /^partial\n<command with shellId: 0 is still running after 30 seconds\./);
    assert.equal(routed.text, plain.text);
    // The command runs as written and its result has no closing line yet: nothing is kept, nothing is left behind.
    assert.deepEqual([routed.kept, routed.spools, plain.kept], [0, [], 0]);
  });
});
