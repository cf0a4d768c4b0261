/**
 * The proof against a real agent command line: Claude Code from npm (installed
 * into .tools/ by scripts/setup-tools.sh), pointed at a scripted Anthropic Messages
 * server on loopback. Its model runs the 3,002,891-byte build log through Claude Code's
 * own `Bash` tool; the test asserts on the request bodies the server receives, i.e. on
 * exactly what Claude Code gives its model (docs/architecture.md §5.1).
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ReadToolOutputResult } from '../../src/core/index.js';
import { ensureTools, repoRoot } from '../harness/tools.js';
import {
  BASH_ID,
  buildCommand,
  buildThenRead,
  errorFirstStdout,
  handleIn,
  initInTerminal,
  listRuns,
  LOG_BYTES,
  LOG_LINES,
  makeSandbox as makeSandboxIn,
  NEEDLE,
  READ_ID,
  runAgent,
  sh,
  terminalEnvironment,
  type Sandbox,
  commandsInTurns,
  keptRuns,
  machineWords,
  replayedBytes,
  replayedInputs,
  SMALL_COMMANDS,
} from './agentSandbox.js';
import {
  startScriptedAnthropic,
  toolResultText,
  type MessagesRequest,
  type ScriptedAnthropic,
  type ScriptedReply,
} from './anthropicServer.js';

const CLAUDE_TIMEOUT_MS = 120_000;

/**
 * The person's rules: every Bash command allowed in the project's local settings (where "always allow" puts it), so
 * the hook may route (a command no settings rule allows is left as written: docs/contracts.md §6.1 "Approvals").
 */
function allowInSettings(s: Sandbox, rules: readonly string[]): void {
  mkdirSync(path.join(s.workspace, '.claude'), { recursive: true });
  writeFileSync(
    path.join(s.workspace, '.claude', 'settings.local.json'),
    JSON.stringify({ permissions: { allow: rules } }),
  );
}

const makeSandbox = (): Sandbox => {
  const s = makeSandboxIn('claude');
  allowInSettings(s, ['Bash']);
  return s;
};

/** The MCP server Claude Code is given, as docs/agents.md spells `--mcp-config`: the shim's `mcp` on the storage. */
function mcpConfig(s: Sandbox): string {
  return JSON.stringify({
    mcpServers: { evidence: { command: s.shim, args: ['mcp', '--storage', s.storage, '--workspace', s.workspace] } },
  });
}

/**
 * The `.claude/settings.json` docs/agents.md gives for Claude Code, read from that page itself
 * (the first JSON block under "### Claude Code"), so the documented snippet is what runs.
 */
function readmeClaudeSettings(): string {
  const readme = readFileSync(path.join(repoRoot, 'docs', 'agents.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n### Claude Code\n'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);
  assert.ok(block, 'docs/agents.md has a JSON block under "### Claude Code"');
  const settings = JSON.parse(block[1]!) as { hooks?: { PreToolUse?: { matcher?: string }[] } };
  assert.equal(settings.hooks?.PreToolUse?.[0]?.matcher, 'Bash', 'the docs/agents.md snippet hooks Bash');
  return block[1]!;
}

function installClaudeHook(s: Sandbox): void {
  mkdirSync(path.join(s.workspace, '.claude'), { recursive: true });
  writeFileSync(path.join(s.workspace, '.claude', 'settings.json'), readmeClaudeSettings());
}

/** Runs `claude -p` in the sandbox against the scripted server; resolves with its exit code and output. */
async function runClaude(
  s: Sandbox,
  server: ScriptedAnthropic,
  extraEnv: Record<string, string> = {},
  permissions: readonly string[] = ['--allowedTools', 'Bash', 'mcp__evidence__read_tool_output'],
  config = mcpConfig(s),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { claude } = ensureTools();
  // A clean environment: nothing of this machine's (or a coding client's) Anthropic
  // settings leaks in, no telemetry, no update checks, no traffic but to the server.
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: s.home,
    TMPDIR: s.tmp,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    ANTHROPIC_BASE_URL: server.baseUrl,
    ANTHROPIC_API_KEY: 'sk-scripted-test',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // MCP tools are offered directly instead of behind Claude Code's tool search, so the
    // scripted model can call read_tool_output the way it is listed.
    ENABLE_TOOL_SEARCH: 'false',
    ...extraEnv,
  };
  const args = [
    '-p',
    'Why does the build fail?',
    '--output-format',
    'json',
    '--mcp-config',
    config,
    '--strict-mcp-config',
    ...permissions,
  ];
  return runAgent(claude, args, { cwd: s.workspace, env, timeoutMs: CLAUDE_TIMEOUT_MS });
}

