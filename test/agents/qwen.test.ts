/**
 * Qwen Code from npm (@qwen-code/qwen-code, pinned in scripts/setup-tools.sh) against a scripted OpenAI Chat
 * Completions API on loopback (`OPENAI_BASE_URL`, test/agents/chatCompletionsServer.ts), in yolo mode; the test
 * asserts on the request bodies the server receives. Qwen Code is MCP only (src/core/reach/agents/qwen.ts): the
 * second test shows why (its PreToolUse hook is run and answered, and the rewrite is not applied), the third runs
 * the build through the MCP server init registers.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { qwen } from '../../src/core/reach/agents/qwen.js';
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
  sh,
  type Sandbox,
} from './agentSandbox.js';
import { startScriptedChat, toolMessage, type ChatReply, type ScriptedChat } from './chatCompletionsServer.js';

const QWEN = toolPaths().qwen;
const TIMEOUT_MS = 120_000;
const SHELL_ID = 'call_shell_1';
const READ_ID = 'call_read_1';

function configure(s: Sandbox, routed: boolean): void {
  const settings: Record<string, unknown> = {
    security: { auth: { selectedType: 'openai' } },
    general: { disableAutoUpdate: true },
    privacy: { usageStatisticsEnabled: false },
  };
  if (routed) applyJsonEdits(settings, qwen.plan(initContext(s), 'global').edits);
  mkdirSync(path.join(s.home, '.qwen'), { recursive: true });
  writeFileSync(path.join(s.home, '.qwen', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

async function runQwen(
  s: Sandbox,
  server: ScriptedChat,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: pathWithCli(s),
    HOME: s.home,
    TMPDIR: s.tmp,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    OPENAI_API_KEY: 'sk-scripted-test',
    OPENAI_BASE_URL: server.baseUrl,
    OPENAI_MODEL: 'qwen3-coder-plus',
    QWEN_CODE_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_BROWSER: '1',
  };
  return runAgent(process.execPath, [QWEN, '-p', 'Why does the build fail?', '--yolo'], {
    cwd: s.workspace,
    env,
    timeoutMs: TIMEOUT_MS,
  });
}

describe('Reach: Qwen Code from npm with a scripted Chat Completions API on loopback', function () {
  this.timeout(TIMEOUT_MS + 30_000);
  let sandbox: Sandbox;
  let server: ScriptedChat | undefined;
  before(function () {
    this.timeout(15 * 60_000);
    ensureTools();
  });
  beforeEach(() => {
    sandbox = makeSandbox('qwen');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(sandbox.root, { recursive: true, force: true });
  });

  it('baseline, no hook: Qwen Code gives its model a cut of the 3 MB output, without the error line', async () => {
    server = await startScriptedChat((_req, i) =>
      i === 0
        ? {
            call: {
              id: SHELL_ID,
              name: 'run_shell_command',
              arguments: { command: buildCommand, description: 'Build' },
            },
          }
        : { text: 'done' },
    );
    configure(sandbox, false);
    const run = await runQwen(sandbox, server);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const out = toolMessage(server.requests[1]!, SHELL_ID);
    assert.ok(out, `the shell output was given to the model (${server.requests.length} requests)`);
    const bytes = Buffer.byteLength(out, 'utf8');
    console.log(
      `[reach] Qwen Code, no hook: model received ${bytes} bytes of the ${LOG_BYTES}; needle ${out.includes(NEEDLE) ? 'reached' : 'NOT reached'}`,
    );
    if (process.env.BE_DUMP) console.log(out.slice(0, 600), '\n…\n', out.slice(-600));
    assert.ok(!out.includes(NEEDLE));
  });

  it('Qwen Code 0.24.4 runs the hook and ignores its rewrite: the command runs as written (why Qwen Code is MCP only)', async () => {
    server = await startScriptedChat((_req, i) =>
      i === 0
        ? {
            call: {
              id: SHELL_ID,
              name: 'run_shell_command',
              arguments: { command: "printf 'plain\\n'", description: 'x' },
            },
          }
        : { text: 'done' },
    );
    configure(sandbox, true);
    const events = path.join(sandbox.root, 'events.jsonl');
    const settingsFile = path.join(sandbox.home, '.qwen', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    // The documented hook, answering exactly what the bounded-evidence hook answers for this event (recorded with tee).
    settings.hooks = {
      PreToolUse: [
        {
          matcher: '^run_shell_command$',
          hooks: [
            {
              type: 'command',
              command: `tee -a ${sh(events)} | ${sh(sandbox.shim)} hook --agent qwen --storage ${sh(sandbox.storage)}`,
              timeout: 15000,
            },
          ],
        },
      ],
    };
    writeFileSync(settingsFile, JSON.stringify(settings));
    const run = await runQwen(sandbox, server);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const event = JSON.parse(readFileSync(events, 'utf8').split('\n')[0]!) as {
      hook_event_name: string;
      permission_mode: string;
      tool_name: string;
    };
    assert.deepEqual(
      [event.hook_event_name, event.permission_mode, event.tool_name],
      ['PreToolUse', 'yolo', 'run_shell_command'],
    );
    const out = toolMessage(server.requests[1]!, SHELL_ID)!;
    // The hook routed it (a spool was made), Qwen Code ran the original: its output, and no run was kept by keep.
    assert.match(out, /^Output: plain$/m);
    assert.equal(listRuns(sandbox).filter((r) => r.source?.kind === 'hook').length, 0);
  });

  it("MCP only (init's registration): evidence_runCommand gives the bounded observation, one read_tool_output the error line", async () => {
    let handle = '';
    const names: string[] = [];
    // Qwen Code defers MCP tools: it names them in a reminder and runs them through its `tool_call` bridge.
    server = await startScriptedChat((req, i): ChatReply => {
      if (i === 0) {
        names.push(...(req.tools ?? []).map((t) => t.function.name));
        return {
          call: {
            id: SHELL_ID,
            name: 'tool_call',
            arguments: { name: 'mcp__bounded-evidence__evidence_runCommand', arguments: { command: buildCommand } },
          },
        };
      }
      if (i === 1) {
        handle = handleIn(toolMessage(req, SHELL_ID));
        return {
          call: {
            id: READ_ID,
            name: 'tool_call',
            arguments: { name: 'mcp__bounded-evidence__read_tool_output', arguments: { handle, pattern: 'error TS' } },
          },
        };
      }
      return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
    });
    configure(sandbox, true);
    const run = await runQwen(sandbox, server);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(server.requests.length, 3, `three model turns (${run.stderr.slice(-1500)})`);
    // Listed directly: none of ours (deferred behind tool_search / tool_call).
    assert.deepEqual(
      names.filter((n) => n.includes('bounded-evidence')),
      [],
    );
    const obs = toolMessage(server.requests[1]!, SHELL_ID)!;
    if (process.env.BE_DUMP) console.log(obs);
    const obsBytes = Buffer.byteLength(obs, 'utf8');
    assert.match(obs, /exit code 1/);
    assert.ok(obs.includes(firstViewStdout(handle)), obs);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes`);
    // Nothing of the machine: no storage or spool path, no session id.
    assert.ok(!obs.includes(sandbox.storage) && !obs.includes(sandbox.root), obs);
    const read = toolMessage(server.requests[2]!, READ_ID);
    assert.ok(read, 'the read_tool_output result was given to the model');
    assert.ok(read.includes(errorLineReply()), read.slice(0, 600));
    console.log(
      `[reach] Qwen Code, MCP only: model received ${obsBytes} bytes (evidence_runCommand) + ${Buffer.byteLength(read, 'utf8')} bytes (read_tool_output); needle at line ${ERROR_LINE}`,
    );
  });
});
