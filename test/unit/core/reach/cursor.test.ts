/**
 * Cursor (src/core/reach/agents/cursor.ts): its documented hooks cannot rewrite a command, so the MCP server in
 * `.cursor/mcp.json` and an always-applied rule in `.cursor/rules/`; doctor says it rests on the model; a
 * byte-identical uninstall.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cursor } from '../../../../src/core/reach/agents/cursor.js';
import { doctorRows, runInit, verdictText } from '../../../../src/core/reach/agents/init.js';
import { RULE_MARK } from '../../../../src/core/reach/agents/rules.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { agentContext, MCP } from './agentContext.js';

const ctx = (over: Partial<AgentContext> = {}): AgentContext => agentContext('unused', over);

describe('Cursor: MCP + rules', () => {
  it('the server in .cursor/mcp.json and an always-applied .mdc rule naming run_terminal_cmd; no hook', () => {
    const [server, rule] = cursor.plan(ctx(), 'project').edits as [
      Extract<ConfigEdit, { kind: 'json' }>,
      Extract<ConfigEdit, { kind: 'file' }>,
    ];
    assert.deepEqual(
      [server.file, server.path, server.value],
      ['/home/dev/project/.cursor/mcp.json', ['mcpServers', 'bounded-evidence'], MCP],
    );
    assert.equal(rule.file, '/home/dev/project/.cursor/rules/bounded-evidence.mdc');
    assert.ok(rule.text.startsWith('---\ndescription: '), rule.text);
    assert.match(rule.text, /^alwaysApply: true$/m);
    assert.ok(rule.text.includes(`---\n${RULE_MARK}\n`));
    assert.ok(rule.text.includes('not with `run_terminal_cmd`'));
    assert.equal(rule.ours(rule.text.replace('surely short', 'short')), true);
    assert.equal(rule.ours('---\nalwaysApply: true\n---\n# Mine\n'), false);
    assert.deepEqual(cursor.scopes, ['project']);
    assert.equal(cursor.routes, undefined);
  });

  it("init, doctor, uninstall: the person's .cursor/mcp.json comes back byte for byte, the rule goes", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'be-cursor-unit-'));
    try {
      const project = path.join(root, 'project');
      const mcpFile = path.join(project, '.cursor', 'mcp.json');
      mkdirSync(path.dirname(mcpFile), { recursive: true });
      const mine = '{"mcpServers":{"mine":{"command":"true"}}}\n';
      writeFileSync(mcpFile, mine);
      const c = ctx({
        home: path.join(root, 'home'),
        project,
        stateDir: path.join(root, 'state'),
        exists: (f) => existsSync(f),
        readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
      });
      await runInit(c, { agents: [cursor], scope: 'project' });
      assert.ok(existsSync(path.join(project, '.cursor', 'rules', 'bounded-evidence.mdc')));
      const [row] = await doctorRows(c, [cursor]);
      assert.equal(verdictText(row!.verdict), 'MCP + rules (depends on the model following the rule)');
      await runInit(c, { agents: [cursor], scope: 'project', uninstall: true });
      assert.equal(readFileSync(mcpFile, 'utf8'), mine);
      assert.deepEqual(readdirSync(path.join(project, '.cursor')), ['mcp.json']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
