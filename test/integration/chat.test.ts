import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RecordedCall } from '../../src/extension/api/api.js';
import { buildLogCommand, bytesOf, CLIENT_ID, evidenceApi } from './helpers.js';

/** The fixture extension's exports (see fixtures/evidence-client/extension.js). */
interface Client {
  vendor: string;
  requests: { messages: number; tools: string[]; messagesText: string[] }[];
  setScript(fn: (messages: readonly vscode.LanguageModelChatRequestMessage[]) => unknown[]): void;
}

/** Text of the last message (tool results flattened), duck-typed: parts come from another extension. */
function lastText(messages: readonly vscode.LanguageModelChatRequestMessage[]): string {
  return messageText(messages[messages.length - 1]);
}

function messageText(message: vscode.LanguageModelChatRequestMessage | undefined): string {
  return (message?.content ?? [])
    .map((p) => {
      const part = p as { value?: unknown; content?: unknown[] };
      if (typeof part.value === 'string') return part.value;
      if (Array.isArray(part.content))
        return part.content.map((c) => String((c as { value?: unknown }).value ?? '')).join('');
      return '';
    })
    .join('');
}

describe('@evidence in the chat view, driven by a scripted model from a test extension', () => {
  let client: Client;
  before(async () => {
    await evidenceApi();
    const ext = vscode.extensions.getExtension<Client>(CLIENT_ID);
    assert.ok(ext, 'fixture extension loaded');
    client = await ext.activate();
  });
  after(async () => {
    await vscode.workspace
      .getConfiguration('chat.tools.global')
      .update('autoApprove', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("/run stops at the chat's confirmation for evidence_runCommand before anything runs", async function () {
    this.timeout(60_000);
    client.setScript(() => [new vscode.LanguageModelTextPart('not reached')]);
    const api = await evidenceApi();
    const recorded: RecordedCall[] = [];
    const sub = api.onDidRecord((e) => recorded.push(e));
    try {
      const pending = await vscode.commands.executeCommand<{ type?: string; kind?: string; toolId?: string }>(
        'workbench.action.chat.open',
        {
          query: '@evidence /run echo confirm-me',
          modelSelector: { vendor: client.vendor },
          blockOnResponse: true,
        },
      );
      assert.deepEqual(
        { type: pending?.type, kind: pending?.kind, toolId: pending?.toolId },
        { type: 'confirmation', kind: 'toolInvocation', toolId: 'evidence_runCommand' },
      );
      assert.equal(
        recorded.filter((e) => e.tool === 'evidence_runCommand').length,
        0,
        'nothing ran before the person agreed',
      );
    } finally {
      sub.dispose();
      await vscode.commands.executeCommand('workbench.action.chat.cancel');
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
    }
  });

  it('runs a command, finds the error by pattern, reads that line window and answers; one run holds the calls', async function () {
    this.timeout(90_000);
    // The chat asks before running a command; the workbench's own test switch lets the
    // global auto-approve setting answer instead of a person.
    await vscode.commands.executeCommand('setContext', 'vscode.chat.tools.global.autoApprove.testMode', true);
    await vscode.workspace
      .getConfiguration('chat.tools.global')
      .update('autoApprove', true, vscode.ConfigurationTarget.Global);
    const command = buildLogCommand(30000);
    const seenByModel: string[] = [];
    let handle = '';
    client.setScript((messages) => {
      const text = lastText(messages);
      seenByModel.push(text);
      if (seenByModel.length === 1)
        return [new vscode.LanguageModelToolCallPart('c1', 'evidence_runCommand', { command })];
      if (seenByModel.length === 2) {
        handle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(text)?.[1] ?? 'no-handle';
        return [new vscode.LanguageModelToolCallPart('c2', 'read_tool_output', { handle, pattern: 'error TS' })];
      }
      if (seenByModel.length === 3) {
        const line = (JSON.parse(text) as { matches: { line_number: number }[] }).matches[0]!.line_number;
        return [new vscode.LanguageModelToolCallPart('c3', 'read_tool_output', { handle, offset: line - 1, limit: 1 })];
      }
      const window = JSON.parse(text) as { offset: number; content: string };
      return [
        new vscode.LanguageModelTextPart(
          `The build failed at line ${window.offset + 1} (${handle}): ${window.content}`,
        ),
      ];
    });
    const api = await evidenceApi();
    const recorded: RecordedCall[] = [];
    const sub = api.onDidRecord((e) => recorded.push(e));
    let result: { metadata?: { runId?: string; handles?: string[] }; errorDetails?: unknown } | undefined;
    const firstRequest = client.requests.length;
    try {
      result = await vscode.commands.executeCommand('workbench.action.chat.open', {
        query: '@evidence why did the build fail?',
        modelSelector: { vendor: client.vendor },
        blockOnResponse: true,
      });
    } finally {
      sub.dispose();
    }
    assert.ok(result?.metadata?.runId, `chat result: ${JSON.stringify(result)}`);
    assert.equal(seenByModel.length, 4, 'four model turns: run, search, read, answer');
    // @evidence offers each evidence tool exactly once in every request (its own list, the language-model
    // tools; no MCP copy exists any more), in the table's order.
    const offered = client.requests.slice(firstRequest).map((r) => r.tools);
    console.log(`[reach] @evidence: ${offered[0]?.length} tools offered: ${offered[0]?.join(', ')}`);
    assert.equal(offered.length, 4);
    for (const tools of offered)
      assert.deepEqual(tools, ['evidence_runCommand', 'evidence_readFile', 'read_tool_output', 'evidence_search']);
    // What the model saw after each tool call: bounded, and the error only where it asked for it.
    const [, observation, search, window] = seenByModel as [string, string, string, string];
    for (const t of [observation, search, window]) assert.ok(bytesOf(t) < 8192, `model text ${bytesOf(t)} bytes`);
    // Error first (docs/contracts.md §2.13): the observation itself holds the error line with its line number;
    // the scripted model still searches and reads the window around it.
    assert.match(
      observation,
      /\. Error lines \(1 of 1\):\nline 15001, byte \d+: src\/ledger\/reconcile\.ts\(412,17\): error TS2345: [^\n]*\nPreview:\n/,
    );
    assert.equal((JSON.parse(search) as { total_matches: number }).total_matches, 1);
    assert.match(
      (JSON.parse(window) as { content: string }).content,
      /^src\/ledger\/reconcile\.ts\(412,17\): error TS2345/,
    );
    assert.equal((JSON.parse(window) as { offset: number }).offset, 15000);
    // The command was recorded in the request's run (the participant's), not a run of its own.
    const runCall = recorded.find((e) => e.tool === 'evidence_runCommand');
    assert.ok(runCall, 'the command call was recorded');
    assert.equal(runCall.runId, result.metadata.runId);
    assert.ok(result.metadata.handles?.includes(handle), 'the answer lists the handles it used');
  });

  it('a follow-up in the same conversation is told the earlier handles and can read them', async function () {
    this.timeout(60_000);
    let earlier = '';
    let replies = 0;
    let readReply = '';
    let history: string[] = [];
    client.setScript((messages) => {
      replies++;
      if (replies === 1) {
        history = messages.map(messageText);
        const note = messages.map(messageText).find((t) => t.startsWith('Handles from earlier in this conversation'));
        earlier = /out_[a-z2-7]{26}/.exec(note ?? '')?.[0] ?? 'none';
        return [new vscode.LanguageModelToolCallPart('f1', 'read_tool_output', { handle: earlier, limit: 1 })];
      }
      readReply = lastText(messages);
      return [new vscode.LanguageModelTextPart('The first line was read again.')];
    });
    const result = await vscode.commands.executeCommand<{ metadata?: { runId?: string } }>(
      'workbench.action.chat.open',
      {
        query: '@evidence show me the first line of that output again',
        modelSelector: { vendor: client.vendor },
        blockOnResponse: true,
      },
    );
    assert.ok(result?.metadata?.runId);
    assert.match(earlier, /^out_[a-z2-7]{26}$/, 'the earlier handle was offered');
    // The earlier answer reaches the model in its own words, without the links to the inspector shown to people.
    assert.ok(
      history.some((t) => t.startsWith('The build failed at line 15001')),
      history.join('\n---\n').slice(0, 800),
    );
    assert.ok(
      !history.some((t) => t.includes('command:') || t.includes('Open in the inspector')),
      history.join('\n---\n').slice(0, 800),
    );
    const window = JSON.parse(readReply) as { handle: string; returned_lines: number; content: string };
    assert.equal(window.handle, earlier);
    assert.equal(window.returned_lines, 1);
    assert.match(window.content, /^\[000000\] compiling/);
  });

  it('/inspect opens the inspector on the latest run', async function () {
    this.timeout(60_000);
    const result = await vscode.commands.executeCommand<{ metadata?: { runId?: string } }>(
      'workbench.action.chat.open',
      {
        query: '@evidence /inspect',
        modelSelector: { vendor: client.vendor },
        blockOnResponse: true,
      },
    );
    assert.match(result?.metadata?.runId ?? '', /^run-/);
    const labels = (): string[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label);
    for (let i = 0; i < 50 && !labels().includes('Evidence Inspector'); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(labels().includes('Evidence Inspector'), `tabs: ${labels().join(', ')}`);
  });
});
