/**
 * Codex from npm (@openai/codex, pinned in scripts/setup-tools.sh) against a scripted Responses API on loopback
 * (test/agents/responsesServer.ts): its model runs the 3 MB build log through Codex's own `exec_command`; the
 * test asserts on the request bodies the server receives, i.e. on exactly what Codex gives its model. The hook,
 * its trust entry and the MCP registration are the ones `init` plans (src/core/reach/agents/codex.ts); no
 * `--dangerously-bypass-hook-trust`: Codex runs the hook because the trust entry init writes matches.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { codex } from '../../src/core/reach/agents/codex.js';
import type { ConfigEdit } from '../../src/core/reach/agents/types.js';
import { ensureTools, toolPaths } from '../harness/tools.js';
import {
  buildCommand,
  firstViewStdout,
  ERROR_LINE,
  errorLineReply,
  handleIn,
  initContext,
  pathWithCli,
  LOG_BYTES,
  LOG_LINES,
  listRuns,
  keptRuns,
  machineWords,
  makeSandbox,
  NEEDLE,
  runAgent,
  SMALL_COMMANDS,
  spoolsLeft,
  errorFirstStdout,
  type Sandbox,
} from './agentSandbox.js';
import {
  functionOutput,
  type InputItem,
  startScriptedResponses,
  type ResponsesRequest,
  type ScriptedResponse,
  type ScriptedResponses,
} from './responsesServer.js';

const CODEX = toolPaths().codex;
const TIMEOUT_MS = 120_000;
const EXEC_ID = 'call_exec_1';
const READ_ID = 'call_read_1';

/** The plan init makes for Codex in this sandbox (user scope, the storage named). */
function initPlan(s: Sandbox): ConfigEdit[] {
  return [...codex.plan(initContext(s, { CODEX_HOME: path.join(s.home, '.codex') }), 'global').edits];
}

/** A TOML table as init's block writes it (string, string-list and plain values only). */
function tomlTable(table: readonly string[], value: Record<string, unknown>): string {
  const key = table.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k))).join('.');
  return `[${key}]\n${Object.entries(value)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join('\n')}\n`;
}

/** Codex's home: the scripted provider, plus (routed) the files init writes. */
function configure(s: Sandbox, server: ScriptedResponses, routed: boolean): void {
  const home = path.join(s.home, '.codex');
  mkdirSync(home, { recursive: true });
  let toml = `model = "gpt-5"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${server.baseUrl}"\nwire_api = "responses"\nenv_key = "SCRIPTED_API_KEY"\n\n`;
  if (routed) {
    for (const e of initPlan(s)) {
      if (e.kind === 'json')
        writeFileSync(e.file, `${JSON.stringify({ hooks: { PreToolUse: [e.value] } }, null, 2)}\n`);
      else if (e.kind === 'toml') toml += `${tomlTable(e.table, e.value)}\n`;
    }
  }
  writeFileSync(path.join(home, 'config.toml'), toml);
}

async function runCodex(
  s: Sandbox,
  sandboxMode: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: pathWithCli(s),
    HOME: s.home,
    CODEX_HOME: path.join(s.home, '.codex'),
    TMPDIR: s.tmp,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    SCRIPTED_API_KEY: 'sk-scripted-test',
  };
  return runAgent(
    process.execPath,
    [CODEX, 'exec', '--skip-git-repo-check', '-s', sandboxMode, 'Why does the build fail?'],
    { cwd: s.workspace, env, timeoutMs: TIMEOUT_MS },
  );
}

/** The tools Codex lists to its model, with the bytes of each definition. */
function toolBytes(req: ResponsesRequest): Map<string, number> {
  return new Map((req.tools ?? []).map((t) => [t.name ?? t.type, Buffer.byteLength(JSON.stringify(t), 'utf8')]));
}

