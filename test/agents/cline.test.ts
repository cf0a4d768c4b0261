/**
 * Cline's command line from npm (`cline`, its native binary from @cline/cli-linux-x64, pinned in
 * scripts/setup-tools.sh) against a scripted OpenAI Chat Completions API on loopback: `cline auth --provider
 * openai-compatible --baseurl …`, no sign-in, nothing leaves the machine. Its model runs the 3 MB build log through
 * Cline's own `run_commands`; the test asserts on the request bodies the server receives, i.e. on exactly what Cline
 * gives its model. Routed by `bounded-evidence init --agent cline` itself (src/core/reach/agents/cline.ts).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { ensureTools } from '../harness/tools.js';
import {
  buildCommand,
  errorFirstStdout,
  errorLineReply,
  handleIn,
  initInTerminal,
  listRuns,
  LOG_BYTES,
  makeSandbox,
  NEEDLE,
  pathWithCli,
  runAgent,
  terminalEnvironment,
  type Sandbox,
  runsRecorded,
} from './agentSandbox.js';
import { RULE_MARK } from '../../src/core/reach/agents/rules.js';
import { startScriptedChat, toolMessage, type ChatReply, type ScriptedChat } from './chatCompletionsServer.js';

const TIMEOUT_MS = 120_000;
const EXITED_1 = '[Command exited with code 1]';

/** One result of Cline's `run_commands`, as its model gets it (a JSON list, one entry per command). */
interface Ran {
  query: string;
  result: string;
  success: boolean;
  error?: string;
}

function runCommands(id: string, command: string): ChatReply {
  return { call: { id, name: 'run_commands', arguments: { commands: [command] } } };
}

/** Every process still running with the sandbox in its command line or folder (Cline's hub daemon), ended by id. */
function endLeftovers(s: Sandbox): void {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (args.includes(s.root) || cwd.startsWith(s.root)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* gone, or not ours to read */
    }
  }
}

type Where = 'plain' | 'vscode' | 'absent';

