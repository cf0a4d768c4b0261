/**
 * Factory Droid (src/core/reach/agents/droid.ts, src/core/reach/droidPermissions.ts): where init puts the hook (Droid
 * reads `hooks.json`, and `settings.json`'s `hooks` only while `hooks.json` is absent), the MCP entry, a byte-identical
 * uninstall, and the hook's answer to the event recorded from the real Droid 0.225.2 (test/agents/droid.test.ts,
 * fixtures/droid-0.225.2-Execute.json, paths renamed): routed only in autonomy High and off Droid's command lists.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { droid } from '../../../../src/core/reach/agents/droid.js';
import { runInit } from '../../../../src/core/reach/agents/init.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { droidListed, droidListsOf } from '../../../../src/core/reach/droidPermissions.js';
import { decideHook, type HookContext } from '../../../../src/core/reach/hookEvent.js';
import { agentContext, MCP } from './agentContext.js';

const HOOK = `'/opt/be/bin/bounded-evidence' hook --agent droid`;
const ctx = (over: Partial<AgentContext> = {}): AgentContext => agentContext(HOOK, over);
const json = (edits: readonly ConfigEdit[]) => edits as Extract<ConfigEdit, { kind: 'json' }>[];
const group = (matcher: string) => ({ matcher, hooks: [{ type: 'command', command: HOOK, timeout: 15 }] });

const event = JSON.parse(
  readFileSync(path.join(__dirname, 'fixtures', 'droid-0.225.2-Execute.json'), 'utf8'),
) as Record<string, unknown>;
const SPOOL = '/home/dev/.local/share/bounded-evidence/workspaces/p/evidence/spool/0123456789ab';
const hookCtx = (settings: Record<string, string> = {}): HookContext => ({
  cli: `'/opt/be/bin/bounded-evidence'`,
  storage: '/home/dev/.local/share/bounded-evidence/workspaces/p',
  agent: 'droid',
  parses: () => true,
  prepare: () => SPOOL,
  env: { HOME: '/home/dev' },
  readText: (f) => settings[f],
});

describe('Factory Droid: init plan and hook', () => {
  it('plans hooks.json (PreToolUse on Execute) and mcp.json (read_tool_output only) in the project', () => {
    const { edits, notes } = droid.plan(ctx(), 'project');
    assert.deepEqual(
      json(edits).map((e) => [e.file, e.path, e.value, e.comments]),
      [
        ['/home/dev/project/.factory/hooks.json', ['PreToolUse', -1], group('Execute'), true],
        [
          '/home/dev/project/.factory/mcp.json',
          ['mcpServers', 'bounded-evidence'],
          { type: 'stdio', ...MCP, enabledTools: ['read_tool_output'] },
          true,
        ],
      ],
    );
    assert.match(notes![0]!, /ToolSearch/);
    assert.deepEqual(droid.cautions!(ctx(), 'project').length, 1);
  });

  it("goes into settings.json's hooks where Droid reads hooks from there today, and honours FACTORY_HOME_OVERRIDE", () => {
    const file = (c: Partial<AgentContext>, scope: 'project' | 'global' = 'project') =>
      json(droid.plan(ctx(c), scope).edits).map((e) => [e.file, e.path]);
    const settings = '/home/dev/project/.factory/settings.json';
    assert.deepEqual(file({ readText: (f) => (f === settings ? '{ "hooks": { "Stop": [] } }' : undefined) })[0], [
      settings,
      ['hooks', 'PreToolUse', -1],
    ]);
    assert.deepEqual(file({ exists: (f) => f === '/home/dev/project/.factory/hooks/hooks.json' })[0], [
      settings,
      ['hooks', 'PreToolUse', -1],
    ]);
    // hooks.json exists: Droid reads only it, whatever settings.json holds.
    assert.deepEqual(file({ exists: (f) => f.endsWith('/hooks.json'), readText: () => '{"hooks":{}}' })[0], [
      '/home/dev/project/.factory/hooks.json',
      ['PreToolUse', -1],
    ]);
    assert.deepEqual(file({ env: { FACTORY_HOME_OVERRIDE: '/srv/fh' } }, 'global'), [
      ['/srv/fh/.factory/hooks.json', ['PreToolUse', -1]],
      ['/srv/fh/.factory/mcp.json', ['mcpServers', 'bounded-evidence']],
    ]);
    const post = json(droid.plan(ctx({ recordOtherToolResults: true }), 'project').edits)[1]!;
    assert.deepEqual([post.path, post.value], [['PostToolUse', -1], group('*')]);
  });

  it("init then uninstall gives back the person's settings.json byte for byte (comments, their own hooks)", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'be-droid-unit-'));
    try {
      const project = path.join(root, 'project');
      const settings = path.join(project, '.factory', 'settings.json');
      mkdirSync(path.dirname(settings), { recursive: true });
      const mine =
        '{\n  // my hooks\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Edit", "hooks": [{ "type": "command", "command": "my-guard" }] }\n    ]\n  }\n}\n';
      writeFileSync(settings, mine);
      const c = ctx({
        home: path.join(root, 'home'),
        project,
        stateDir: path.join(root, 'state'),
        exists: (f) => existsSync(f),
        readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
        mcpServer: () => undefined,
      });
      const [done] = await runInit(c, { agents: [droid], scope: 'project' });
      assert.deepEqual(
        done!.files.map((f) => [path.relative(project, f.file), f.action]),
        [['.factory/settings.json', 'updated']],
      );
      const hooks = (
        JSON.parse(readFileSync(settings, 'utf8').replace('// my hooks', '')) as {
          hooks: { PreToolUse: unknown[] };
        }
      ).hooks.PreToolUse;
      assert.deepEqual(hooks[1], group('Execute'));
      assert.ok(!existsSync(path.join(project, '.factory', 'hooks.json')));
      await runInit(c, { agents: [droid], scope: 'project', uninstall: true });
      assert.equal(readFileSync(settings, 'utf8'), mine);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('routes the recorded Execute event in autonomy High: updatedInput with every argument kept, no decision', () => {
    const d = decideHook(event, hookCtx());
    assert.equal(d.action, 'rewrite');
    const answer = (d as unknown as { answer: { hookSpecificOutput: Record<string, unknown> } }).answer
      .hookSpecificOutput;
    assert.deepEqual(Object.keys(answer), ['hookEventName', 'updatedInput']);
    const input = event.tool_input as Record<string, unknown>;
    const updated = answer.updatedInput as Record<string, unknown>;
    assert.deepEqual({ ...updated, command: input.command }, input);
    assert.ok((updated.command as string).includes(SPOOL));
  });

  it("leaves as written: lower autonomy, fire-and-forget, a command on Droid's or the person's list, permissionRules", () => {
    const none = (e: Record<string, unknown>, settings?: Record<string, string>) => {
      const d = decideHook(e, hookCtx(settings));
      assert.equal(d.action, 'none');
      return (d as { reason: string }).reason;
    };
    const input = event.tool_input as Record<string, unknown>;
    assert.match(none({ ...event, permission_mode: 'auto-medium' }), /autonomy auto-medium/);
    assert.match(none({ ...event, permission_mode: 'off' }), /autonomy off/);
    assert.match(none({ ...event, tool_input: { ...input, fireAndForget: true } }), /fire-and-forget/);
    assert.match(none({ ...event, tool_input: { ...input, command: 'rm -rf ./build' } }), /names "rm -rf \/"/);
    const user = '/home/dev/.factory/settings.json';
    const local = '/home/dev/project/.factory/settings.local.json';
    assert.match(none(event, { [user]: '{"commandDenylist":["node demo"]}' }), /names "node demo"/);
    assert.match(none(event, { [local]: '{ "general": { "commandBlocklist": ["node"] } }' }), /names "node"/);
    assert.match(none(event, { [user]: '{"permissionRules":{}}' }), /permissionRules/);
    assert.equal(decideHook(event, hookCtx({ [user]: '{"commandDenylist":["npm publish"]}' })).action, 'rewrite');
  });

  it("records Droid's large PostToolUse response as Droid's, also without --agent", () => {
    const post = { ...event, hook_event_name: 'PostToolUse', tool_response: `${'x'.repeat(5000)}\n` };
    const d = decideHook(post, { ...hookCtx(), agent: undefined, recordPostToolUse: true });
    assert.deepEqual([d.action, (d as { agent?: string }).agent], ['record', 'droid']);
  });

  it("matches a list's program anywhere in the command, and its whole text", () => {
    assert.equal(droidListed('cd x && sudo /sbin/shutdown -h now', 'shutdown'), true);
    assert.equal(droidListed('FOO=1 xargs rm -rf < /list', 'rm -rf /'), true);
    assert.equal(droidListed('rm -r build', 'rm -rf /'), false);
    assert.equal(droidListed(':(){ :|: & };:', ':(){ :|: & };:'), true);
    assert.equal(droidListed('git status', 'git push --force'), false);
    assert.deepEqual(droidListsOf('{"commandDenylist":["a",1,""],"commandBlocklist":["b"]}'), ['a', 'b']);
    assert.deepEqual(droidListsOf('not json'), []);
  });
});