/** True for a request of the main conversation (Claude Code offers its Bash tool there). */
function isAgentTurn(req: MessagesRequest): boolean {
  return (req.tools ?? []).some((t) => t.name === 'Bash');
}

describe('Reach: Claude Code from npm with a scripted Anthropic server on loopback', function () {
  this.timeout(CLAUDE_TIMEOUT_MS + 30_000);
  let sandbox: Sandbox;
  let server: ScriptedAnthropic | undefined;
  before(function () {
    // On a fresh machine this installs the tools (Claude Code: about 10 s; all: minutes).
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox();
  });
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
      if (agentTurns.length === 1)
        return {
          tool: { id: BASH_ID, name: 'Bash', input: { command: buildCommand, description: 'Build the project' } },
        };
      return { text: 'done' };
    });
    const run = await runClaude(sandbox, server);
    assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
    assert.equal(agentTurns.length, 2, 'two model turns: the Bash call, then the answer');
    const result = toolResultText(agentTurns[1]!, BASH_ID);
    assert.ok(result, 'the Bash result was given to the model');
    const bytes = Buffer.byteLength(result.text, 'utf8');
    console.log(
      `[reach] Claude Code, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${result.text.includes(NEEDLE) ? 'reached' : 'NOT reached'}`,
    );
    // Claude Code 2.1.332 keeps the head of the output and says nothing of the rest.
    assert.ok(result.text.startsWith('Exit code 1\n[000000] compiling'), result.text.slice(0, 200));
    assert.equal(result.isError, true);
    assert.ok(bytes < 16_384, `${bytes} bytes`);
    assert.ok(!result.text.includes(NEEDLE), 'the error line did not reach the model');
  });

  it("with the hook: Bash gives the model the bounded observation, read_tool_output over MCP the error line; the run names Claude's session", async () => {
    installClaudeHook(sandbox);
    const model = buildThenRead(isAgentTurn, 'Bash', (h) => ({
      name: 'mcp__evidence__read_tool_output',
      input: { handle: h, pattern: 'error TS' },
    }));
    const agentTurns = model.turns;
    server = await startScriptedAnthropic(model.script);
    // Claude Code started in a VS Code terminal: the extension set both variables there.
    const run = await runClaude(sandbox, server, terminalEnvironment(sandbox));
    assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
    assert.equal(agentTurns.length, 3, 'three model turns: Bash, read_tool_output, the answer');
    assert.ok(
      agentTurns[0]!.tools?.some((t) => t.name === 'mcp__evidence__read_tool_output'),
      'read_tool_output is offered through MCP',
    );

    const observation = toolResultText(agentTurns[1]!, BASH_ID);
    assert.ok(observation, 'the Bash result was given to the model');
    const obsBytes = Buffer.byteLength(observation.text, 'utf8');
    // Claude Code prefixes a failed command's output with its exit code; the rest is capture's text.
    assert.ok(observation.text.startsWith('Exit code 1\n$ node '), observation.text.slice(0, 300));
    assert.match(observation.text, /^exit code 1$/m);
    // Error-first (docs/contracts.md §2.13): the error line is in the first view, whole, with its line number and
    // the byte offset of its match; the head and tail previews follow.
    assert.ok(observation.text.includes(`\n${errorFirstStdout(model.handle())}`), observation.text);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);

    const read = toolResultText(agentTurns[2]!, READ_ID);
    assert.ok(read, 'the read_tool_output result was given to the model');
    assert.equal(read.isError, false, read.text);
    const reply = JSON.parse(read.text) as ReadToolOutputResult;
    // The model's pattern reply echoes nothing the call or the observation already said, and lists no count
    // its matches give and no `truncated: false` (docs/contracts.md §2.5).
    assert.deepEqual(Object.keys(reply), ['total_matches', 'content', 'matches']);
    assert.equal(reply.total_matches, 1);
    // `<line_number>:<line>`: the exact error line, on line 19,201 of 38,400.
    assert.equal(reply.content, `${LOG_LINES / 2 + 1}:${NEEDLE}`);
    // Where the match is in the bytes the command writes (run here the same way).
    const stdout = spawnSync('/bin/sh', ['-c', buildCommand], { maxBuffer: 1 << 30 }).stdout;
    const byteOffset = stdout.indexOf(NEEDLE) + NEEDLE.indexOf('error TS');
    assert.deepEqual(reply.matches, [
      { line_number: LOG_LINES / 2 + 1, byte_offset: byteOffset, column: NEEDLE.indexOf('error TS') + 1 },
    ]);
    // Byte for byte what the model was given.
    assert.equal(
      read.text,
      JSON.stringify({ total_matches: 1, content: `${LOG_LINES / 2 + 1}:${NEEDLE}`, matches: reply.matches }),
    );
    const readBytes = Buffer.byteLength(read.text, 'utf8');
    console.log(
      `[reach] Claude Code, hook + MCP: model received ${obsBytes} bytes (Bash) + ${readBytes} bytes (read_tool_output); needle reached at line ${reply.matches?.[0]?.line_number}`,
    );

    // The run is recorded as a routed terminal command of this Claude Code session.
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const routed = listRuns(sandbox).filter((r) => r.source?.kind === 'hook');
    assert.deepEqual(
      routed.map((r) => r.source),
      [{ kind: 'hook', agent: 'claude', sessionId }],
    );
    assert.equal(routed[0]!.status, 'completed');
  });

  it('routed by `bounded-evidence init --agent claude` (no README snippet): the observation, then one read by handle with Bash', async () => {
    const said = initInTerminal(sandbox, 'init', '--agent', 'claude');
    assert.match(
      said,
      /^Claude Code \[claude, project\]: \.claude\/settings\.json created, \.mcp\.json created; routed \(not detected: [^)]*\); undo: bounded-evidence init --uninstall --agent claude --project$/m,
    );
    const model = buildThenRead(isAgentTurn, 'Bash', (h) => ({
      name: 'Bash',
      input: { command: `${sh(sandbox.shim)} read ${h} --pattern 'error TS'`, description: 'Read the error' },
    }));
    const agentTurns = model.turns;
    const handle = (): string => model.handle();
    server = await startScriptedAnthropic(model.script);
    const run = await runClaude(sandbox, server, terminalEnvironment(sandbox));
    assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
    assert.equal(agentTurns.length, 3);
    const observation = toolResultText(agentTurns[1]!, BASH_ID)!;
    assert.ok(observation.text.includes(`\n${errorFirstStdout(handle())}`), observation.text);
    assert.ok(observation.text.startsWith('Exit code 1\n'), observation.text.slice(0, 100));
    // Nothing of the machine in what the model gets: no storage path, no session id.
    assert.ok(
      !observation.text.includes(sandbox.storage) && !observation.text.includes(sandbox.root),
      observation.text,
    );
    assert.ok(
      !observation.text.includes((JSON.parse(run.stdout) as { session_id: string }).session_id),
      'no session id',
    );
    const read = toolResultText(agentTurns[2]!, READ_ID)!;
    assert.equal((JSON.parse(read.text) as ReadToolOutputResult).content, `${LOG_LINES / 2 + 1}:${NEEDLE}`);
    console.log(
      `[reach] Claude Code, routed by init: model received ${Buffer.byteLength(observation.text)} bytes (Bash) + ${Buffer.byteLength(read.text)} bytes (read by handle with Bash); needle reached`,
    );
    assert.equal(
      initInTerminal(sandbox, 'init', '--uninstall', '--agent', 'claude'),
      'Claude Code [claude, project]: .claude/settings.json deleted, .mcp.json deleted; routing off\n',
    );
  });

  /**
   * The behaviour table of docs/contracts.md §6.1 against the real Claude Code: one session of Bash
   * calls run twice, without and with the hook, and what Claude Code hands its model for each call
   * compared. Claude Code's Bash keeps the working directory between calls (not exported variables).
   */
  async function bashResults(
    commands: readonly string[],
    hooked: boolean,
    permissions?: readonly string[],
    allowRules?: readonly string[],
  ): Promise<{ text: string; isError: boolean }[] & { kept?: string[] }> {
    const s = makeSandbox();
    try {
      if (hooked) installClaudeHook(s);
      if (allowRules) allowInSettings(s, allowRules);
      const { script, turns } = commandsInTurns(isAgentTurn, commands, 'toolu_row', 'ok', 'Bash');
      const srv = await startScriptedAnthropic(script);
      try {
        const run = await runClaude(s, srv, terminalEnvironment(s), permissions);
        assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      } finally {
        await srv.close();
      }
      const results: { text: string; isError: boolean }[] & { kept?: string[] } = commands.map((_, i) => {
        const r = toolResultText(turns[i + 1]!, `toolu_row_${i}`);
        assert.ok(r, `row ${i} has a result`);
        return { text: r.text.split(s.workspace).join('<workspace>'), isError: r.isError };
      });
      // What was routed: the runs kept (a small output is recorded in the background: its spool goes once it is).
      const spools = path.join(s.storage, 'evidence', 'spool');
      for (let i = 0; i < 200 && existsSync(spools) && readdirSync(spools).length > 0; i++)
        await new Promise((r) => setTimeout(r, 50));
      results.kept = listRuns(s)
        .filter((r) => r.source?.kind === 'hook')
        .map((r) => r.label ?? '')
        .sort();
      return results;
    } finally {
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('the behaviour table: cd sticks, bash syntax, small outputs and exit codes reach the model exactly as unrouted', async () => {
    const rows = [
      'mkdir -p sub && cd sub && pwd',
      'pwd',
      "printf 'hello\\n'",
      "sh -c 'exit 7'",
      'echo {1..3}; [[ a == a ]] && echo dbl; set -o pipefail; false | true; echo "pipe=$?"',
      "printf 'out\\n'; printf 'err\\n' >&2",
      '(sleep 1; echo late > late.txt) & echo started',
      'sleep 2; cat late.txt',
    ];
    const plain = await bashResults(rows, false);
    const routed = await bashResults(rows, true);
    for (let i = 0; i < rows.length; i++) {
      console.log(
        `[reach] Claude Code row ${i} ${JSON.stringify(rows[i])}: unrouted ${JSON.stringify(plain[i]!.text)} | routed ${JSON.stringify(routed[i]!.text)}`,
      );
      assert.deepEqual(routed[i], plain[i], rows[i]);
    }
    assert.equal(plain[1]!.text, '<workspace>/sub');
    assert.equal(plain[2]!.text, 'hello');
    assert.deepEqual(plain[3], { text: 'Exit code 7', isError: true });
    assert.equal(plain[7]!.text, 'late');
    // Every row was routed (the person's settings allow Bash): each is kept as a run of its own.
    assert.equal(routed.kept?.length, rows.length);
  });

  it("approvals (permission mode default): a settings allow rule routes the command; one no rule allows is refused in Claude Code's own words for the command as written; an --allowedTools rule, read from Claude Code's command line, routes too", async () => {
    const rows = ["printf 'approved\\n'", 'touch not-allowed.txt'];
    const mode = ['--permission-mode', 'default'];
    const settingsRule = [...mode, '--allowedTools', 'mcp__evidence__read_tool_output'];
    const plain = await bashResults(rows, false, settingsRule, ['Bash(printf:*)']);
    const routed = await bashResults(rows, true, settingsRule, ['Bash(printf:*)']);
    console.log(`[reach] Claude Code approvals: unrouted ${JSON.stringify(plain)} | routed ${JSON.stringify(routed)}`);
    assert.deepEqual(plain[0], { text: 'approved', isError: false });
    assert.deepEqual(routed[0], plain[0]);
    assert.equal(plain[1]!.isError, true);
    // The refusal is Claude Code's, byte for byte as unrouted: it names the command as written, nothing of ours.
    assert.deepEqual(routed[1], plain[1]);
    assert.match(routed[1]!.text, /^touch in '<workspace>\/not-allowed\.txt' needs approval/);
    assert.doesNotMatch(routed[1]!.text, /spool|8>>|keep|bounded-evidence/);
    assert.deepEqual(routed.kept, [`claude terminal: ${rows[0]}`]);

    const flagRule = [...mode, '--allowedTools', 'Bash(printf:*),mcp__evidence__read_tool_output'];
    const plainFlag = await bashResults(rows, false, flagRule, []);
    const routedFlag = await bashResults(rows, true, flagRule, []);
    console.log(
      `[reach] Claude Code --allowedTools: unrouted ${JSON.stringify(plainFlag)} | routed ${JSON.stringify(routedFlag)}`,
    );
    assert.deepEqual(plainFlag[0], { text: 'approved', isError: false });
    assert.deepEqual([...routedFlag], [...plainFlag]);
    // The hook reads --allowedTools from Claude Code's command line: the printf is routed and kept, the touch refused
    // as written.
    assert.deepEqual(routedFlag.kept, [`claude terminal: ${rows[0]}`]);
  });
  /** One Bash call of `command` with Claude Code's `timeout`: what the model got, then the runs kept, spools left. */
  async function atTimeLimit(
    command: string,
    hooked: boolean,
    timeout = 4000,
  ): Promise<{ text: string; kept: string[]; spools: string[] }> {
    const s = makeSandbox();
    try {
      if (hooked) installClaudeHook(s);
      const turns: MessagesRequest[] = [];
      const srv = await startScriptedAnthropic((req): ScriptedReply => {
        if (!isAgentTurn(req)) return { text: 'ok' };
        turns.push(req);
        return turns.length === 1
          ? { tool: { id: 'toolu_limit', name: 'Bash', input: { command, description: 'Run', timeout } } }
          : { text: 'done' };
      });
      try {
        const run = await runClaude(s, srv, terminalEnvironment(s));
        assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      } finally {
        await srv.close();
      }
      const r = toolResultText(turns[1]!, 'toolu_limit');
      assert.ok(r, 'the Bash call has a result');
      // `claude -p` waits for its background task: the command has ended and its recorder runs in the background.
      const spools = path.join(s.storage, 'evidence', 'spool');
      for (let i = 0; i < 200 && existsSync(spools) && readdirSync(spools).length > 0; i++)
        await new Promise((res) => setTimeout(res, 50));
      return {
        text: r.text
          .split(s.root)
          .join('<root>')
          .split(s.root.replace(/\//g, '-'))
          .join('<root>')
          .replace(/\/[0-9a-f-]{36}\//g, '/<session>/')
          .replace(/\b(?:ID: |tasks\/)[a-z0-9]+/g, '$&<id>'),
        kept: listRuns(s)
          .filter((x) => x.source?.kind === 'hook')
          .map((x) => x.label ?? ''),
        spools: existsSync(spools) ? readdirSync(spools) : [],
      };
    } finally {
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it("a command still running at Bash's timeout: the model gets what it printed so far as unrouted, and the run is kept", async () => {
    const command = "printf 'partial\\n'; sleep 8";
    const plain = await atTimeLimit(command, false);
    const routed = await atTimeLimit(command, true);
    console.log(
      `[reach] Claude Code at its time limit: unrouted ${JSON.stringify(plain.text.slice(0, 120))} | routed ${JSON.stringify(routed.text.slice(0, 120))}`,
    );
    assert.match(
      plain.text,
      /^partial\nCommand did not complete within its 4s timeout and was moved to the background/,
    );
    assert.equal(routed.text.replace(/[a-z0-9]+<id>/g, '<id>'), plain.text.replace(/[a-z0-9]+<id>/g, '<id>'));
    assert.deepEqual(routed.kept, [`claude terminal: ${command}`]);
    assert.deepEqual(routed.spools, []);
  });

  it("a large output still being written at Bash's timeout: the model gets the bounded observation so far, with the error line", async () => {
    // A limit long enough that recording 3 MB before it does not race a loaded machine.
    const routed = await atTimeLimit(`${buildCommand}; sleep 32`, true, 30_000);
    console.log(`[reach] Claude Code at its time limit, large: ${Buffer.byteLength(routed.text)} bytes`);
    assert.match(routed.text, /^still running at the time limit: the output so far$/m);
    assert.ok(routed.text.includes(errorFirstStdout(handleIn(routed.text))), routed.text.slice(0, 1500));
    assert.match(routed.text, /Command did not complete within its 30s timeout and was moved to the background/);
    assert.ok(Buffer.byteLength(routed.text) < 8192);
    assert.equal(routed.kept.length, 2, 'the output so far, then the whole run');
    assert.deepEqual(routed.spools, []);
  });

  it('replays to its model the commands it wrote: the call inputs of a 10-call conversation, routed and unrouted; no path, spool or product word in any request', async () => {
    const conversation = async (routed: boolean): Promise<{ reqs: MessagesRequest[]; kept: number }> => {
      const s = makeSandbox();
      try {
        if (routed) installClaudeHook(s);
        const srv = await startScriptedAnthropic(
          commandsInTurns(isAgentTurn, SMALL_COMMANDS, 'toolu_call', 'ok', 'Bash').script,
        );
        try {
          const run = await runClaude(s, srv, terminalEnvironment(s));
          assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
        } finally {
          await srv.close();
        }
        // (Claude Code's own prompt names the home folder, routed or not.)
        for (const req of srv.requests) {
          const body = JSON.stringify(req);
          assert.deepEqual(
            machineWords(body, s).filter((w) => w !== s.home),
            [],
            'nothing of the machine or the product',
          );
          assert.doesNotMatch(body, /BOUNDED_EVIDENCE|\/spool\/|1\.\$\$/);
        }
        const kept = routed ? (await keptRuns(s, 'claude', SMALL_COMMANDS.length)).runs.length : 0;
        return { reqs: srv.requests, kept };
      } finally {
        rmSync(s.root, { recursive: true, force: true });
      }
    };
    const plain = await conversation(false);
    const routed = await conversation(true);
    const last = (reqs: MessagesRequest[]): MessagesRequest => reqs.filter(isAgentTurn).at(-1)!;
    console.log(
      `[reach] Claude Code, call inputs replayed after ${SMALL_COMMANDS.length} calls: routed ${replayedBytes(last(routed.reqs))} bytes, unrouted ${replayedBytes(last(plain.reqs))}`,
    );
    assert.equal(replayedInputs(last(plain.reqs)).length, SMALL_COMMANDS.length);
    assert.deepEqual(replayedInputs(last(routed.reqs)), replayedInputs(last(plain.reqs)));
    assert.equal(routed.kept, SMALL_COMMANDS.length);
  });

  // The same server over Streamable HTTP (`mcp --http`), configured by URL and the start's bearer token.
  it('over HTTP: Claude Code reaches `mcp --http` by URL with the bearer token; its model gets the exact text of a call', async () => {
    const http = spawn(
      sandbox.shim,
      ['mcp', '--storage', sandbox.storage, '--workspace', sandbox.workspace, '--http'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    http.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    try {
      const infoFile = path.join(sandbox.storage, 'mcp-http.json');
      const end = Date.now() + 30_000;
      while (!existsSync(infoFile)) {
        assert.ok(Date.now() < end, `no ${infoFile}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const { url, token } = JSON.parse(readFileSync(infoFile, 'utf8')) as { url: string; token: string };
      const turns: MessagesRequest[] = [];
      server = await startScriptedAnthropic((req): ScriptedReply => {
        if (!isAgentTurn(req)) return { text: 'ok' };
        turns.push(req);
        if (turns.length === 1)
          return {
            tool: { id: 'toolu_http_1', name: 'mcp__evidence__evidence_runCommand', input: { command: 'seq 1 3' } },
          };
        return { text: 'done' };
      });
      const config = JSON.stringify({
        mcpServers: { evidence: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } },
      });
      const run = await runClaude(
        sandbox,
        server,
        {},
        ['--allowedTools', 'mcp__evidence__evidence_runCommand'],
        config,
      );
      assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      assert.equal(turns.length, 2, 'two model turns: the MCP call, then the answer');
      assert.ok(
        turns[0]!.tools?.some((t) => t.name === 'mcp__evidence__read_tool_output'),
        'the tools are offered over HTTP',
      );
      assert.deepEqual(toolResultText(turns[1]!, 'toolu_http_1'), {
        text: '$ seq 1 3\nexit code 0\nstdout: 6 bytes, 3 lines:\n1\n2\n3\n\nstderr: empty',
        isError: false,
      });
      // The revision Claude Code chose, as the server logs it once per client.
      const negotiated = /\] client (\S+ \S+) on protocol (\S+)\n/.exec(stderr);
      console.log(`[reach] Claude Code over HTTP: ${negotiated?.[1]} on protocol ${negotiated?.[2]}`);
      assert.equal(negotiated?.[2], '2026-07-28', stderr);
    } finally {
      http.kill('SIGTERM');
    }
  });
});
