/**
 * Kilo Code's command line from npm (its native binary @kilocode/cli-linux-x64, pinned in scripts/setup-tools.sh)
 * against the scripted Anthropic Messages server on loopback: the `anthropic` provider with `baseURL` in the person's
 * `~/.config/kilo/kilo.json`, no sign-in. Its model runs the 3 MB build log through Kilo's `bash` tool; the test asserts
 * on the request bodies the server receives. Routed by `bounded-evidence init --agent kilo` itself
 * (src/core/reach/agents/kilo.ts).
 */
import * as assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureTools } from '../harness/tools.js';
import {
  buildCommand,
  buildThenRead,
  BASH_ID,
  commandsInTurns,
  errorLineReply,
  firstViewStdout,
  initInTerminal,
  keptRuns,
  listRuns,
  LOG_BYTES,
  machineWords,
  makeSandbox,
  NEEDLE,
  pathWithCli,
  READ_ID,
  runAgent,
  spoolsLeft,
  type Sandbox,
} from './agentSandbox.js';
import {
  startOneBashCall,
  startScriptedAnthropic,
  toolResultText,
  type MessagesRequest,
  type ScriptedAnthropic,
} from './anthropicServer.js';

/** Per session: Kilo's start alone takes minutes on a loaded machine. */
const TIMEOUT_MS = 360_000;
const READ_TOOL = 'bounded-evidence_read_tool_output';

