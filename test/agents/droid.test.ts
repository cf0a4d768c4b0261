/**
 * Factory Droid from npm (its native binary @factory/cli-linux-x64, pinned in scripts/setup-tools.sh) against a
 * scripted OpenAI Chat Completions API on loopback: a custom model in `~/.factory/settings.json` (`customModels`,
 * `droid exec -m custom:…`), no sign-in, nothing leaves the machine. Its model runs the 3 MB build log through Droid's
 * own `Execute`; the test asserts on the request bodies the server receives, i.e. on exactly what Droid gives its model.
 * Routed by `bounded-evidence init --agent droid` itself (src/core/reach/agents/droid.ts).
 */
import * as assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureTools } from '../harness/tools.js';
import {
  buildCommand,
  errorFirstStdout,
  errorLineReply,
  handleIn,
  initInTerminal,
  keptRuns,
  listRuns,
  spoolsLeft,
  LOG_BYTES,
  makeSandbox,
  NEEDLE,
  pathWithCli,
  runAgent,
  type Sandbox,
  runsRecorded,
} from './agentSandbox.js';
import { startScriptedChat, toolMessage, type ChatReply, type ScriptedChat } from './chatCompletionsServer.js';

const TIMEOUT_MS = 120_000;
const READ_TOOL = 'bounded-evidence___read_tool_output';
const EXITED_1 = '[Process exited with code 1]';

/** The model's `Execute` call (Droid requires the model's own risk rating in its arguments). */
function execute(id: string, command: string, more: Record<string, unknown> = {}): ChatReply {
  return {
    call: {
      id,
      name: 'Execute',
      arguments: {
        ...more,
        command,
        summary: 'Run the project command',
        riskLevel: 'medium',
        riskLevelReason: 'It runs a project script that only prints.',
      },
    },
  };
}

/** `~/.factory/settings.json`: the scripted model, and the person's own settings. */
function userSettings(s: Sandbox, server: ScriptedChat, extra: Record<string, unknown> = {}): void {
  mkdirSync(path.join(s.home, '.factory'), { recursive: true });
  const model = {
    model: 'scripted',
    displayName: 'Scripted',
    baseUrl: server.baseUrl,
    apiKey: 'scripted-test-key',
    provider: 'generic-chat-completion-api',
    maxOutputTokens: 1000,
  };
  writeFileSync(path.join(s.home, '.factory', 'settings.json'), JSON.stringify({ customModels: [model], ...extra }));
}

