/**
 * Roo Code (src/core/reach/agents/roo.ts): no hook, so the MCP server where Roo's McpHub reads it (`.roo/mcp.json`, or
 * the extension's `mcp_settings.json` in VS Code's global storage) and a rule in `.roo/rules/` (`~/.roo/rules/`);
 * doctor says it depends on the model following the rule; a byte-identical uninstall.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentNamed } from '../../../../src/core/reach/agents/index.js';
import { doctorRows, runInit, verdictText } from '../../../../src/core/reach/agents/init.js';
import { roo } from '../../../../src/core/reach/agents/roo.js';
import { evidenceRule, RULE_MARK } from '../../../../src/core/reach/agents/rules.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { agentContext, MCP } from './agentContext.js';

const ctx = (over: Partial<AgentContext> = {}): AgentContext => agentContext('unused', over);

describe('Roo Code: MCP + rules', () => {
  it('the project: the server in .roo/mcp.json (reads approved, commands not) and the rule in .roo/rules/', () => {
    const { edits, notes } = roo.plan(ctx(), 'project');
    const [server, rule] = edits as [Extract<ConfigEdit, { kind: 'json' }>, Extract<ConfigEdit, { kind: 'file' }>];
    assert.deepEqual(
      [server.file, server.path, server.value, server.comments],
      [
        '/home/dev/project/.roo/mcp.json',
        ['mcpServers', 'bounded-evidence'],
        { type: 'stdio', ...MCP, alwaysAllow: ['read_tool_output'] },
        false,
      ],
    );
    assert.equal(rule.file, '/home/dev/project/.roo/rules/bounded-evidence.md');
    assert.equal(rule.text, evidenceRule('execute_command'));
    assert.ok(rule.text.includes('`evidence_runCommand`') && rule.text.includes('`read_tool_output`'));
    assert.equal(rule.ours(`${RULE_MARK}\nolder words`), true);
    assert.equal(rule.ours('# My rules'), false);
    assert.match(notes![0]!, /depends on the model following the rule/);
    assert.equal(roo.routes, undefined, 'no hook: nothing is routed');
  });

  it("the user: ~/.roo/rules/ and the extension's mcp_settings.json in VS Code's global storage (Linux)", () => {
    const files = roo.plan(ctx({ env: { XDG_CONFIG_HOME: '/home/dev/.cfg' } }), 'global').edits.map((e) => e.file);
    assert.deepEqual(files, [
      '/home/dev/.cfg/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      '/home/dev/.roo/rules/bounded-evidence.md',
    ]);
  });

  it('without a known storage: nothing written (a rule would name tools Roo lacks), and the note says why', () => {
    const { edits, notes } = roo.plan(ctx({ mcpServer: () => undefined }), 'project');
    assert.deepEqual(edits, []);
    assert.match(notes![0]!, /^MCP not registered/);
  });

  it('is found by its names and says it is an extension', () => {
    assert.equal(agentNamed('roo-code'), roo);
    assert.equal(roo.vscodeExtension, 'rooveterinaryinc.roo-cline');
    assert.equal(roo.detect(ctx({ exists: (f) => f === '/home/dev/.roo' })).installed, true);
    assert.equal(roo.detect(ctx()).installed, false);
  });

  it("init, doctor, then uninstall: the person's .roo/mcp.json and rules come back byte for byte", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'be-roo-unit-'));
    try {
      const project = path.join(root, 'project');
      const mcpFile = path.join(project, '.roo', 'mcp.json');
      mkdirSync(path.join(project, '.roo', 'rules'), { recursive: true });
      const mine = '{\n  "mcpServers": {\n    "mine": { "command": "true", "disabled": true }\n  }\n}\n';
      writeFileSync(mcpFile, mine);
      writeFileSync(path.join(project, '.roo', 'rules', 'style.md'), '# Style\n');
      const c = ctx({
        home: path.join(root, 'home'),
        project,
        stateDir: path.join(root, 'state'),
        exists: (f) => existsSync(f),
        readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
      });
      const [done] = await runInit(c, { agents: [roo], scope: 'project' });
      assert.deepEqual(
        done!.files.map((f) => [path.relative(project, f.file), f.action]),
        [
          ['.roo/mcp.json', 'updated'],
          ['.roo/rules/bounded-evidence.md', 'created'],
        ],
      );
      const servers = (JSON.parse(readFileSync(mcpFile, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers;
      assert.deepEqual(Object.keys(servers), ['mine', 'bounded-evidence']);
      const [row] = (await doctorRows(c, [roo])).filter((r) => r.scope === 'project');
      assert.equal(verdictText(row!.verdict), 'MCP + rules (depends on the model following the rule)');
      assert.equal(row!.routed, true);
      await runInit(c, { agents: [roo], scope: 'project', uninstall: true });
      assert.equal(readFileSync(mcpFile, 'utf8'), mine);
      assert.deepEqual(readdirSync(path.join(project, '.roo', 'rules')), ['style.md']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
