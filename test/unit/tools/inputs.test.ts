import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Ids } from '../../../src/extension/ids.js';
import { checkInvokeTool, checkReadFile, checkReadToolOutput, checkRunCommand, InputProperties } from '../../../src/core/index.js';

interface ToolContribution { name: string; inputSchema: { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean } }
const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { languageModelTools: ToolContribution[]; chatParticipants: { id: string; name: string; commands: { name: string }[] }[] };
};

describe('tool inputs mirror their inputSchema', () => {
  it('declares exactly the tools of ids.ts, each schema with exactly the input type\'s properties', () => {
    const tools = pkg.contributes.languageModelTools;
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.values(Ids.tools).sort());
    for (const t of tools) {
      assert.deepEqual(Object.keys(t.inputSchema.properties), [...InputProperties[t.name as keyof typeof InputProperties]], t.name);
      assert.equal(t.inputSchema.additionalProperties, false, t.name);
    }
  });

  it('declares the participant once, with /run and /inspect', () => {
    const [p] = pkg.contributes.chatParticipants;
    assert.equal(p?.id, Ids.participant.id);
    assert.equal(p?.name, Ids.participant.name);
    assert.deepEqual(p?.commands.map((c) => c.name), ['run', 'inspect']);
  });

  it('accepts valid input exactly and refuses the rest with one sentence', () => {
    assert.deepEqual(checkRunCommand({ command: 'ls', cwd: 'a', timeoutMs: 5 }), { ok: true, value: { command: 'ls', cwd: 'a', timeoutMs: 5 } });
    assert.deepEqual(checkRunCommand({ command: 'ls' }), { ok: true, value: { command: 'ls' } });
    assert.equal(checkRunCommand({ command: '  ' }).ok, false);
    assert.equal(checkRunCommand({ command: 'ls', timeoutMs: 1.5 }).ok, false);
    assert.deepEqual(checkRunCommand({ command: 'ls', shell: 'bash' }), { ok: false, error: 'unknown input property; evidence_runCommand accepts command, cwd, timeoutMs' });
    assert.equal(checkRunCommand('ls').ok, false);
    assert.deepEqual(checkReadFile({ path: 'a.txt' }), { ok: true, value: { path: 'a.txt' } });
    assert.equal(checkReadFile({ path: '' }).ok, false);
    assert.deepEqual(checkReadToolOutput({ handle: 'h', bytes: { start: 0, end: 4 } }), { ok: true, value: { handle: 'h', bytes: { start: 0, end: 4 } } });
    assert.equal(checkReadToolOutput({ handle: 'h', bytes: { start: 0 } }).ok, false);
    assert.equal(checkReadToolOutput({ handle: 7 }).ok, false);
    assert.deepEqual(checkInvokeTool({ name: 't', input: { a: 1 } }), { ok: true, value: { name: 't', input: { a: 1 } } });
    assert.equal(checkInvokeTool({ name: 't', input: [1] }).ok, false);
  });
});
