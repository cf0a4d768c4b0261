/**
 * Issue 11's proof against VS Code's own agent: the bundled Copilot Chat extension in
 * agent mode, driven by the scripted bring-your-own model of the fixture extension
 * (fixtures/evidence-client). The model calls the built-in `run_in_terminal` on a
 * 3,002,891-byte build log with one error line in the middle; the test records exactly
 * what the model is given back and prints its size (docs/architecture.md, "Reach").
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { buildLogCommand, bytesOf, CLIENT_ID, evidenceApi } from './helpers.js';

/** The fixture extension's exports (see fixtures/evidence-client/extension.js). */
interface Client {
  vendor: string;
  setScript(fn: (messages: readonly vscode.LanguageModelChatRequestMessage[], options: vscode.ProvideLanguageModelChatResponseOptions) => unknown[]): void;
}

const COPILOT_ID = 'GitHub.copilot-chat';
/** 38,400 lines of demo/build-log.js: 3,002,891 bytes, the error on line 19,201. */
const LOG_LINES = 38400;
const NEEDLE = "src/ledger/reconcile.ts(412,17): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Cents'.";

/** The text of a tool result part given to the model for `callId` (duck-typed: parts are built by Copilot). */
function toolResultText(messages: readonly vscode.LanguageModelChatRequestMessage[], callId: string): string | undefined {
  for (const m of messages) {
    for (const p of m.content as unknown[]) {
      const part = p as { callId?: unknown; content?: unknown[] };
      if (part.callId === callId && Array.isArray(part.content)) {
        return part.content.map((c) => {
          const v = (c as { value?: unknown }).value;
          return typeof v === 'string' ? v : '';
        }).join('');
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

interface Turn { tools: string[]; received?: string }

describe('Reach: the built-in agent\'s run_in_terminal with a scripted model', () => {
  let client: Client;
  before(async function () {
    this.timeout(120_000);
    await evidenceApi();
    const ext = vscode.extensions.getExtension<Client>(CLIENT_ID);
    assert.ok(ext, 'fixture extension loaded');
    client = await ext.activate();
    await enableCopilot();
    // Tool confirmations are answered by the workbench's own test switch + auto-approve.
    await vscode.commands.executeCommand('setContext', 'vscode.chat.tools.global.autoApprove.testMode', true);
    await vscode.workspace.getConfiguration('chat.tools.global').update('autoApprove', true, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration('chat.tools.global').update('autoApprove', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });

  it('baseline, no routing: records what the model is given for a 3 MB output', async function () {
    this.timeout(240_000);
    const command = buildLogCommand(LOG_LINES);
    const turns: Turn[] = [];
    client.setScript((messages, options) => {
      const tools = (options.tools ?? []).map((t) => t.name);
      if (!tools.includes('run_in_terminal')) return [new vscode.LanguageModelTextPart('ok')];
      const turn: Turn = { tools };
      turns.push(turn);
      if (turns.length === 1) {
        return [new vscode.LanguageModelToolCallPart('t1', 'run_in_terminal', { command, explanation: 'Build the project', goal: 'Find why the build fails', mode: 'sync' })];
      }
      turn.received = toolResultText(messages, 't1');
      return [new vscode.LanguageModelTextPart('done')];
    });
    const t0 = Date.now();
    const result = await vscode.commands.executeCommand<unknown>('workbench.action.chat.open', {
      query: 'Why does the build fail?', mode: 'agent', modelSelector: { vendor: client.vendor }, blockOnResponse: true,
    });
    const received = turns[1]?.received;
    console.log(`[reach] built-in agent, no routing: ${turns.length} agent turns in ${Date.now() - t0} ms; result ${JSON.stringify(result)?.slice(0, 300)}`);
    console.log(`[reach] built-in agent, no routing: model received ${received === undefined ? 'nothing' : `${bytesOf(received)} bytes`}; needle ${received?.includes(NEEDLE) ? 'reached' : 'NOT reached'}`);
    assert.ok(received !== undefined, 'the model was given the terminal tool\'s result');
    // What this build does with it (HARNESS facts, VS Code 1.139.1 / Copilot Chat 0.67):
    // the terminal passes 20,000 characters on, Copilot writes them to a file and hands
    // the model a pointer. The error line is in neither.
    const pointer = /written to file\. Use the read_file tool to access the content at: (\S+)/.exec(received);
    assert.ok(pointer, `a pointer to a file: ${received.slice(0, 400)}`);
    const behind = readFileSync(pointer[1]!, 'utf8');
    console.log(`[reach] built-in agent, no routing: the pointer's file holds ${bytesOf(behind)} bytes of the 3,002,891; needle ${behind.includes(NEEDLE) ? 'in it' : 'not in it'}`);
    assert.ok(bytesOf(received) < 8192);
    assert.ok(!received.includes(NEEDLE) && !behind.includes(NEEDLE), 'the error line reached the model neither directly nor through the file');
  });
});
