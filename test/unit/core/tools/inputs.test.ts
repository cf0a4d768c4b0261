import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Ids } from '../../../../src/extension/ids.js';
import {
  checkInvokeTool,
  checkReadFile,
  checkReadToolOutput,
  checkRunCommand,
  EvidenceToolTable,
  toolNamesOffered,
} from '../../../../src/core/index.js';

interface ToolContribution {
  name: string;
  inputSchema: { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
}
const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: {
    languageModelTools: ToolContribution[];
    chatParticipants: { id: string; name: string; commands: { name: string }[] }[];
  };
};

describe('the tool table and package.json agree; inputs mirror their inputSchema', () => {
  it("package.json contributes exactly the table's language model tools, in table order, each with the table's input schema", () => {
    const tools = pkg.contributes.languageModelTools;
    assert.deepEqual(
      tools.map((t) => t.name),
      toolNamesOffered('lm'),
    );
    assert.deepEqual(Object.values(Ids.tools), Object.keys(EvidenceToolTable));
    for (const t of tools) {
      const entry = EvidenceToolTable[t.name as keyof typeof EvidenceToolTable];
      assert.equal(entry.name, t.name);
      // Deep equality of the whole schema: types, bounds, required, descriptions, additionalProperties.
      assert.deepEqual(t.inputSchema, JSON.parse(JSON.stringify(entry.inputSchema)), t.name);
      assert.equal(t.inputSchema.additionalProperties, false, t.name);
    }
  });

  it('derives each surface from the table: MCP serves the three core tools, the participant offers them, invokeTool is editor-only', () => {
    assert.deepEqual(toolNamesOffered('mcp'), [
      'evidence_runCommand',
      'evidence_readFile',
      'read_tool_output',
      'evidence_search',
    ]);
    assert.deepEqual(toolNamesOffered('participant'), [
      'evidence_runCommand',
      'evidence_readFile',
      'read_tool_output',
      'evidence_search',
    ]);
    assert.deepEqual(toolNamesOffered('lm'), [
      'evidence_runCommand',
      'evidence_readFile',
      'read_tool_output',
      'evidence_invokeTool',
      'evidence_search',
    ]);
    assert.equal(EvidenceToolTable.evidence_invokeTool.perform, undefined);
    assert.deepEqual(EvidenceToolTable.evidence_runCommand.hints, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('declares the participant once, with /run and /inspect', () => {
    const [p] = pkg.contributes.chatParticipants;
    assert.equal(p?.id, Ids.participant.id);
    assert.equal(p?.name, Ids.participant.name);
    assert.deepEqual(
      p?.commands.map((c) => c.name),
      ['run', 'inspect'],
    );
  });

  it('accepts valid input exactly and refuses the rest with one sentence', () => {
    assert.deepEqual(checkRunCommand({ command: 'ls', cwd: 'a', timeoutMs: 5 }), {
      ok: true,
      value: { command: 'ls', cwd: 'a', timeoutMs: 5 },
    });
    assert.deepEqual(checkRunCommand({ command: 'ls' }), { ok: true, value: { command: 'ls' } });
    assert.equal(checkRunCommand({ command: '  ' }).ok, false);
    assert.equal(checkRunCommand({ command: 'ls', timeoutMs: 1.5 }).ok, false);
    assert.deepEqual(checkRunCommand({ command: 'ls', shell: 'bash' }), {
      ok: false,
      error: 'unknown input property; evidence_runCommand accepts command, cwd, timeoutMs',
    });
    assert.equal(checkRunCommand('ls').ok, false);
    assert.deepEqual(checkReadFile({ path: 'a.txt' }), { ok: true, value: { path: 'a.txt' } });
    assert.equal(checkReadFile({ path: '' }).ok, false);
    assert.deepEqual(checkReadToolOutput({ handle: 'h', bytes: { start: 0, end: 4 } }), {
      ok: true,
      value: { handle: 'h', bytes: { start: 0, end: 4 } },
    });
    assert.equal(checkReadToolOutput({ handle: 'h', bytes: { start: 0 } }).ok, false);
    assert.equal(checkReadToolOutput({ handle: 7 }).ok, false);
    assert.deepEqual(checkInvokeTool({ name: 't', input: { a: 1 } }), {
      ok: true,
      value: { name: 't', input: { a: 1 } },
    });
    assert.equal(checkInvokeTool({ name: 't', input: [1] }).ok, false);
  });
});