describe('Reach: Codex from npm with a scripted Responses API on loopback', function () {
  this.timeout(TIMEOUT_MS + 30_000);
  let sandbox: Sandbox;
  let server: ScriptedResponses | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('codex');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it('baseline, no hook: Codex gives its model a cut of the 3 MB output, without the error line', async () => {
    server = await startScriptedResponses((_req, i) =>
      i === 0 ? { call: { id: EXEC_ID, name: 'exec_command', arguments: { cmd: buildCommand } } } : { text: 'done' },
    );
    configure(sandbox, server, false);
    const run = await runCodex(sandbox, 'danger-full-access');
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(server.requests.length, 2);
    const out = functionOutput(server.requests[1]!, EXEC_ID);
    assert.ok(out, 'the exec_command output was given to the model');
    const bytes = Buffer.byteLength(out, 'utf8');
    console.log(
      `[reach] Codex, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${out.includes(NEEDLE) ? 'reached' : 'NOT reached'}`,
    );
    assert.match(out, /^Process exited with code 1$/m);
    assert.ok(!out.includes(NEEDLE), 'the error line did not reach the model');
  });

  it("with init's hook (trusted, danger-full-access): the bounded observation first, one read_tool_output the error line, exit code 1", async () => {
    let handle = '';
    server = await startScriptedResponses((req, i): ScriptedResponse => {
      if (i === 0) return { call: { id: EXEC_ID, name: 'exec_command', arguments: { cmd: buildCommand } } };
      if (i === 1) {
        handle = handleIn(functionOutput(req, EXEC_ID));
        return {
          call: {
            id: READ_ID,
            name: 'read_tool_output',
            namespace: 'mcp__bounded_evidence',
            arguments: { handle, pattern: 'error TS' },
          },
        };
      }
      return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
    });
    configure(sandbox, server, true);
    const run = await runCodex(sandbox, 'danger-full-access');
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const tools = toolBytes(server.requests[0]!);
    console.log(`[reach] Codex tools listed: ${[...tools].map(([n, b]) => `${n} ${b}`).join(', ')}`);
    if (process.env.BE_DUMP)
      console.log(JSON.stringify(server.requests[0]!.tools?.find((t) => t.name === 'mcp__bounded_evidence')));
    assert.equal(server.requests.length, 3, `three model turns: exec, read, the answer (${run.stderr.slice(-1500)})`);
    const obs = functionOutput(server.requests[1]!, EXEC_ID)!;
    const obsBytes = Buffer.byteLength(obs, 'utf8');
    if (process.env.BE_DUMP) console.log(obs);
    assert.match(obs, /^Process exited with code 1$/m);
    assert.match(obs, /^exit code 1$/m);
    assert.ok(obs.includes(firstViewStdout(handle)), obs);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);
    // Nothing of the machine: no storage or spool path, no session id.
    assert.ok(!obs.includes(sandbox.storage) && !obs.includes(sandbox.root), obs);
    const read = functionOutput(server.requests[2]!, READ_ID);
    assert.ok(read, 'the read_tool_output result was given to the model');
    assert.ok(read.includes(errorLineReply()), read.slice(0, 600));
    console.log(
      `[reach] Codex, hook + MCP: model received ${obsBytes} bytes (exec_command) + ${Buffer.byteLength(read, 'utf8')} bytes (read_tool_output); needle at line ${ERROR_LINE}`,
    );
    const routed = listRuns(sandbox).filter((r) => r.source?.kind === 'hook');
    assert.equal(routed.length, 1);
    assert.equal(routed[0]!.source?.agent, 'codex');
  });

  it("in Codex's read-only sandbox the hook leaves the command as written (the spool could not be written there)", async () => {
    server = await startScriptedResponses((_req, i) =>
      i === 0
        ? { call: { id: EXEC_ID, name: 'exec_command', arguments: { cmd: "printf 'plain\\n'; exit 3" } } }
        : { text: 'done' },
    );
    configure(sandbox, server, true);
    const run = await runCodex(sandbox, 'read-only');
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const out = functionOutput(server.requests[1]!, EXEC_ID)!;
    assert.match(out, /^Process exited with code 3$/m);
    assert.match(out, /^Output:\nplain\n$/m);
    assert.deepEqual(
      listRuns(sandbox).filter((r) => r.source?.kind === 'hook'),
      [],
    );
  });

  it("in Codex's workspace-write sandbox with the storage under /tmp (a writable root), the command is routed and kept", async () => {
    assert.ok(sandbox.storage.startsWith('/tmp/'), sandbox.storage);
    server = await startScriptedResponses((_req, i) =>
      i === 0 ? { call: { id: EXEC_ID, name: 'exec_command', arguments: { cmd: buildCommand } } } : { text: 'done' },
    );
    configure(sandbox, server, true);
    const run = await runCodex(sandbox, 'workspace-write');
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const out = functionOutput(server.requests[1]!, EXEC_ID)!;
    // The routed command wrote its spool and keep wrote the store from inside Codex's sandbox.
    assert.match(out, new RegExp(`^stdout: ${LOG_BYTES} bytes, ${LOG_LINES} lines, handle out_`, 'm'));
    assert.match(out, /^Process exited with code 1$/m);
    assert.equal(listRuns(sandbox).filter((r) => r.source?.kind === 'hook').length, 1);
  });

  it("keeps every small routed command, failing or not, though Codex ends the command's process group: no spool left", async () => {
    server = await startScriptedResponses((_req, i) =>
      i < SMALL_COMMANDS.length
        ? { call: { id: `call_small_${i}`, name: 'exec_command', arguments: { cmd: SMALL_COMMANDS[i]! } } }
        : { text: 'done' },
    );
    configure(sandbox, server, true);
    const run = await runCodex(sandbox, 'danger-full-access');
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(server.requests.length, SMALL_COMMANDS.length + 1);
    // Given back as written: the failing ones with their stderr and status.
    const last = server.requests[SMALL_COMMANDS.length]!;
    assert.match(functionOutput(last, 'call_small_0')!, /\nProcess exited with code 0\n[^]*\nOutput:\nsmall 0\n$/);
    assert.match(functionOutput(last, 'call_small_1')!, /\nProcess exited with code 3\n[^]*\nOutput:\nout 1\nerr 1\n$/);
    const kept = await keptRuns(sandbox, 'codex', SMALL_COMMANDS.length);
    console.log(
      `[reach] Codex, small routed commands kept: ${kept.runs.length}/${SMALL_COMMANDS.length}, spools left ${kept.spools.length}`,
    );
    assert.deepEqual(kept.spools, []);
    assert.equal(kept.runs.length, SMALL_COMMANDS.length);
    assert.equal(kept.runs.filter((r) => r.failedCalls === 1).length, SMALL_COMMANDS.length / 2);
    // Codex replays each call as the model made it: the routed text never reaches its model.
    const calls = (last.input as (InputItem & { arguments?: string })[]).filter((x) => x.type === 'function_call');
    assert.deepEqual(
      calls.map((c) => (JSON.parse(c.arguments ?? '{}') as { cmd?: string }).cmd),
      SMALL_COMMANDS,
    );
    // (Codex's own prompt names the home folder, routed or not.)
    for (const req of server.requests)
      assert.deepEqual(
        machineWords(JSON.stringify(req), sandbox).filter((w) => w !== sandbox.home),
        [],
      );
  });

  /** One `exec_command` of `cmd` at Codex's default yield, then "done": what the model got, the runs kept, spools left. */
  async function atYield(
    cmd: string,
    routed: boolean,
  ): Promise<{ out: string; kept: Awaited<ReturnType<typeof keptRuns>> }> {
    const s = makeSandbox('codex-yield');
    const srv = await startScriptedResponses((_req, i) =>
      i === 0 ? { call: { id: 'call_yield', name: 'exec_command', arguments: { cmd } } } : { text: 'done' },
    );
    try {
      configure(s, srv, routed);
      const run = await runCodex(s, 'danger-full-access');
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      // `codex exec` ends its running commands as the turn ends: the routed shell is killed, its watcher records it.
      const kept = routed ? await keptRuns(s, 'codex', 1) : { runs: [], spools: spoolsLeft(s) };
      return { out: functionOutput(srv.requests[1]!, 'call_yield')!, kept };
    } finally {
      await srv.close();
      rmSync(s.root, { recursive: true, force: true });
    }
  }

  it('a command still running at the yield: the model gets what it printed so far as unrouted, and the run is kept', async () => {
    // stdout only: Codex reads stdout and stderr from two pipes, so their order unrouted is the scheduler's.
    const cmd = "printf 'partial\\n'; sleep 20";
    const plain = await atYield(cmd, false);
    const routed = await atYield(cmd, true);
    const body = (o: string): string => o.slice(o.indexOf('\nOriginal token count'));
    console.log(
      `[reach] Codex at its yield: unrouted ${JSON.stringify(body(plain.out))} | routed ${JSON.stringify(body(routed.out))}`,
    );
    assert.match(plain.out, /^Process running with session ID \d+$/m);
    assert.match(routed.out, /^Process running with session ID \d+$/m);
    assert.equal(body(routed.out), body(plain.out));
    assert.match(body(plain.out), /\nOutput:\npartial\n$/);
    assert.deepEqual(routed.kept.spools, []);
    assert.deepEqual(
      routed.kept.runs.map((r) => r.label),
      [`codex terminal: ${cmd}`],
    );
  });

  it('a large output still being written at the yield: the model gets the bounded observation so far, with the error line', async () => {
    const routed = await atYield(`${buildCommand}; sleep 20`, true);
    console.log(`[reach] Codex at its yield, large: ${Buffer.byteLength(routed.out)} bytes`);
    assert.match(routed.out, /^Process running with session ID \d+$/m);
    assert.match(routed.out, /^still running at the time limit: the output so far$/m);
    assert.ok(routed.out.includes(errorFirstStdout(handleIn(routed.out))), routed.out);
    assert.ok(Buffer.byteLength(routed.out) < 8192);
    assert.deepEqual(routed.kept.spools, []);
  });
});
