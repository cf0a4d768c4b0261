/**
 * The proof against VS Code's own agent: the bundled Copilot Chat extension in
 * agent mode, driven by the scripted bring-your-own model of the fixture extension
 * (fixtures/evidence-client). The model calls the built-in `run_in_terminal` on a
 * 3,002,891-byte build log with one error line in the middle; the test records exactly
 * what the model is given back and prints its size (docs/architecture.md §5.1).
 * Baseline: nothing installed. Routed: the workspace hook file routing writes.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReadToolOutputResult } from '../../src/core/index.js';
import { WORKSPACE_HOOK_FILE } from '../../src/core/reach/hookConfig.js';
import {
  buildLogCommand,
  bytesOf,
  CLIENT_ID,
  evidenceApi,
  evidenceStorage,
  listRuns,
  reference,
  workspaceDir,
} from './helpers.js';

/** The fixture extension's exports (see fixtures/evidence-client/extension.js). */
interface Client {
  vendor: string;
  setScript(
    fn: (
      messages: readonly vscode.LanguageModelChatRequestMessage[],
      options: vscode.ProvideLanguageModelChatResponseOptions,
    ) => unknown[],
  ): void;
}

const COPILOT_ID = 'GitHub.copilot-chat';
/** 38,400 lines of demo/build-log.js: 3,002,891 bytes, the error on line 19,201. */
const LOG_LINES = 38400;
const LOG_BYTES = 3_002_891;
const NEEDLE =
  "src/ledger/reconcile.ts(412,17): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Cents'.";

/** The text of a tool result part given to the model for `callId` (duck-typed: parts are built by Copilot). */
function toolResultText(
  messages: readonly vscode.LanguageModelChatRequestMessage[],
  callId: string,
): string | undefined {
  for (const m of messages) {
    for (const p of m.content as unknown[]) {
      const part = p as { callId?: unknown; content?: unknown[] };
      if (part.callId === callId && Array.isArray(part.content)) {
        return part.content
          .map((c) => {
            const v = (c as { value?: unknown }).value;
            return typeof v === 'string' ? v : '';
          })
          .join('');
      }
    }
  }
  return undefined;
}

/** Enables the built-in Copilot Chat (disabled on a first start of this build) and activates it. */
async function enableCopilot(): Promise<void> {
  await vscode.commands.executeCommand('workbench.extensions.action.enableAll');
  let ext = vscode.extensions.getExtension(COPILOT_ID);
  for (let i = 0; i < 300 && !ext; i++) {
    await new Promise((r) => setTimeout(r, 200));
    ext = vscode.extensions.getExtension(COPILOT_ID);
  }
  assert.ok(ext, 'the bundled Copilot Chat extension is available once enabled');
  await ext.activate();
}

/** One agent-mode request; `step` answers the n-th request of the agent loop (0-based) given what it received. */
async function agentTurn(
  client: Client,
  mode: string,
  step: (n: number, messages: readonly vscode.LanguageModelChatRequestMessage[]) => unknown[],
): Promise<{ requests: number; tools: string[] }> {
  let requests = 0;
  let tools: string[] = [];
  client.setScript((messages, options) => {
    const offered = (options.tools ?? []).map((t) => t.name);
    // Copilot may ask the same model for side jobs (titles, summaries) without tools.
    if (!offered.includes('run_in_terminal')) return [new vscode.LanguageModelTextPart('ok')];
    if (requests === 0) tools = offered;
    return step(requests++, messages);
  });
  // A new conversation each time: no earlier tool results in the history.
  await vscode.commands.executeCommand('workbench.action.chat.newChat');
  await vscode.commands.executeCommand('workbench.action.chat.open', {
    query: 'Why does the build fail?',
    mode,
    modelSelector: { vendor: client.vendor },
    blockOnResponse: true,
  });
  return { requests, tools };
}

/** The evidence tools as VS Code offers them: the language-model tools of package.json (the table's order). */
const EVIDENCE_TOOLS = [
  'evidence_runCommand',
  'evidence_readFile',
  'read_tool_output',
  'evidence_invokeTool',
  'evidence_search',
];

/**
 * No duplicate tools: one request lists each evidence tool exactly once and no
 * other tool of this extension (before: 4 more copies through its MCP registration, named
 * `mcp_bounded_evide_<tool>`, 49 tools in the default agent's request).
 */