/** `droid exec` in the workspace, at autonomy `auto`; `withCli`: the command line on PATH (else the product is absent). */
async function runDroid(
  s: Sandbox,
  auto: 'high' | 'medium' = 'high',
  withCli = true,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: withCli ? pathWithCli(s) : `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: s.home,
    TMPDIR: s.tmp,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
  };
  const args = ['exec', '-m', 'custom:Scripted-0', '--auto', auto, '-o', 'json', 'Why does the build fail?'];
  return runAgent(ensureTools().droid, args, { cwd: s.workspace, env, timeoutMs: TIMEOUT_MS });
}

/** Every file under `dir` with its text. */
function texts(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
  return Object.fromEntries(files.map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
}

describe('Reach: Factory Droid from npm with a scripted Chat Completions API on loopback', function () {
  this.timeout(TIMEOUT_MS + 60_000);
  let sandbox: Sandbox;
  let server: ScriptedChat | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('droid');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it("baseline, no hook: Droid gives its model the head and tail of the 3 MB output and its log file's path; Grep finds the line", async () => {
    let saved = '';
    server = await startScriptedChat((req, i): ChatReply => {
      if (i === 0) return execute('call_1', buildCommand);
      if (i === 1) {
        saved = /Full command output saved to: (\S+) \(/.exec(toolMessage(req, 'call_1') ?? '')?.[1] ?? 'none';
        const args = { pattern: 'error TS', path: saved, output_mode: 'content', line_numbers: true };
        return { call: { id: 'call_2', name: 'Grep', arguments: args } };
      }
      return { text: 'done' };
    });
    userSettings(sandbox, server);
    const run = await runDroid(sandbox);
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
    assert.equal(server.requests.length, 3);
    const out = toolMessage(server.requests[1]!, 'call_1')!;
    const bytes = Buffer.byteLength(out, 'utf8');
    // Droid 0.225 keeps 30 lines of the head and 30 of the end, and saves the whole output under TMPDIR.
    assert.ok(out.startsWith('Error: Command failed (exit code: 1)\n[000000] compiling'), out.slice(0, 200));
    assert.ok(out.endsWith(`(2.9MB)\n\n${EXITED_1}`), out.slice(-300));
    assert.ok(saved.startsWith(sandbox.tmp), saved);
    assert.ok(!out.includes(NEEDLE));
    const grep = toolMessage(server.requests[2]!, 'call_2') ?? '';
    console.log(
      `[reach] Factory Droid, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle NOT reached; ` +
        `its Grep on the saved log: ${Buffer.byteLength(grep)} bytes, ${JSON.stringify(grep.slice(0, 300))}`,
    );
    assert.equal(listRuns(sandbox).length, 0);
  });

  it('routed by `init --agent droid`: the bounded observation with the exit code, the error line after ToolSearch + one read; dry-run, doctor, byte-identical uninstall', async () => {
    // The person's own project MCP file, with a comment: init adds to it and uninstall gives back these bytes.
    const mine =
      '{\n  // my servers\n  "mcpServers": {\n    "mine": { "type": "stdio", "command": "true", "disabled": true }\n  }\n}\n';
    const factory = path.join(sandbox.workspace, '.factory');
    mkdirSync(factory);
    writeFileSync(path.join(factory, 'mcp.json'), mine);
    const dry = initInTerminal(sandbox, 'init', '--agent', 'droid', '--dry-run');
    assert.match(
      dry,
      /^Factory Droid \[droid, project\]: \.factory\/hooks\.json would be created, \.factory\/mcp\.json would be updated; would be routed/m,
    );
    assert.deepEqual(texts(factory), { 'mcp.json': mine });
    const said = initInTerminal(sandbox, 'init', '--agent', 'droid');
    assert.match(
      said,
      /^Factory Droid \[droid, project\]: \.factory\/hooks\.json created, \.factory\/mcp\.json updated; routed \(not detected: [^)]*\); undo: bounded-evidence init --uninstall --agent droid --project$/m,
    );
    assert.match(said, /^ {2}Droid routes only in autonomy High/m);
    const written = texts(factory);
    for (const text of Object.values(written))
      for (const word of [sandbox.root, '/usr/', 'file://', '.local/share'])
        assert.ok(!text.includes(word), `a project file names ${word}`);

    let handle = '';
    server = await startScriptedChat((req, i): ChatReply => {
      if (i === 0) return execute('call_1', buildCommand);
      if (i === 1) {
        handle = handleIn(toolMessage(req, 'call_1'));
        return { call: { id: 'call_2', name: 'ToolSearch', arguments: { query: `select:${READ_TOOL}` } } };
      }
      if (i === 2) return { call: { id: 'call_3', name: READ_TOOL, arguments: { handle, pattern: 'error TS' } } };
      return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
    });
    userSettings(sandbox, server);
    const run = await runDroid(sandbox);
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
    assert.equal(server.requests.length, 4);
    const obs = toolMessage(server.requests[1]!, 'call_1')!;
    const obsBytes = Buffer.byteLength(obs, 'utf8');
    // Droid's own words for a failed command, then the observation, then Droid's exit line: the command's status.
    assert.ok(obs.startsWith(`Error: Command failed (exit code: 1)\n$ ${buildCommand}\nexit code 1\n`), obs);
    assert.ok(obs.includes(`\n${errorFirstStdout(handle)}`), obs);
    assert.ok(obs.endsWith(`\n\n${EXITED_1}`), obs.slice(-200));
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);
    assert.ok(!obs.includes(sandbox.storage) && !obs.includes(sandbox.root), obs);
    assert.equal(toolMessage(server.requests[2]!, 'call_2'), `Loaded 1 tool(s): ${READ_TOOL}`);
    assert.ok(server.requests[2]!.tools?.some((t) => t.function.name === READ_TOOL));
    const read = toolMessage(server.requests[3]!, 'call_3')!;
    // Droid indents the tool's JSON; the content is the exact reply.
    assert.deepEqual(JSON.parse(read), JSON.parse(errorLineReply()));
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    assert.ok(!obs.includes(sessionId));
    console.log(
      `[reach] Factory Droid, routed by init: model received ${obsBytes} bytes (Execute) + ${Buffer.byteLength(read)} bytes (${READ_TOOL} after one ToolSearch); needle at line 19201`,
    );
    const routed = listRuns(sandbox).filter((r) => r.source?.kind === 'hook');
    assert.deepEqual(
      routed.map((r) => r.source),
      [{ kind: 'hook', agent: 'droid', sessionId }],
    );

    const doctor = initInTerminal(sandbox, 'doctor');
    assert.match(doctor, /^Factory Droid \[droid\]: detected: ~\/\.factory exists$/m);
    assert.match(
      doctor,
      /^ {2}project: routed \(\.factory\/hooks\.json ok, \.factory\/mcp\.json ok\)\n {4}Droid routes only/m,
    );
    assert.match(doctor, /^ {2}global: off \(~\/\.factory\/hooks\.json missing, ~\/\.factory\/mcp\.json missing\)$/m);
    assert.match(doctor, /^ {2}last routed command: \S+ droid terminal: node /m);

    assert.equal(
      initInTerminal(sandbox, 'init', '--uninstall', '--agent', 'droid'),
      'Factory Droid [droid, project]: .factory/hooks.json deleted, .factory/mcp.json restored; routing off\n',
    );
    assert.deepEqual(texts(factory), { 'mcp.json': mine });
  });

  it("routed by `init --agent droid --global` into the person's ~/.factory/settings.json hooks (no hooks.json then); uninstall gives back its bytes", async () => {
    let handle = '';
    server = await startScriptedChat((req, i): ChatReply => {
      if (i === 0) return execute('call_1', buildCommand);
      if (i === 1) {
        handle = handleIn(toolMessage(req, 'call_1'));
        const read = `bounded-evidence read ${handle} --pattern 'error TS'`;
        return execute('call_2', read);
      }
      return { text: 'done' };
    });
    // The person's own hook lives in settings.json: Droid reads it there only while hooks.json is absent.
    userSettings(sandbox, server, {
      hooks: { PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'true' }] }] },
    });
    const settings = path.join(sandbox.home, '.factory', 'settings.json');
    const before = readFileSync(settings, 'utf8');
    assert.match(
      initInTerminal(sandbox, 'init', '--agent', 'droid', '--global'),
      /^Factory Droid \[droid, global\]: ~\/\.factory\/settings\.json updated, ~\/\.factory\/mcp\.json created; routed/m,
    );
    assert.ok(!existsSync(path.join(sandbox.home, '.factory', 'hooks.json')));
    const run = await runDroid(sandbox);
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
    const obs = toolMessage(server.requests[1]!, 'call_1')!;
    assert.ok(obs.includes(`\n${errorFirstStdout(handle)}`), obs);
    // The read by handle through Execute: a small output, given back whole by the same hook.
    const read = toolMessage(server.requests[2]!, 'call_2')!;
    assert.deepEqual(JSON.parse(read.slice(0, read.lastIndexOf('\n\n\n['))), JSON.parse(errorLineReply()));
    console.log(
      `[reach] Factory Droid, routed by init --global: ${Buffer.byteLength(obs)} bytes (Execute) + ${Buffer.byteLength(read)} bytes (bounded-evidence read through Execute)`,
    );
    assert.equal(
      initInTerminal(sandbox, 'init', '--uninstall', '--agent', 'droid', '--global'),
      'Factory Droid [droid, global]: ~/.factory/settings.json restored, ~/.factory/mcp.json deleted; routing off\n',
    );
    assert.equal(readFileSync(settings, 'utf8'), before);
  });

  /** What Droid gives its model for each of `commands`, one session, with or without init's project files. */
  async function executeResults(
    commands: readonly string[],
    routed: boolean,
    auto: 'high' | 'medium' = 'high',
    settings: Record<string, unknown> = {},
  ): Promise<{ results: string[]; code: number | null; kept: number }> {
    const s = makeSandbox('droid');
    let srv: ScriptedChat | undefined;
    try {
      if (routed) initInTerminal(s, 'init', '--agent', 'droid');
      srv = await startScriptedChat((_req, i) =>
        i < commands.length ? execute(`call_${i}`, commands[i]!) : { text: 'done' },
      );
      userSettings(s, srv, settings);
      const run = await runDroid(s, auto);
      const results = commands.map((_, i) =>
        (toolMessage(srv!.requests[i + 1] ?? { model: '', messages: [] }, `call_${i}`) ?? '(no result)')
          .split(s.workspace)
          .join('<workspace>'),
      );
      const kept = routed && run.code === 0 ? (await runsRecorded(s, commands.length)).length : listRuns(s).length;
      return { results, code: run.code, kept };
    } finally {
      await srv?.close();
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('the behaviour table: exit codes, cd, bash syntax, small outputs whole reach the model exactly as unrouted', async () => {
    const rows = [
      'mkdir -p sub && cd sub && pwd',
      'pwd',
      "printf 'hello\\n'",
      "sh -c 'exit 7'",
      'echo {1..3}; [[ a == a ]] && echo dbl; set -o pipefail; false | true; echo "pipe=$?"',
      "printf 'out\\n'; printf 'err\\n' >&2",
    ];
    const plain = await executeResults(rows, false);
    const routed = await executeResults(rows, true);
    for (let i = 0; i < rows.length; i++)
      console.log(
        `[reach] Factory Droid row ${i} ${JSON.stringify(rows[i])}: unrouted ${JSON.stringify(plain.results[i])} | routed ${JSON.stringify(routed.results[i])}`,
      );
    assert.deepEqual(routed.results, plain.results);
    assert.equal(plain.results[0], '<workspace>/sub\n\n\n[Process exited with code 0]');
    // Each Execute is a new shell: the cd of the row before does not stay.
    assert.equal(plain.results[1], '<workspace>\n\n\n[Process exited with code 0]');
    assert.equal(plain.results[2], 'hello\n\n\n[Process exited with code 0]');
    assert.match(plain.results[3]!, /\[Process exited with code 7\]$/);
    assert.equal(routed.kept, rows.length, 'every row was routed and kept');
    assert.equal(plain.kept, 0);
  });

  it("approvals: below autonomy High, and for a command on the person's deny list, the command runs as written", async () => {
    const medium = await executeResults(["printf 'hello\\n'"], true, 'medium');
    assert.deepEqual(medium.results, (await executeResults(["printf 'hello\\n'"], false, 'medium')).results);
    assert.deepEqual([medium.code, medium.kept], [0, 0]);
    // Droid asks before a listed command, which droid exec cannot: it stops, routed or not.
    const deny = { commandDenylist: ['printf'] };
    const listed = await executeResults(["printf 'hello\\n'"], true, 'high', deny);
    const plain = await executeResults(["printf 'hello\\n'"], false, 'high', deny);
    console.log(`[reach] Factory Droid deny list: unrouted exit ${plain.code} | routed exit ${listed.code}`);
    assert.deepEqual([listed.code, listed.results, listed.kept], [plain.code, plain.results, 0]);
    assert.equal(plain.code, 1);
  });

  it("a teammate's clone (init's project files, the product absent): the command runs as written, no request names us", async () => {
    initInTerminal(sandbox, 'init', '--agent', 'droid');
    const clone = makeSandbox('droid-clone');
    try {
      cpSync(path.join(sandbox.workspace, '.factory'), path.join(clone.workspace, '.factory'), { recursive: true });
      const command = "printf 'hello from the clone\\n'; (exit 4)";
      server = await startScriptedChat((_req, i) => (i === 0 ? execute('call_1', command) : { text: 'done' }));
      userSettings(clone, server);
      const run = await runDroid(clone, 'high', false);
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const got = toolMessage(server.requests[1]!, 'call_1');
      assert.deepEqual([got], (await executeResults([command], false)).results);
      assert.match(
        got!,
        /^Error: Command failed \(exit code: 4\)\nhello from the clone\n[^]*\[Process exited with code 4\]$/,
      );
      const sent = JSON.stringify(server.requests);
      // Droid's own prompt says "evidence": our names and paths are what must be absent.
      for (const word of ['bounded-evidence', 'Bounded Evidence', 'BOUNDED_EVIDENCE', 'read_tool_output', sandbox.root])
        assert.ok(!sent.includes(word), `a request names ${word}`);
      assert.equal(listRuns(clone).length, 0);
    } finally {
      rmSync(clone.root, { recursive: true, force: true });
    }
  });

  it("a command still running at Execute's timeout: the model gets what it printed so far as unrouted, and the run is kept", async () => {
    const atLimit = async (routed: boolean): Promise<{ text: string; kept: number; spools: string[] }> => {
      const s = makeSandbox('droid-limit');
      const srv = await startScriptedChat((_req, i) =>
        i === 0 ? execute('call_limit', "printf 'partial\\n'; sleep 20", { timeout: 4 }) : { text: 'done' },
      );
      try {
        if (routed) initInTerminal(s, 'init', '--agent', 'droid');
        userSettings(s, srv);
        const run = await runDroid(s);
        assert.equal(run.code, 0, run.stderr.slice(-2000));
        const text = toolMessage(srv.requests[1]!, 'call_limit') ?? '';
        const kept = routed ? await keptRuns(s, 'droid', 1) : { runs: listRuns(s), spools: spoolsLeft(s) };
        return { text, kept: kept.runs.length, spools: kept.spools };
      } finally {
        await srv.close();
        rmSync(s.root, { recursive: true, force: true });
      }
    };
    const plain = await atLimit(false);
    const routed = await atLimit(true);
    console.log(
      `[reach] Factory Droid at its timeout: unrouted ${JSON.stringify(plain)} | routed ${JSON.stringify(routed)}`,
    );
    assert.match(plain.text, /^Command timed out after 4 seconds\.[^]*Partial output before timeout:\npartial/);
    assert.equal(routed.text, plain.text);
    assert.deepEqual([routed.kept, routed.spools, plain.kept], [1, [], 0]);
  });
});
