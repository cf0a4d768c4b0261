/**
 * Cline's command line (src/core/reach/agents/cline.ts): the hook file init writes where the CLI reads hooks, the MCP
 * entry `--global` adds, a byte-identical uninstall, and the hook's answer to the event recorded from the real
 * `cline` 3.0.65 (test/agents/cline.test.ts, fixtures/cline-3.0.65-run_commands.json, paths renamed): each command
 * of a `run_commands` call routed on its own, in `overrideInput`.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { cline, clineHookText } from '../../../../src/core/reach/agents/cline.js';
import { PORTABLE_MCP_SERVER } from '../../../../src/core/reach/agents/context.js';
import { runInit } from '../../../../src/core/reach/agents/init.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { decideHook, type HookContext } from '../../../../src/core/reach/hookEvent.js';
import { routableText } from './hostileCommands.js';
import { agentContext, MCP } from './agentContext.js';

const HOOK = `'/opt/be/bin/bounded-evidence' hook --agent cline`;
const ctx = (over: Partial<AgentContext> = {}): AgentContext => agentContext(HOOK, over);
const where = (edits: readonly ConfigEdit[]) => edits.map((e) => [e.file, e.kind === 'json' ? e.path : e.kind]);

const event = JSON.parse(
  readFileSync(path.join(__dirname, 'fixtures', 'cline-3.0.65-run_commands.json'), 'utf8'),
) as Record<string, unknown>;
const withCommands = (commands: unknown): Record<string, unknown> => ({
  ...event,
  tool_call: { ...(event.tool_call as object), input: { commands } },
});
const SPOOL = '/home/dev/.local/share/bounded-evidence/workspaces/p/evidence/spool/0123456789ab';
const MCP_FILE = '/home/dev/.cline/data/settings/cline_mcp_settings.json';
const reads: (string | undefined)[] = [];
const hookCtx = (over: Partial<HookContext> = {}): HookContext => ({
  cli: `'/opt/be/bin/bounded-evidence'`,
  storage: '/home/dev/.local/share/bounded-evidence/workspaces/p',
  parses: () => true,
  prepare: (_c, meta) => {
    reads.push(meta.read);
    return SPOOL;
  },
  env: { HOME: '/home/dev' },
  readText: () => undefined,
  which: (p) => (p === 'bounded-evidence' ? '/usr/local/bin/bounded-evidence' : undefined),
  clientArgs: () => ['/opt/cline/bin/cline', '--json', 'Why does the build fail?'],
  ...over,
});
const routed = (command: string) =>
  `{ ${command} ; } 8>>'${SPOOL}'/1.$$ 9>>'${SPOOL}'/2 1>&8 2>&9 8>&- 9>&-; '/opt/be/bin/bounded-evidence' keep '${SPOOL}' $? 4096`;

describe('Cline command line: init plan and hook', () => {
  it('plans .cline/hooks/PreToolUse in the project (no MCP: it is the user’s), and the MCP entry with --global', () => {
    const project = cline.plan(ctx(), 'project');
    assert.deepEqual(where(project.edits), [['/home/dev/project/.cline/hooks/PreToolUse', 'file']]);
    const file = project.edits[0] as Extract<ConfigEdit, { kind: 'file' }>;
    assert.equal(file.text, clineHookText(HOOK));
    assert.match(
      file.text,
      /^#!\/bin\/sh\n# Added by bounded-evidence init; .*\n'\/opt\/be\/bin\/bounded-evidence' hook --agent cline\n$/,
    );
    assert.ok(file.ours(file.text.replace(HOOK, 'other-version hook')));
    assert.ok(!file.ours('#!/bin/sh\nmy-guard\n'));
    assert.match(project.notes!.join('\n'), /bounded-evidence read HANDLE/);
    const global = cline.plan(ctx(), 'global');
    assert.deepEqual(where(global.edits), [
      ['/home/dev/.cline/hooks/PreToolUse', 'file'],
      [MCP_FILE, ['mcpServers', 'bounded-evidence']],
    ]);
    assert.deepEqual((global.edits[1] as Extract<ConfigEdit, { kind: 'json' }>).value, { ...MCP, timeout: 60 });
    assert.deepEqual(where(cline.plan(ctx({ env: { CLINE_DIR: '/srv/c' } }), 'global').edits), [
      ['/srv/c/hooks/PreToolUse', 'file'],
      ['/srv/c/data/settings/cline_mcp_settings.json', ['mcpServers', 'bounded-evidence']],
    ]);
    assert.equal(
      where(cline.plan(ctx({ env: { CLINE_MCP_SETTINGS_PATH: '/m.json' } }), 'global').edits)[1]![0],
      '/m.json',
    );
  });

  it('routes the recorded run_commands event: overrideInput with the command routed, read by the command line', () => {
    reads.length = 0;
    const d = decideHook(event, hookCtx());
    assert.equal(d.action, 'rewrite');
    assert.deepEqual((d as { answer: unknown }).answer, { overrideInput: { commands: [routed('printf hello')] } });
    assert.deepEqual(reads, ['bounded-evidence read']);
    // With our server in the user's MCP settings, the observation names read_tool_output instead.
    reads.length = 0;
    const mcp = JSON.stringify({ mcpServers: { 'bounded-evidence': PORTABLE_MCP_SERVER } });
    decideHook(event, hookCtx({ readText: (f) => (f === MCP_FILE ? mcp : undefined) }));
    assert.deepEqual(reads, [undefined]);
  });

  it('routes each command of a call on its own: one that cannot be, or is not text, stays as written', () => {
    const commands = ['ls', 'exit 3', { command: 'ls', args: [] }, 'set -e; false', 'npm test'];
    const d = decideHook(withCommands(commands), hookCtx());
    assert.deepEqual((d as { answer: unknown }).answer, {
      overrideInput: {
        commands: [routed('ls'), 'exit 3', { command: 'ls', args: [] }, 'set -e; false', routed('npm test')],
      },
    });
    const none = (e: Record<string, unknown>, over: Partial<HookContext> = {}) => {
      const r = decideHook(e, hookCtx(over));
      assert.equal(r.action, 'none');
      return (r as { reason: string }).reason;
    };
    assert.match(none(withCommands(['exit 3'])), /ends the shell/);
    assert.match(none(withCommands('ls')), /not a list/);
    assert.match(none({ ...event, tool_call: { id: 'c', name: 'read_files', input: { files: [] } } }), /not routed/);
    // Cline's VS Code extension sends its own shape to .clinerules/hooks: not ours to answer.
    const extension = {
      hookName: 'PreToolUse',
      preToolUse: { toolName: 'execute_command', parameters: { command: 'ls' } },
    };
    assert.match(none(extension), /names no tool/);
    const asks = ['/opt/cline/bin/cline', '--auto-approve', 'false', 'task'];
    assert.match(none(event, { clientArgs: () => asks }), /--auto-approve false/);
    assert.match(none(event, { clientArgs: () => ['cline', '--auto-approve=false'] }), /--auto-approve false/);
    assert.equal(
      decideHook(event, hookCtx({ clientArgs: () => ['cline', '--auto-approve', 'true'] })).action,
      'rewrite',
    );
  });

  it('any command text is carried verbatim into its own element, the others untouched (property)', () => {
    fc.assert(
      fc.property(routableText, fc.string(), (command, other) => {
        const d = decideHook(withCommands([command, { command: other }]), hookCtx());
        if (d.action !== 'rewrite') return;
        const [first, second] = (d.answer as { overrideInput: { commands: unknown[] } }).overrideInput.commands;
        assert.equal(first, routed(command));
        assert.deepEqual(second, { command: other });
      }),
      { numRuns: 300 },
    );
  });

  it("init --global then uninstall gives back the person's MCP settings byte for byte and removes the hook file", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'be-cline-unit-'));
    try {
      const home = path.join(root, 'home');
      const settings = path.join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json');
      mkdirSync(path.dirname(settings), { recursive: true });
      const mine = '{\n  "mcpServers": {\n    "mine": { "command": "true", "disabled": true }\n  }\n}\n';
      writeFileSync(settings, mine);
      const c = ctx({
        home,
        project: path.join(root, 'project'),
        stateDir: path.join(root, 'state'),
        exists: (f) => existsSync(f),
        readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
      });
      const [done] = await runInit(c, { agents: [cline], scope: 'global' });
      assert.deepEqual(
        done!.files.map((f) => [path.relative(home, f.file), f.action]),
        [
          ['.cline/hooks/PreToolUse', 'created'],
          ['.cline/data/settings/cline_mcp_settings.json', 'updated'],
        ],
      );
      const servers = (JSON.parse(readFileSync(settings, 'utf8')) as { mcpServers: Record<string, unknown> })
        .mcpServers;
      assert.deepEqual(Object.keys(servers), ['mine', 'bounded-evidence']);
      await runInit(c, { agents: [cline], scope: 'global', uninstall: true });
      assert.equal(readFileSync(settings, 'utf8'), mine);
      assert.ok(!existsSync(path.join(home, '.cline', 'hooks', 'PreToolUse')));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
