/**
 * The init plans of Codex, Gemini CLI, opencode and Qwen Code (src/core/reach/agents/), pure, on a temporary-home
 * context: which files, which values, what counts as ours. That the real clients read them as planned is
 * test/agents/{codex,gemini,opencode,qwen}.test.ts.
 */
import * as assert from 'node:assert/strict';
import { codex, codexHookTrustHash } from '../../../../src/core/reach/agents/codex.js';
import { gemini } from '../../../../src/core/reach/agents/gemini.js';
import { opencode, PLUGIN_MARK } from '../../../../src/core/reach/agents/opencode.js';
import { qwen } from '../../../../src/core/reach/agents/qwen.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { agentContext } from './agentContext.js';

const HOOK = `'/opt/be/bin/bounded-evidence' hook --agent X`;
const ctx = (over: Partial<AgentContext> = {}): AgentContext =>
  agentContext(HOOK, {
    hookCommand: (agent) => HOOK.replace('X', agent ?? ''),
    mcpServer: () => ({ command: '/opt/be/bin/bounded-evidence', args: ['mcp', '--storage', '/st'] }),
    ...over,
  });
const json = (edits: readonly ConfigEdit[], i: number) => edits[i] as Extract<ConfigEdit, { kind: 'json' }>;
const toml = (edits: readonly ConfigEdit[], i: number) => edits[i] as Extract<ConfigEdit, { kind: 'toml' }>;

describe('init plans: Codex, Gemini CLI, opencode, Qwen Code', () => {
  it("Codex: hooks.json group, its trust entry after the person's own groups, MCP with read_tool_output only", () => {
    const ours = HOOK.replace('X', 'codex');
    const person = JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard' }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: `${ours} --old` }] },
        ],
      },
    });
    const { edits } = codex.plan(
      ctx({
        env: { CODEX_HOME: '/home/dev/.codex' },
        readText: (f) => (f === '/home/dev/.codex/hooks.json' ? person : undefined),
      }),
      'global',
    );
    assert.equal(json(edits, 0).file, '/home/dev/.codex/hooks.json');
    assert.deepEqual(json(edits, 0).value, {
      matcher: 'Bash',
      hooks: [{ type: 'command', command: ours, timeout: 15 }],
    });
    assert.equal(json(edits, 0).ours({ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard' }] }), false);
    // One group of the person's own precedes ours (our older entry is replaced, so it does not count).
    assert.deepEqual(toml(edits, 1).table, ['hooks', 'state', '/home/dev/.codex/hooks.json:pre_tool_use:1:0']);
    assert.deepEqual(toml(edits, 1).value, { trusted_hash: codexHookTrustHash('Bash', ours, 15) });
    assert.match(codexHookTrustHash('Bash', 'x', 15), /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(codexHookTrustHash('Bash', 'x', 15), codexHookTrustHash('Bash', 'x ', 15));
    assert.deepEqual(toml(edits, 2), {
      kind: 'toml',
      file: '/home/dev/.codex/config.toml',
      table: ['mcp_servers', 'bounded-evidence'],
      value: {
        command: '/opt/be/bin/bounded-evidence',
        args: ['mcp', '--storage', '/st'],
        enabled_tools: ['read_tool_output'],
      },
    });
    // Project scope: the project's .codex/hooks.json, trusted in the user's config.toml.
    const p = codex.plan(ctx(), 'project').edits;
    assert.equal(json(p, 0).file, '/home/dev/project/.codex/hooks.json');
    assert.equal(toml(p, 1).file, '/home/dev/.codex/config.toml');
    assert.equal(toml(p, 1).table[2], '/home/dev/project/.codex/hooks.json:pre_tool_use:0:0');
  });

  it('Gemini CLI: BeforeTool group on run_shell_command (timeout in ms), MCP with includeTools', () => {
    const { edits } = gemini.plan(ctx(), 'project');
    assert.deepEqual(
      edits.map((e) => e.file),
      ['/home/dev/project/.gemini/settings.json', '/home/dev/project/.gemini/settings.json'],
    );
    assert.deepEqual(json(edits, 0).path, ['hooks', 'BeforeTool', -1]);
    assert.deepEqual(json(edits, 0).value, {
      matcher: 'run_shell_command',
      hooks: [{ type: 'command', name: 'bounded-evidence', command: HOOK.replace('X', 'gemini'), timeout: 15000 }],
    });
    assert.deepEqual((json(edits, 1).value as { includeTools: string[] }).includeTools, ['read_tool_output']);
    // With other tools' results kept: an AfterTool group on every tool, the same hook command.
    const post = gemini.plan(ctx({ recordOtherToolResults: true }), 'project').edits;
    assert.deepEqual(json(post, 1).path, ['hooks', 'AfterTool', -1]);
    assert.equal((json(post, 1).value as { matcher: string }).matcher, '*');
  });

  it('opencode: the plugin file beside opencode.json in the project, named by a relative path; ours by its first line', () => {
    const g = opencode.plan(ctx({ env: { XDG_CONFIG_HOME: '/home/dev/.cfg' } }), 'global').edits;
    assert.equal(g[0]!.file, '/home/dev/.cfg/opencode/plugin/bounded-evidence.js');
    const p = opencode.plan(ctx(), 'project').edits;
    assert.deepEqual(
      p.map((e) => e.file),
      [
        '/home/dev/project/.bounded-evidence/opencode-plugin.js',
        '/home/dev/project/opencode.json',
        '/home/dev/project/opencode.json',
      ],
    );
    const plugin = p[0] as Extract<ConfigEdit, { kind: 'file' }>;
    assert.ok(plugin.text.startsWith(PLUGIN_MARK));
    assert.ok(plugin.text.includes(JSON.stringify(HOOK.replace('X', 'opencode'))));
    assert.equal(plugin.ours(`${PLUGIN_MARK}\nold version`), true);
    assert.equal(plugin.ours('export const Mine = 1;'), false);
    assert.equal(json(p, 1).value, './.bounded-evidence/opencode-plugin.js');
    assert.equal(json(p, 1).ours('./.bounded-evidence/opencode-plugin.js'), true);
    // An older install's per-user plugin entry is ours: replaced, not doubled.
    assert.equal(json(p, 1).ours('file:///home/dev/.config/opencode/plugin-files/bounded-evidence-L2hvbWU.js'), true);
    assert.equal(json(p, 1).ours('opencode-wakatime'), false);
    assert.deepEqual(json(p, 2).value, {
      type: 'local',
      command: ['/opt/be/bin/bounded-evidence', 'mcp', '--storage', '/st'],
      enabled: true,
    });
  });

  it('Qwen Code: MCP only (evidence_runCommand and read_tool_output), no hook', () => {
    const { edits, notes } = qwen.plan(ctx(), 'global');
    assert.equal(edits.length, 1);
    assert.deepEqual(json(edits, 0).path, ['mcpServers', 'bounded-evidence']);
    assert.deepEqual((json(edits, 0).value as { includeTools: string[] }).includeTools, [
      'evidence_runCommand',
      'read_tool_output',
    ]);
    assert.match(notes!.join(' '), /does not apply a hook's rewrite/);
  });
});