/** The terminal Cline is started in: the command line on PATH, a VS Code terminal's variables, or neither. */
function envFor(s: Sandbox, where: Where): NodeJS.ProcessEnv {
  const bare = `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
  return {
    PATH: where === 'plain' ? pathWithCli(s) : bare,
    ...(where === 'vscode' ? terminalEnvironment(s) : {}),
    HOME: s.home,
    TMPDIR: s.tmp,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    CLINE_NO_AUTO_UPDATE: '1',
  };
}

/** `cline auth` to the scripted server, then one headless task in the workspace (auto-approve, Cline's default). */
async function runCline(
  s: Sandbox,
  server: ScriptedChat,
  where: Where,
  extra: readonly string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = envFor(s, where);
  const cline = ensureTools().cline;
  try {
    const auth = ['auth', '-p', 'openai-compatible', '-k', 'scripted-test-key', '-m', 'scripted', '-b', server.baseUrl];
    const a = spawnSync(cline, auth, { cwd: s.workspace, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(a.status, 0, a.stderr + a.stdout);
    return await runAgent(cline, [...extra, '--json', 'Why does the build fail?'], {
      cwd: s.workspace,
      env,
      timeoutMs: TIMEOUT_MS,
    });
  } finally {
    endLeftovers(s);
  }
}

/** The one command's result in request `i + 1`'s tool message `id`. */
function ranIn(server: ScriptedChat, i: number, id: string): Ran {
  const text = toolMessage(server.requests[i + 1] ?? { model: '', messages: [] }, id);
  const list = JSON.parse(text ?? '[{"query":"","result":"(no result)","success":false}]') as Ran[];
  assert.equal(list.length, 1, text);
  return list[0]!;
}

function texts(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
    statSync(path.join(dir, f)).isFile(),
  );
  return Object.fromEntries(files.map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
}

describe('Reach: Cline command line from npm with a scripted Chat Completions API on loopback', function () {
  this.timeout(TIMEOUT_MS + 90_000);
  let sandbox: Sandbox;
  let server: ScriptedChat | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('cline');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it("baseline, no hook: Cline cuts the 3 MB output's middle, where the error line is; a second run with grep finds it", async () => {
    const grep = `${buildCommand} | grep -n 'error TS'`;
    server = await startScriptedChat((_req, i) =>
      i === 0 ? runCommands('call_1', buildCommand) : i === 1 ? runCommands('call_2', grep) : { text: 'done' },
    );
    const run = await runCline(sandbox, server, 'plain');
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
    const first = ranIn(server, 0, 'call_1');
    const bytes = Buffer.byteLength(toolMessage(server.requests[1]!, 'call_1')!, 'utf8');
    assert.deepEqual([first.success, first.error], [false, 'Command exited with code 1']);
    assert.ok(first.result.startsWith(`${EXITED_1}\n[000000] compiling`), first.result.slice(0, 200));
    assert.ok(!first.result.includes(NEEDLE));
    assert.ok(bytes < LOG_BYTES / 10, `${bytes} bytes`);
    const second = ranIn(server, 1, 'call_2');
    assert.equal(second.result, `19201:${NEEDLE}\n\n[stderr]\nbuild finished with 1 error after 38400 steps\n`);
    console.log(
      `[reach] Cline, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle NOT reached; ` +
        `a second run piped to grep: ${Buffer.byteLength(toolMessage(server.requests[2]!, 'call_2')!)} bytes`,
    );
    assert.equal(listRuns(sandbox).length, 0);
  });

  it('routed by `init --agent cline` in a VS Code terminal: the observation with the exit code, the error line in one read; dry-run, doctor, byte-identical uninstall', async () => {
    // The person's own Cline hook in the same folder: init adds beside it and uninstall leaves it alone.
    const hooks = path.join(sandbox.workspace, '.cline', 'hooks');
    mkdirSync(hooks, { recursive: true });
    const mine = '#!/bin/sh\necho "{}"\n';
    writeFileSync(path.join(hooks, 'TaskStart'), mine);
    const dry = initInTerminal(sandbox, 'init', '--agent', 'cline', '--dry-run');
    assert.match(
      dry,
      /^Cline \(command line\) \[cline, project\]: \.cline\/hooks\/PreToolUse would be created; would be routed/m,
    );
    assert.deepEqual(texts(hooks), { TaskStart: mine });
    const said = initInTerminal(sandbox, 'init', '--agent', 'cline');
    assert.match(
      said,
      /^Cline \(command line\) \[cline, project\]: \.cline\/hooks\/PreToolUse created; routed \(not detected: [^)]*\); undo: bounded-evidence init --uninstall --agent cline --project$/m,
    );
    const hookText = readFileSync(path.join(hooks, 'PreToolUse'), 'utf8');
    for (const word of [sandbox.root, '/usr/', '.local/share', 'dist/'])
      assert.ok(!hookText.includes(word), `the project's hook names ${word}`);

    let handle = '';
    server = await startScriptedChat((req, i) => {
      if (i === 0) return runCommands('call_1', buildCommand);
      if (i === 1) {
        handle = handleIn(toolMessage(req, 'call_1'));
        return runCommands('call_2', `"$BOUNDED_EVIDENCE_CLI" read ${handle} --pattern 'error TS'`);
      }
      return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
    });
    const run = await runCline(sandbox, server, 'vscode');
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
    assert.equal(server.requests.length, 3);
    const obs = ranIn(server, 0, 'call_1');
    const obsBytes = Buffer.byteLength(toolMessage(server.requests[1]!, 'call_1')!, 'utf8');
    // Cline's own exit line, then the observation: the command's status both ways.
    assert.deepEqual([obs.success, obs.error], [false, 'Command exited with code 1']);
    assert.ok(obs.result.startsWith(`${EXITED_1}\n$ ${buildCommand}\nexit code 1\n`), obs.result);
    assert.ok(obs.result.includes(`\n${errorFirstStdout(handle)}`), obs.result);
    assert.ok(obs.result.includes(`"$BOUNDED_EVIDENCE_CLI" read ${handle}`), obs.result);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);
    // Cline echoes what ran (200 characters): here the storage and command line by their variables, no path.
    assert.ok(obs.query.startsWith(`{ ${buildCommand} ; } 8>>"$BOUNDED_EVIDENCE_STORAGE"/evidence/spool/`), obs.query);
    const read = ranIn(server, 1, 'call_2');
    assert.deepEqual(JSON.parse(read.result), JSON.parse(errorLineReply()));
    const sent = JSON.stringify(server.requests);
    assert.ok(!sent.includes(sandbox.storage) && !sent.includes(sandbox.shim), 'a request names a sandbox path');
    // Cline replays the model's own calls: the command as written.
    const replayed = server.requests[2]!.messages.find((m) => m.role === 'assistant');
    assert.ok(
      JSON.stringify(replayed).includes(JSON.stringify(JSON.stringify({ commands: [buildCommand] })).slice(1, -1)),
    );
    console.log(
      `[reach] Cline, routed by init: model received ${obsBytes} bytes (run_commands) + ` +
        `${Buffer.byteLength(toolMessage(server.requests[2]!, 'call_2')!)} bytes (the read through run_commands); needle at line 19201`,
    );
    const routed = listRuns(sandbox).filter((r) => r.source?.kind === 'hook');
    assert.deepEqual(
      routed.map((r) => r.source?.agent),
      ['cline', 'cline'],
    );

    const doctor = initInTerminal(sandbox, 'doctor');
    assert.match(doctor, /^ {2}project: routed \(\.cline\/hooks\/PreToolUse ok\)$/m);
    assert.equal(
      initInTerminal(sandbox, 'init', '--uninstall', '--agent', 'cline'),
      'Cline (command line) [cline, project]: .cline/hooks/PreToolUse deleted; routing off\n',
    );
    assert.deepEqual(texts(hooks), { TaskStart: mine });
  });

  it("routed by `init --agent cline --global` in a plain terminal: the MCP server in the user's settings reads the handle", async () => {
    let handle = '';
    let readTool = '';
    server = await startScriptedChat((req, i) => {
      if (i === 0) return runCommands('call_1', buildCommand);
      if (i === 1) {
        handle = handleIn(toolMessage(req, 'call_1'));
        readTool = req.tools?.find((t) => t.function.name.endsWith('read_tool_output'))?.function.name ?? 'none';
        return { call: { id: 'call_2', name: readTool, arguments: { handle, pattern: 'error TS' } } };
      }
      return { text: 'done' };
    });
    const settings = path.join(sandbox.home, '.cline', 'data', 'settings', 'cline_mcp_settings.json');
    assert.match(
      initInTerminal(sandbox, 'init', '--agent', 'cline', '--global'),
      /^Cline \(command line\) \[cline, global\]: ~\/\.cline\/hooks\/PreToolUse created, ~\/\.cline\/data\/settings\/cline_mcp_settings\.json created; routed/m,
    );
    const run = await runCline(sandbox, server, 'plain');
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
    const obs = ranIn(server, 0, 'call_1');
    assert.ok(obs.result.includes(`\n${errorFirstStdout(handle)}`), obs.result);
    assert.equal(readTool, 'bounded-evidence__read_tool_output');
    const read = toolMessage(server.requests[2]!, 'call_2') ?? '';
    // Cline passes the MCP result on as it came: the exact reply inside its text part.
    const parts = (JSON.parse(read) as { content?: { type: string; text: string }[] }).content ?? [];
    assert.deepEqual(
      parts.map((p) => [p.type, JSON.parse(p.text) as unknown]),
      [['text', JSON.parse(errorLineReply())]],
    );
    console.log(
      `[reach] Cline, routed by init --global: ${Buffer.byteLength(toolMessage(server.requests[1]!, 'call_1')!)} bytes (run_commands) + ` +
        `${Buffer.byteLength(read)} bytes (${readTool}); the echoed command names the paths: ${JSON.stringify(obs.query.slice(0, 120))}`,
    );
    assert.equal(
      initInTerminal(sandbox, 'init', '--uninstall', '--agent', 'cline', '--global'),
      'Cline (command line) [cline, global]: ~/.cline/hooks/PreToolUse deleted, ~/.cline/data/settings/cline_mcp_settings.json deleted; routing off\n',
    );
    assert.ok(!existsSync(settings));
  });

  /** What Cline gives its model for each of `commands`, one session, with or without init's project files. */
  async function results(
    commands: readonly string[],
    routed: boolean,
  ): Promise<{ ran: Ran[]; code: number | null; kept: number }> {
    const s = makeSandbox('cline');
    let srv: ScriptedChat | undefined;
    try {
      if (routed) initInTerminal(s, 'init', '--agent', 'cline');
      srv = await startScriptedChat((_req, i) =>
        i < commands.length ? runCommands(`call_${i}`, commands[i]!) : { text: 'done' },
      );
      const run = await runCline(s, srv, 'plain');
      const ran = commands.map((_, i) => {
        const r = ranIn(srv!, i, `call_${i}`);
        return { ...r, result: r.result.split(s.workspace).join('<workspace>') };
      });
      const kept = routed && run.code === 0 ? (await runsRecorded(s, commands.length)).length : listRuns(s).length;
      return { ran, code: run.code, kept };
    } finally {
      await srv?.close();
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('the behaviour table: exit codes, cd, bash syntax, small and failing outputs reach the model exactly as unrouted, and are kept', async () => {
    const rows = [
      'mkdir -p sub && cd sub && pwd',
      'pwd',
      "printf 'hello\\n'",
      "sh -c 'exit 7'",
      'echo {1..3}; [[ a == a ]] && echo dbl; set -o pipefail; false | true; echo "pipe=$?"',
      "printf 'out\\n'; printf 'err\\n' >&2; exit 3",
    ];
    const plain = await results(rows, false);
    const routed = await results(rows, true);
    const seen = (r: Ran) => ({ result: r.result, success: r.success, error: r.error });
    for (let i = 0; i < rows.length; i++)
      console.log(
        `[reach] Cline row ${i} ${JSON.stringify(rows[i])}: unrouted ${JSON.stringify(seen(plain.ran[i]!))} | routed ${JSON.stringify(seen(routed.ran[i]!))}`,
      );
    assert.deepEqual(routed.ran.map(seen), plain.ran.map(seen));
    // The echoed command is the one difference: Cline shows what ran.
    assert.deepEqual(
      plain.ran.map((r) => r.query),
      rows,
    );
    assert.equal(plain.ran[0]!.result, '<workspace>/sub\n');
    // Each command runs in a new shell: the cd of the row before does not stay.
    assert.equal(plain.ran[1]!.result, '<workspace>\n');
    assert.deepEqual(seen(plain.ran[3]!), {
      result: '[Command exited with code 7]',
      success: false,
      error: 'Command exited with code 7',
    });
    assert.equal(routed.kept, rows.length - 1, 'every row but the one ending the shell was routed and kept');
    assert.equal(plain.kept, 0);
  });

  it('approvals: started with --auto-approve false, Cline refuses the command as written, routed or not, and nothing is kept', async () => {
    const refused = async (routed: boolean): Promise<{ text: string | undefined; spools: boolean }> => {
      const s = makeSandbox('cline');
      let srv: ScriptedChat | undefined;
      try {
        if (routed) initInTerminal(s, 'init', '--agent', 'cline');
        srv = await startScriptedChat((_req, i) =>
          i === 0 ? runCommands('call_1', "printf 'hello\\n'") : { text: 'done' },
        );
        const run = await runCline(s, srv, 'plain', ['--auto-approve', 'false']);
        assert.equal(run.code, 0, run.stderr.slice(-2000));
        return {
          text: toolMessage(srv.requests[1]!, 'call_1'),
          spools: existsSync(path.join(s.storage, 'evidence', 'spool')),
        };
      } finally {
        await srv?.close();
        rmSync(s.root, { recursive: true, force: true });
      }
    };
    const routed = await refused(true);
    assert.deepEqual(routed, await refused(false));
    assert.match(routed.text!, /requires approval in a TTY session/);
    assert.equal(routed.spools, false, 'the hook prepared no spool');
  });

  it("a teammate's clone (init's project files, the product absent): the command runs as written, no request names us", async () => {
    initInTerminal(sandbox, 'init', '--agent', 'cline');
    const clone = makeSandbox('cline-clone');
    try {
      cpSync(path.join(sandbox.workspace, '.cline'), path.join(clone.workspace, '.cline'), { recursive: true });
      const command = "printf 'hello from the clone\\n'; (exit 4)";
      server = await startScriptedChat((_req, i) => (i === 0 ? runCommands('call_1', command) : { text: 'done' }));
      const run = await runCline(clone, server, 'absent');
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const got = ranIn(server, 0, 'call_1');
      assert.deepEqual(got, {
        query: command,
        result: '[Command exited with code 4]\nhello from the clone\n',
        error: 'Command exited with code 4',
        success: false,
      });
      const sent = JSON.stringify(server.requests);
      for (const word of ['bounded-evidence', 'Bounded Evidence', 'BOUNDED_EVIDENCE', 'read_tool_output', sandbox.root])
        assert.ok(!sent.includes(word), `a request names ${word}`);
      assert.equal(listRuns(clone).length, 0);
    } finally {
      endLeftovers(clone);
      rmSync(clone.root, { recursive: true, force: true });
    }
  });
  /**
   * Cline's extension gets the MCP server and a rule (`init --agent cline-vscode`, project and `--global`); the command
   * line reads the same rule folder and MCP file, so it stands in for the extension here. The scripted model follows the
   * rule or not: what its model gets either way.
   */
  async function underTheRule(honoured: boolean): Promise<{ system: string; text: string; handle: string }> {
    const s = makeSandbox('cline-rule');
    let srv: ScriptedChat | undefined;
    let tool = '';
    try {
      initInTerminal(s, 'init', '--agent', 'cline-vscode');
      initInTerminal(s, 'init', '--agent', 'cline-vscode', '--global');
      srv = await startScriptedChat((req, i) => {
        if (i > 0) return { text: 'done' };
        tool = req.tools?.find((t) => t.function.name.endsWith('evidence_runCommand'))?.function.name ?? 'none';
        return honoured
          ? { call: { id: 'call_1', name: tool, arguments: { command: buildCommand } } }
          : runCommands('call_1', buildCommand);
      });
      const run = await runCline(s, srv, 'plain');
      assert.equal(run.code, 0, `${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
      assert.equal(tool, 'bounded-evidence__evidence_runCommand');
      const system = srv.requests[0]!.messages.find((m) => m.role === 'system')?.content;
      const text = toolMessage(srv.requests[1]!, 'call_1') ?? '';
      return { system: typeof system === 'string' ? system : JSON.stringify(system), text, handle: handleIn(text) };
    } finally {
      await srv?.close();
      endLeftovers(s);
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it("MCP + rule, as Cline's extension gets it: the rule is in the model's instructions; followed, the first result names the error line; not followed, Cline's cut", async () => {
    const followed = await underTheRule(true);
    const ignored = await underTheRule(false);
    for (const { system } of [followed, ignored]) assert.ok(system.includes(RULE_MARK), 'the rule reaches the model');
    // Cline passes the MCP result on as it came: the observation, its error line first.
    const parts = (JSON.parse(followed.text) as { content?: { type: string; text: string }[] }).content ?? [];
    assert.equal(parts.length, 1);
    assert.ok(parts[0]!.text.includes(`\n${errorFirstStdout(followed.handle)}`), parts[0]!.text.slice(0, 600));
    const cut = JSON.parse(ignored.text) as Ran[];
    assert.ok(cut[0]!.result.startsWith(`${EXITED_1}\n[000000] compiling`) && !cut[0]!.result.includes(NEEDLE));
    console.log(
      `[reach] Cline under the rule: followed ${Buffer.byteLength(followed.text)} bytes with the error line in the first ` +
        `result; not followed ${Buffer.byteLength(ignored.text)} bytes, no error line`,
    );
  });
});