const env = (s: Sandbox, withCli = true): NodeJS.ProcessEnv => ({
  PATH: withCli ? pathWithCli(s) : `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  HOME: s.home,
  TMPDIR: s.tmp,
  LANG: 'C.UTF-8',
  SHELL: '/bin/bash',
  XDG_CONFIG_HOME: path.join(s.home, '.config'),
  XDG_DATA_HOME: path.join(s.home, '.local', 'share'),
  XDG_CACHE_HOME: path.join(s.home, '.cache'),
  XDG_STATE_HOME: path.join(s.home, '.local', 'state'),
  KILO_DISABLE_MODELS_FETCH: '1',
  KILO_DISABLE_AUTOUPDATE: '1',
  KILO_DISABLE_CODEBASE_INDEXING: '1',
  KILO_TELEMETRY_LEVEL: 'off',
});

/** The person's `~/.config/kilo/kilo.json`: the scripted model; the project's `kilo.json` stays init's alone. */
function userConfig(s: Sandbox, server: ScriptedAnthropic): void {
  const dir = path.join(s.home, '.config', 'kilo');
  mkdirSync(dir, { recursive: true });
  const config = {
    model: 'anthropic/claude-sonnet-4-5',
    provider: { anthropic: { options: { baseURL: `${server.baseUrl}/v1`, apiKey: 'sk-scripted-test' } } },
  };
  writeFileSync(path.join(dir, 'kilo.json'), `${JSON.stringify(config, null, 2)}\n`);
}

const isAgentTurn = (req: MessagesRequest): boolean => (req.tools ?? []).some((t) => t.name === 'bash');

async function runKilo(s: Sandbox, withCli = true): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runAgent(ensureTools().kilo, ['run', 'Why does the build fail?'], {
    cwd: s.workspace,
    env: env(s, withCli),
    timeoutMs: TIMEOUT_MS,
  });
}

/** The results Kilo gives its model for `commands`, one call each, in a fresh sandbox routed by init or not. */
async function bashResults(
  commands: readonly string[],
  routed: boolean,
): Promise<{ results: (string | undefined)[]; kept: number; code: number | null }> {
  const s = makeSandbox('kilo-rows');
  const { script, turns } = commandsInTurns(isAgentTurn, commands, 'toolu_row', 'title');
  const server = await startScriptedAnthropic(script);
  try {
    userConfig(s, server);
    if (routed) initInTerminal(s, 'init', '--agent', 'kilo');
    const run = await runKilo(s);
    const last = turns.at(-1)!;
    const results = commands.map((_, i) =>
      toolResultText(last, `toolu_row_${i}`)?.text.split(s.workspace).join('<workspace>'),
    );
    const kept = routed ? (await keptRuns(s, 'kilo', commands.length)).runs.length : listRuns(s).length;
    return { results, kept, code: run.code };
  } finally {
    await server.close();
    rmSync(s.root, { recursive: true, force: true });
  }
}

/** One bash call of `command` with Kilo's `timeout`: what the model got, the runs kept, the spools left. */
async function atTimeLimit(
  command: string,
  routed: boolean,
): Promise<{ text: string; kept: number; spools: string[] }> {
  const s = makeSandbox('kilo-limit');
  const { server, result } = await startOneBashCall({ command, description: 'Run', timeout: 4000 }, 'title');
  try {
    userConfig(s, server);
    if (routed) initInTerminal(s, 'init', '--agent', 'kilo');
    const run = await runKilo(s);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const text = result();
    const kept = routed ? await keptRuns(s, 'kilo', 1) : { runs: listRuns(s), spools: spoolsLeft(s) };
    return { text, kept: kept.runs.length, spools: kept.spools };
  } finally {
    await server.close();
    rmSync(s.root, { recursive: true, force: true });
  }
}

describe('Reach: Kilo Code from npm with a scripted Anthropic server on loopback', function () {
  this.timeout(TIMEOUT_MS + 60_000);
  let sandbox: Sandbox;
  let server: ScriptedAnthropic | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('kilo');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it('baseline, no plugin: Kilo gives its model a cut of the 3 MB output, without the error line', async () => {
    const { script, turns } = commandsInTurns(isAgentTurn, [buildCommand], 'toolu_build', 'title');
    server = await startScriptedAnthropic(script);
    userConfig(sandbox, server);
    const run = await runKilo(sandbox);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const out = toolResultText(turns.at(-1)!, 'toolu_build_0');
    assert.ok(out, 'the bash result reached the model');
    const bytes = Buffer.byteLength(out.text, 'utf8');
    console.log(
      `[reach] Kilo Code, no plugin: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${out.text.includes(NEEDLE) ? 'reached' : 'NOT reached'}`,
    );
    if (process.env.BE_DUMP) console.log(out.text.slice(0, 600), '\n…\n', out.text.slice(-600));
    assert.ok(!out.text.includes(NEEDLE));
  });

  it('routed by `init --agent kilo`: the bounded observation with the exit code, one read the error line; dry-run, doctor, byte-identical uninstall', async () => {
    // The person's own project config, with a comment: init adds to it and uninstall gives back these bytes.
    const mine = '{\n  // my project\n  "$schema": "https://app.kilo.ai/config.json",\n  "instructions": []\n}\n';
    const config = path.join(sandbox.workspace, 'kilo.json');
    writeFileSync(config, mine);
    const dry = initInTerminal(sandbox, 'init', '--agent', 'kilo', '--dry-run');
    assert.match(
      dry,
      /^Kilo Code \[kilo, project\]: \.bounded-evidence\/kilo-plugin\.js would be created, kilo\.json would be updated; would be routed/m,
    );
    assert.equal(readFileSync(config, 'utf8'), mine);
    assert.deepEqual(readdirSync(sandbox.workspace), ['kilo.json']);
    const said = initInTerminal(sandbox, 'init', '--agent', 'kilo');
    assert.match(
      said,
      /^Kilo Code \[kilo, project\]: \.bounded-evidence\/kilo-plugin\.js created, kilo\.json updated; routed \(not detected: [^)]*\); undo: bounded-evidence init --uninstall --agent kilo --project$/m,
    );
    for (const file of [config, path.join(sandbox.workspace, '.bounded-evidence', 'kilo-plugin.js')])
      for (const word of [sandbox.root, '/usr/', 'file://', '.local/share'])
        assert.ok(!readFileSync(file, 'utf8').includes(word), `${file} names ${word}`);

    const model = buildThenRead(isAgentTurn, 'bash', (handle) => ({
      name: READ_TOOL,
      input: { handle, pattern: 'error TS' },
    }));
    server = await startScriptedAnthropic(model.script);
    userConfig(sandbox, server);
    const run = await runKilo(sandbox);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(model.turns.length, 3, `three model turns (${run.stderr.slice(-1000)})`);
    const obs = toolResultText(model.turns[1]!, BASH_ID)!.text;
    if (process.env.BE_DUMP) console.log(obs);
    const obsBytes = Buffer.byteLength(obs, 'utf8');
    assert.match(obs, /^exit code 1$/m);
    assert.ok(obs.includes(firstViewStdout(model.handle())), obs);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);
    assert.ok(!obs.includes(sandbox.storage) && !obs.includes(sandbox.root), obs);
    const read = toolResultText(model.turns[2]!, READ_ID)!.text;
    assert.ok(read.includes(errorLineReply()), read.slice(0, 600));
    console.log(
      `[reach] Kilo Code, routed by init: model received ${obsBytes} bytes (bash) + ${Buffer.byteLength(read, 'utf8')} bytes (${READ_TOOL}); needle at line 19201`,
    );
    assert.equal(listRuns(sandbox).filter((r) => r.source?.kind === 'hook' && r.source.agent === 'kilo').length, 1);
    // Nothing installed into the project: kilo.json and the plugin file.
    assert.deepEqual(readdirSync(sandbox.workspace).sort(), ['.bounded-evidence', 'kilo.json']);
    // Kilo's own prompt names the person's config folder (under the home), routed or not; nothing else of the machine.
    for (const req of server.requests)
      assert.deepEqual(
        machineWords(JSON.stringify(req), sandbox).filter((w) => w !== sandbox.home),
        [],
      );

    const doctor = initInTerminal(sandbox, 'doctor');
    assert.match(doctor, /^ {2}project: routed \(\.bounded-evidence\/kilo-plugin\.js ok, kilo\.json ok\)$/m);
    assert.match(doctor, /^ {2}last routed command: \S+ kilo terminal: node /m);
    assert.equal(
      initInTerminal(sandbox, 'init', '--uninstall', '--agent', 'kilo'),
      'Kilo Code [kilo, project]: .bounded-evidence/kilo-plugin.js deleted, kilo.json restored; routing off\n',
    );
    assert.equal(readFileSync(config, 'utf8'), mine);
  });

  it('the behaviour table: exit codes, cd, bash syntax, small outputs whole reach the model exactly as unrouted, all kept', async function () {
    this.timeout(2 * TIMEOUT_MS + 60_000);
    const rows = [
      'mkdir -p sub && cd sub && pwd',
      'pwd',
      "printf 'hello\\n'",
      "sh -c 'exit 7'",
      'echo {1..3}; [[ a == a ]] && echo dbl; set -o pipefail; false | true; echo "pipe=$?"',
      "printf 'out\\n'; printf 'err\\n' >&2",
    ];
    const plain = await bashResults(rows, false);
    const routed = await bashResults(rows, true);
    for (let i = 0; i < rows.length; i++)
      console.log(
        `[reach] Kilo Code row ${i} ${JSON.stringify(rows[i])}: unrouted ${JSON.stringify(plain.results[i])} | routed ${JSON.stringify(routed.results[i])}`,
      );
    assert.deepEqual(routed.results, plain.results);
    assert.equal(plain.results[2], 'hello\n');
    assert.equal(routed.kept, rows.length, 'every row was routed and kept');
    assert.equal(plain.kept, 0);
  });

  it("a teammate's clone (init's project files, the product absent): the command runs as written, no request names us", async function () {
    this.timeout(2 * TIMEOUT_MS + 60_000);
    initInTerminal(sandbox, 'init', '--agent', 'kilo');
    const clone = makeSandbox('kilo-clone');
    try {
      cpSync(path.join(sandbox.workspace, 'kilo.json'), path.join(clone.workspace, 'kilo.json'));
      cpSync(path.join(sandbox.workspace, '.bounded-evidence'), path.join(clone.workspace, '.bounded-evidence'), {
        recursive: true,
      });
      const command = "printf 'hello from the clone\\n'; (exit 4)";
      const { script, turns } = commandsInTurns(isAgentTurn, [command], 'toolu_clone', 'title');
      server = await startScriptedAnthropic(script);
      userConfig(clone, server);
      const run = await runKilo(clone, false);
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const got = toolResultText(turns.at(-1)!, 'toolu_clone_0')?.text;
      assert.deepEqual([got], (await bashResults([command], false)).results);
      const sent = JSON.stringify(server.requests);
      for (const word of [
        'bounded-evidence',
        'Bounded Evidence',
        'BOUNDED_EVIDENCE',
        'read_tool_output',
        clone.storage,
      ])
        assert.ok(!sent.includes(word), `a request names ${word}`);
      assert.equal(listRuns(clone).length, 0);
    } finally {
      rmSync(clone.root, { recursive: true, force: true });
    }
  });

  it('a command still running at its bash timeout: the model gets what it printed so far as unrouted, and the run is kept', async function () {
    this.timeout(2 * TIMEOUT_MS + 60_000);
    const command = "printf 'partial\\n'; sleep 20";
    const plain = await atTimeLimit(command, false);
    const routed = await atTimeLimit(command, true);
    console.log(
      `[reach] Kilo Code at its time limit: unrouted ${JSON.stringify(plain.text)} | routed ${JSON.stringify(routed.text)}`,
    );
    assert.match(plain.text, /^partial\n/);
    assert.equal(routed.text, plain.text);
    assert.equal(routed.kept, 1);
    assert.deepEqual(routed.spools, []);
    assert.equal(plain.kept, 0);
  });
});