function assertEvidenceToolsOnce(tools: readonly string[], mode: string): void {
  for (const name of EVIDENCE_TOOLS)
    assert.equal(tools.filter((t) => t === name).length, 1, `${mode}: ${name} once in ${tools.join(', ')}`);
  const ours = tools.filter((t) => /evidence|evide|tool_output|bounded/i.test(t));
  assert.deepEqual([...ours].sort(), [...EVIDENCE_TOOLS].sort(), `${mode}: no other copy of an evidence tool`);
  assert.equal(new Set(tools).size, tools.length, `${mode}: no tool name twice`);
}

/** What the Evidence custom agent (agents/evidence.agent.md) offers in one request, in VS Code 1.139.1's order. */
const EVIDENCE_AGENT_TOOLS: readonly string[] = [
  'create_directory',
  'create_file',
  'file_search',
  'grep_search',
  'get_errors',
  'insert_edit_into_file',
  'list_dir',
  'read_file',
  'replace_string_in_file',
  'session_store_sql',
  'evidence_invokeTool',
  'evidence_readFile',
  'evidence_runCommand',
  'evidence_search',
  'get_terminal_output',
  'read_tool_output',
  'run_in_terminal',
];

/** The model's `run_in_terminal` call on the 3 MB build log. */
function runBuild(callId: string): vscode.LanguageModelToolCallPart {
  return new vscode.LanguageModelToolCallPart(callId, 'run_in_terminal', {
    command: buildLogCommand(LOG_LINES),
    explanation: 'Build the project',
    goal: 'Find why the build fails',
    mode: 'sync',
  });
}

/**
 * One small `run_in_terminal` turn, `command` run by the agent: what the model was given, and
 * whether it was routed. A routed small output reaches the model byte-identical (docs/contracts.md
 * §6.1), so "routed" is told by the store: a run of this command recorded by the hook.
 */
async function smallTurn(client: Client, id: string, command: string): Promise<{ seen: string; routed: boolean }> {
  const { storage, tenant } = await evidenceStorage();
  const before = new Set((await listRuns(storage, tenant)).map((r) => r.runId));
  let seen = '';
  await agentTurn(client, 'agent', (n, messages) => {
    if (n === 0)
      return [
        new vscode.LanguageModelToolCallPart(id, 'run_in_terminal', {
          command,
          explanation: 'Row',
          goal: 'Row',
          mode: 'sync',
        }),
      ];
    seen = toolResultText(messages, id) ?? seen;
    return [new vscode.LanguageModelTextPart('done')];
  });
  // The background `keep --quiet` records it a moment after the command ended.
  for (let i = 0; i < 40; i++) {
    const added = (await listRuns(storage, tenant)).filter((r) => !before.has(r.runId) && r.source?.kind === 'hook');
    if (added.length) return { seen, routed: true };
    await new Promise((r) => setTimeout(r, 250));
  }
  return { seen, routed: false };
}

/** The rows of the behaviour table run in the agent's terminal, one turn each (docs/contracts.md §6.1). */
const ROWS: readonly string[] = [
  'mkdir -p be-sub && cd be-sub && pwd',
  'pwd',
  'true && export BE_X=1',
  'echo "X=$BE_X"',
  "printf 'hello\\n'",
  "sh -c 'exit 7'",
  'echo {1..3}',
];

