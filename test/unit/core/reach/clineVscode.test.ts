/**
 * Cline's VS Code extension (src/core/reach/agents/clineVscode.ts): no hook can change its commands, so a rule in
 * `.clinerules/` (`~/Documents/Cline/Rules/`) and, with --global, the MCP server in both bundles' files, the SDK
 * bundle's being the command line's own; doctor says the project's rule waits for them; a byte-identical uninstall.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cline } from '../../../../src/core/reach/agents/cline.js';
import { CLINE_RULE, clineVscode } from '../../../../src/core/reach/agents/clineVscode.js';
import { agentNamed } from '../../../../src/core/reach/agents/index.js';
import { doctorRows, runInit, verdictText } from '../../../../src/core/reach/agents/init.js';
import { RULE_MARK } from '../../../../src/core/reach/agents/rules.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { agentContext, MCP } from './agentContext.js';

const ctx = (over: Partial<AgentContext> = {}): AgentContext => agentContext('unused', over);
const where = (edits: readonly ConfigEdit[]) => edits.map((e) => [e.file, e.kind === 'json' ? e.path : e.kind]);
const LEGACY = 'globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json';
const mine = '{\n  "mcpServers": {\n    "mine": { "command": "true", "disabled": true }\n  }\n}\n';

describe("Cline's VS Code extension: MCP + rules", () => {
  it('the project: only the rule in .clinerules/, naming both bundles’ shell tools; nothing routed', () => {
    const { edits, notes } = clineVscode.plan(ctx(), 'project');
    assert.deepEqual(where(edits), [['/home/dev/project/.clinerules/bounded-evidence.md', 'file']]);
    const rule = edits[0] as Extract<ConfigEdit, { kind: 'file' }>;
    assert.equal(rule.text, CLINE_RULE);
    assert.equal(rule.text.split('\n')[0], RULE_MARK);
    assert.ok(rule.text.includes('server, not with `run_commands` or `execute_command`.'));
    assert.ok(
      rule.text.endsWith(
        '- If the `bounded-evidence` server is not among your tools, run commands as usual.\n' +
          '- A `run_commands` result that already is such a bounded view was routed: read more of it as it says.\n',
      ),
    );
    assert.ok(rule.ours(`${RULE_MARK}\nolder words`) && !rule.ours('# My rules'));
    assert.match(notes![0]!, /depends on the model following the rule/);
    assert.equal(clineVscode.routes, undefined);
  });

  it("--global: both bundles' MCP files, the SDK one the very edit the command line makes, and the user's rules", () => {
    const c = ctx({ env: { XDG_CONFIG_HOME: '/home/dev/.cfg' } });
    const { edits } = clineVscode.plan(c, 'global');
    assert.deepEqual(where(edits), [
      [`/home/dev/.cfg/Code/User/${LEGACY}`, ['mcpServers', 'bounded-evidence']],
      ['/home/dev/.cline/data/settings/cline_mcp_settings.json', ['mcpServers', 'bounded-evidence']],
      ['/home/dev/Documents/Cline/Rules/bounded-evidence.md', 'file'],
    ]);
    assert.deepEqual((edits[0] as Extract<ConfigEdit, { kind: 'json' }>).value, { ...MCP, timeout: 60 });
    const cliEdit = cline.plan(c, 'global').edits[1] as Extract<ConfigEdit, { kind: 'json' }>;
    const sdkEdit = edits[1] as Extract<ConfigEdit, { kind: 'json' }>;
    assert.deepEqual([sdkEdit.file, sdkEdit.path, sdkEdit.value], [cliEdit.file, cliEdit.path, cliEdit.value]);
    assert.equal(
      where(clineVscode.plan(ctx({ env: { CLINE_DIR: '/srv/c' } }), 'global').edits)[1]![0],
      '/srv/c/data/settings/cline_mcp_settings.json',
    );
  });

  it('without a known storage: no MCP and no user rule (it would name tools Cline lacks); the project rule still', () => {
    const none = ctx({ mcpServer: () => undefined });
    const global = clineVscode.plan(none, 'global');
    assert.deepEqual(global.edits, []);
    assert.match(global.notes![0]!, /^MCP not registered/);
    assert.deepEqual(where(clineVscode.plan(none, 'project').edits), [
      ['/home/dev/project/.clinerules/bounded-evidence.md', 'file'],
    ]);
  });

  it('is found by its names and says it is an extension', () => {
    assert.equal(agentNamed('claude-dev'), clineVscode);
    assert.equal(agentNamed('cline-extension'), clineVscode);
    assert.equal(agentNamed('cline'), cline);
    assert.equal(clineVscode.vscodeExtension, 'saoudrizwan.claude-dev');
    assert.equal(clineVscode.detect(ctx({ exists: (f) => f === '/home/dev/Documents/Cline' })).installed, true);
    assert.equal(clineVscode.detect(ctx()).installed, false);
  });

  it('dry run, init, doctor (the project waits for --global), then uninstall: every byte given back', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'be-clinevs-unit-'));
    try {
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      const env = { XDG_CONFIG_HOME: path.join(home, '.config') };
      const legacy = path.join(home, '.config', 'Code', 'User', LEGACY);
      const shared = path.join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json');
      mkdirSync(path.dirname(legacy), { recursive: true });
      writeFileSync(legacy, mine);
      mkdirSync(path.join(project, '.clinerules'), { recursive: true });
      writeFileSync(path.join(project, '.clinerules', 'style.md'), '# Style\n');
      const c = ctx({
        home,
        project,
        env,
        stateDir: path.join(root, 'state'),
        exists: (f) => existsSync(f),
        readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
      });
      const verdict = async (scope: 'project' | 'global') =>
        verdictText((await doctorRows(c, [clineVscode])).find((r) => r.scope === scope)!.verdict);

      const [dry] = await runInit(c, { agents: [clineVscode], scope: 'global', dryRun: true });
      assert.deepEqual(
        dry!.files.map((f) => [path.relative(home, f.file), f.action]),
        [
          [path.relative(home, legacy), 'updated'],
          ['.cline/data/settings/cline_mcp_settings.json', 'created'],
          ['Documents/Cline/Rules/bounded-evidence.md', 'created'],
        ],
      );
      assert.ok(!existsSync(shared) && readFileSync(legacy, 'utf8') === mine, 'a dry run writes nothing');

      await runInit(c, { agents: [clineVscode], scope: 'project' });
      assert.deepEqual(readdirSync(path.join(project, '.clinerules')).sort(), ['bounded-evidence.md', 'style.md']);
      assert.equal(
        await verdict('project'),
        "not routed: run bounded-evidence init --agent cline-vscode --global: the extension's MCP servers are the user's",
      );
      assert.equal(await verdict('global'), 'off');

      await runInit(c, { agents: [cline, clineVscode], scope: 'global' });
      const servers = (f: string) =>
        Object.keys((JSON.parse(readFileSync(f, 'utf8')) as { mcpServers: object }).mcpServers);
      assert.deepEqual(servers(legacy), ['mine', 'bounded-evidence']);
      assert.deepEqual(servers(shared), ['bounded-evidence']);
      assert.equal(await verdict('project'), 'MCP + rules (depends on the model following the rule)');
      assert.equal(await verdict('global'), 'MCP + rules (depends on the model following the rule)');

      await runInit(c, { agents: [clineVscode], scope: 'project', uninstall: true });
      await runInit(c, { agents: [cline, clineVscode], scope: 'global', uninstall: true });
      assert.equal(readFileSync(legacy, 'utf8'), mine);
      assert.deepEqual(readdirSync(path.join(project, '.clinerules')), ['style.md']);
      assert.ok(!existsSync(path.join(home, '.cline')) && !existsSync(path.join(home, 'Documents')));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