describe("Reach: the built-in agent's run_in_terminal with a scripted model", () => {
  let client: Client;
  before(async function () {
    this.timeout(120_000);
    await evidenceApi();
    const ext = vscode.extensions.getExtension<Client>(CLIENT_ID);
    assert.ok(ext, 'fixture extension loaded');
    client = await ext.activate();
    // The folder has no `.github/`: routing must apply to the next command all the same.
    assert.equal(existsSync(path.join(workspaceDir(), '.github')), false, 'the workspace starts without .github/');
    await enableCopilot();
    // Tool confirmations are answered by the workbench's own test switch + auto-approve.
    await vscode.commands.executeCommand('setContext', 'vscode.chat.tools.global.autoApprove.testMode', true);
    await vscode.workspace
      .getConfiguration('chat.tools.global')
      .update('autoApprove', true, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace
      .getConfiguration('chat.tools.global')
      .update('autoApprove', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });

  it('baseline, no routing: the model gets a pointer to 20,000 characters; the error line is in neither', async function () {
    this.timeout(240_000);
    let received: string | undefined;
    const turn = await agentTurn(client, 'agent', (n, messages) => {
      if (n === 0) return [runBuild('base1')];
      received ??= toolResultText(messages, 'base1');
      return [new vscode.LanguageModelTextPart('done')];
    });
    assert.equal(turn.requests, 2, 'two model turns: the terminal call, then the answer');
    assert.ok(received !== undefined, "the model was given the terminal tool's result");
    // What this build does with it (VS Code 1.139.1 / Copilot Chat 0.67): the terminal
    // passes 20,000 characters on, Copilot writes them to a file and hands the model a
    // pointer. The error line is in neither.
    const pointer = /written to file\. Use the read_file tool to access the content at: (\S+)/.exec(received);
    assert.ok(pointer, `a pointer to a file: ${received.slice(0, 400)}`);
    const behind = readFileSync(pointer[1]!, 'utf8');
    console.log(
      `[reach] built-in agent, no routing: model received ${bytesOf(received)} bytes; the pointer's file holds ${bytesOf(behind)} bytes of the ${LOG_BYTES}; needle ${received.includes(NEEDLE) || behind.includes(NEEDLE) ? 'reached' : 'NOT reached'}`,
    );
    assert.ok(bytesOf(received) < 8192);
    assert.ok(
      !received.includes(NEEDLE) && !behind.includes(NEEDLE),
      'the error line reached the model neither directly nor through the file',
    );
  });

  /**
   * One routed turn in `mode`: the model runs the build through `run_in_terminal`, takes
   * the handle from what it was given and searches it with `read_tool_output`. Asserts
   * what the model received at each step and that the run names this chat session.
   */
  async function routedTurn(mode: string, label: string): Promise<void> {
    const { storage, tenant } = await evidenceStorage();
    const before = new Set((await listRuns(storage, tenant)).map((r) => r.runId));
    const [runId, readId] = [`${label}1`, `${label}2`];
    let observation: string | undefined;
    let readReply: string | undefined;
    let handle = '';
    const turn = await agentTurn(client, mode, (n, messages) => {
      if (n === 0) return [runBuild(runId)];
      if (n === 1) {
        observation = toolResultText(messages, runId) ?? '';
        handle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(observation)?.[1] ?? 'no-handle-given';
        return [new vscode.LanguageModelToolCallPart(readId, 'read_tool_output', { handle, pattern: 'error TS' })];
      }
      readReply ??= toolResultText(messages, readId);
      return [new vscode.LanguageModelTextPart('The build fails in src/ledger/reconcile.ts.')];
    });
    console.log(
      `[reach] built-in agent, ${label} (${mode}): ${turn.tools.length} tools offered: ${turn.tools.join(', ')}`,
    );
    assertEvidenceToolsOnce(turn.tools, mode);
    if (mode === 'Evidence') assert.deepEqual(turn.tools, EVIDENCE_AGENT_TOOLS);
    assert.equal(turn.requests, 3, 'three model turns: the terminal call, read_tool_output, the answer');
    assert.ok(observation, "the model was given the terminal tool's result");
    const obsBytes = bytesOf(observation);
    assert.ok(obsBytes < 8192, `${obsBytes} bytes: ${observation.slice(0, 300)}`);
    assert.match(observation, /^exit code 1$/m);
    // Error-first (docs/contracts.md §2.13): the error line is in the first view, whole, with its line number
    // (the terminal wraps at its width, inside words too, and drops the space at a wrap: compared without white space).
    const flat = observation.replace(/\s+/g, '');
    // The TypeScript rule matches from the line's start (its path is part of the match).
    const errorAt = reference(buildLogCommand(LOG_LINES), workspaceDir()).stdout.indexOf(NEEDLE);
    const want = `stdout: ${LOG_BYTES} bytes, ${LOG_LINES} lines, handle ${handle}. Error lines (1 of 1):\nline ${LOG_LINES / 2 + 1}, byte ${errorAt}: ${NEEDLE}\nPreview:\n`;
    assert.ok(flat.includes(want.replace(/\s+/g, '')), observation);
    // Nothing of the machine in what the model gets: not the storage folder, not the extension's folders.
    assert.ok(!observation.includes(storage) && !observation.includes(path.dirname(storage)), observation);
    const echo = observation.split('\n').filter((l) => l.includes('BOUNDED_EVIDENCE_STORAGE'));
    console.log(
      `[reach] built-in agent, ${label}: the terminal's echo of the routed line: ${echo.map((l) => `${bytesOf(l)} bytes ${JSON.stringify(l)}`).join('; ') || 'none'}`,
    );
    // VS Code strips the echo of the one short line the hook gives the terminal: no spool id reaches the model either.
    assert.deepEqual(echo, []);
    assert.ok(!observation.includes('/evidence/spool/'), observation);

    assert.ok(readReply, "the model was given read_tool_output's result");
    const reply = JSON.parse(readReply) as ReadToolOutputResult;
    // The model's pattern reply echoes nothing the call or the observation already said, and lists no count
    // its matches give and no `truncated: false` (docs/contracts.md §2.5).
    assert.deepEqual(Object.keys(reply), ['total_matches', 'content', 'matches']);
    assert.equal(reply.total_matches, 1);
    assert.equal(reply.content, `${LOG_LINES / 2 + 1}:${NEEDLE}`);
    // Byte for byte what the model was given; the match's offset is where the command (run here the same way) writes it.
    const stdout = reference(buildLogCommand(LOG_LINES), workspaceDir()).stdout;
    const column = NEEDLE.indexOf('error TS') + 1;
    const matches = [{ line_number: LOG_LINES / 2 + 1, byte_offset: stdout.indexOf(NEEDLE) + column - 1, column }];
    assert.equal(readReply, JSON.stringify({ total_matches: 1, content: `${LOG_LINES / 2 + 1}:${NEEDLE}`, matches }));
    console.log(
      `[reach] built-in agent, ${label}: model received ${obsBytes} bytes (run_in_terminal) + ${bytesOf(readReply)} bytes (read_tool_output); needle reached at line ${reply.matches?.[0]?.line_number}`,
    );

    // The run is listed as a routed terminal command of this chat session: Copilot names
    // the session's transcript after the same id, beside this extension's storage.
    const added = (await listRuns(storage, tenant)).filter((r) => !before.has(r.runId));
    assert.equal(added.length, 1, `one new run: ${JSON.stringify(added)}`);
    const source = added[0]!.source;
    assert.equal(source?.kind, 'hook');
    assert.equal(source?.agent, 'copilot');
    assert.ok(
      source?.sessionId &&
        existsSync(path.join(path.dirname(storage), 'GitHub.copilot-chat', 'transcripts', `${source.sessionId}.jsonl`)),
      `session ${source?.sessionId} is Copilot's chat session`,
    );
    assert.ok(!observation.includes(source.sessionId), 'no session id in what the model gets');
    assert.equal(added[0]!.status, 'completed');
  }

  let unroutedRows: string[] = [];
  it("the behaviour table, unrouted: each row's result as the agent gives it", async function () {
    this.timeout(240_000);
    unroutedRows = [];
    for (let i = 0; i < ROWS.length; i++) {
      const r = await smallTurn(client, `plain${i}`, ROWS[i]!);
      assert.equal(r.routed, false);
      unroutedRows.push(r.seen);
    }
    // Leave the terminal where it started for the routed pass.
    await smallTurn(client, 'plain-back', 'cd ..');
  });

  describe("routed by Route Agent Terminals Through Evidence (deprecated: init's GitHub Copilot row)", () => {
    let hookFile: string;
    before(async function () {
      this.timeout(120_000);
      hookFile = path.join(workspaceDir(), WORKSPACE_HOOK_FILE);
      // The older command (keybindings, scripts); `confirm: false` stands for the person's choice.
      const r = await vscode.commands.executeCommand<{ files: { file: string; action: string }[]; error?: string }[]>(
        'boundedEvidence.routeAgentTerminals',
        { confirm: false },
      );
      assert.deepEqual(
        r.map((o) => [o.files, o.error]),
        [[[{ file: hookFile, action: 'created' }], undefined]],
      );
    });
    after(async () => {
      const r = await vscode.commands.executeCommand<{ files: { action: string }[] }[]>('boundedEvidence.stopRouting', {
        confirm: false,
      });
      assert.deepEqual(
        r.map((o) => o.files.map((f) => f.action)),
        [['deleted']],
      );
      rmSync(path.join(workspaceDir(), '.github'), { recursive: true, force: true });
    });

    it('the very next command is routed (no .github/ before, no setting touched by hand), and every row reaches the model as unrouted', async function () {
      this.timeout(240_000);
      for (let i = 0; i < ROWS.length; i++) {
        const command = ROWS[i]!;
        const r = await smallTurn(client, `routed-row${i}`, command);
        console.log(
          `[reach] built-in agent row ${i} ${JSON.stringify(command)}: unrouted ${bytesOf(unroutedRows[i]!)} B ${JSON.stringify(unroutedRows[i])} | routed ${bytesOf(r.seen)} B ${JSON.stringify(r.seen)}`,
        );
        assert.equal(r.routed, true, `row ${i} was routed`);
        // What the terminal gives the model is (sometimes) its echo of the typed line, wrapped at the terminal's
        // width, then the output: the output must be the same. Compared with the wrapping taken out.
        const outputOf = (seen: string, typed: string): string => {
          // The wrapping breaks the line at a space, or inside a word: white space is left out of the comparison.
          const flat = seen.replace(/\s/g, '');
          // The routed line is `. "$BOUNDED_EVIDENCE_STORAGE/evidence/spool/<id>/run"` (docs/contracts.md §6.1).
          const end = flat.lastIndexOf('/run"');
          const t = typed.replace(/\s/g, '');
          const at = flat.lastIndexOf(t);
          const output = end >= 0 ? flat.slice(end + '/run"'.length) : at >= 0 ? flat.slice(at + t.length) : flat;
          // An empty output reaches the model either as VS Code's sentence for it or (its read of the terminal racing
          // the prompt, seen under load, routed or not) as the echoed line alone: both say "nothing printed".
          return output === 'Commandproducednooutput' ? '' : output;
        };
        assert.equal(outputOf(r.seen, command), outputOf(unroutedRows[i]!, command), `row ${i} output`);
        // A line VS Code found whole in the output had its echo stripped: then the model got exactly the same bytes.
        if (!unroutedRows[i]!.includes(command.slice(0, 10)))
          assert.equal(r.seen, unroutedRows[i], `row ${i}: the same bytes`);
        // The exit code the agent reports, when it reports one, is the same.
        assert.deepEqual(
          /exit code:? ?(\d+)/i.exec(r.seen)?.[1],
          /exit code:? ?(\d+)/i.exec(unroutedRows[i]!)?.[1],
          `row ${i} exit code`,
        );
      }
      await smallTurn(client, 'routed-back', 'cd ..');
    });

    it('run_in_terminal gives the model the bounded observation, read_tool_output the error line; the run names the chat session', async function () {
      this.timeout(240_000);
      await routedTurn('agent', 'routed');
    });
  });

  describe('routed by Route Agents Through Evidence… (bounded-evidence init: the Copilot CLI format file)', () => {
    let hookFile: string;
    before(async function () {
      this.timeout(120_000);
      hookFile = path.join(workspaceDir(), WORKSPACE_HOOK_FILE);
      // The quick pick's "GitHub Copilot · this folder"; `picks` stands for the person's choice.
      const r = await vscode.commands.executeCommand<{ files: { file: string; action: string }[]; error?: string }[]>(
        'boundedEvidence.initAgents',
        { picks: ['copilot:project'] },
      );
      assert.deepEqual(
        r.map((o) => [o.files, o.error]),
        [[[{ file: hookFile, action: 'created' }], undefined]],
      );
      assert.deepEqual(Object.keys((JSON.parse(readFileSync(hookFile, 'utf8')) as { hooks: object }).hooks), [
        'preToolUse',
        'postToolUse',
      ]);
    });
    after(async () => {
      const r = await vscode.commands.executeCommand<{ files: { action: string }[] }[]>(
        'boundedEvidence.uninstallAgents',
        { picks: ['copilot:project'] },
      );
      assert.deepEqual(
        r.map((o) => o.files.map((f) => f.action)),
        [['deleted']],
      );
      rmSync(path.join(workspaceDir(), '.github'), { recursive: true, force: true });
    });

    it("VS Code's Local harness reads the file init writes for the Copilot CLI: the next command is routed the same", async function () {
      this.timeout(240_000);
      await routedTurn('agent', 'routed-by-init');
    });
  });

  it('the Evidence agent routes the same turn with no workspace hook file', async function () {
    this.timeout(240_000);
    assert.equal(existsSync(path.join(workspaceDir(), WORKSPACE_HOOK_FILE)), false, 'no workspace hook file');
    await routedTurn('Evidence', 'evidence-agent');
  });
});
