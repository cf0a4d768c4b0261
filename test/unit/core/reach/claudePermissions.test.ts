/**
 * Claude Code's permission rules applied to the original command (src/core/reach/claudePermissions.ts):
 * the verdict the hook acts on, for the rule forms Claude Code documents (exact, `prefix:*`, globs, bare `Bash`).
 */
import * as assert from 'node:assert/strict';
import { decideHook, type HookContext } from '../../../../src/core/reach/hookEvent.js';
import {
  bashRulesOf,
  claudeVerdict,
  commandLineRules,
  ruleMatches,
  simpleCommands,
} from '../../../../src/core/reach/claudePermissions.js';

const settings = (permissions: object): string => JSON.stringify({ permissions });

describe('Claude Code permission rules on the original command', () => {
  it('reads only Bash rules, from any settings text; malformed text has none', () => {
    assert.deepEqual(
      bashRulesOf(settings({ allow: ['Bash(npm test)', 'Read(*)', 'Bash'], deny: ['Bash(rm:*)'], ask: 7 })),
      { allow: ['npm test', '*'], deny: ['rm:*'], ask: [] },
    );
    assert.deepEqual(bashRulesOf('{not json'), { allow: [], deny: [], ask: [] });
    assert.deepEqual(bashRulesOf(undefined), { allow: [], deny: [], ask: [] });
  });

  it('matches exact, prefix and glob rules as Claude Code does', () => {
    assert.ok(ruleMatches('npm test', 'npm test'));
    assert.ok(!ruleMatches('npm test', 'npm test --watch'));
    assert.ok(ruleMatches('node build-log.js:*', 'node build-log.js 38400'));
    assert.ok(ruleMatches('node build-log.js:*', 'node build-log.js'));
    assert.ok(!ruleMatches('node build-log.js:*', 'node build-log.jsx'));
    assert.ok(ruleMatches('git diff *', 'git diff HEAD~1'));
    assert.ok(ruleMatches('*', 'anything at all'));
  });

  it('splits a line into simple commands outside quotes; refuses what a rule cannot speak for', () => {
    assert.deepEqual(simpleCommands(`cd sub && npm test -- -g 'a && b' | tee out; echo "x;y" &`), [
      'cd sub',
      `npm test -- -g 'a && b'`,
      'tee out',
      'echo "x;y"',
    ]);
    assert.equal(simpleCommands('echo $(id)'), undefined);
    assert.equal(simpleCommands('echo `id`'), undefined);
    assert.equal(simpleCommands('a\nb'), undefined);
    assert.equal(simpleCommands(`echo 'open`), undefined);
  });

  it('deny and ask rules leave the command to Claude Code; allow needs every simple command allowed', () => {
    const user = settings({ allow: ['Bash(npm test:*)', 'Bash(cd:*)'] });
    const project = settings({ deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] });
    assert.equal(claudeVerdict('npm test', [user, project]), 'allow');
    assert.equal(claudeVerdict('cd sub && npm test -- --ci', [user, project]), 'allow');
    assert.equal(claudeVerdict('npm test && curl x', [user, project]), 'none');
    assert.equal(claudeVerdict('npm test; rm -rf build', [user, project]), 'leave');
    assert.equal(claudeVerdict('git push origin main', [user, project]), 'leave');
    assert.equal(claudeVerdict('npm test $(id)', [user, project]), 'none');
    assert.equal(claudeVerdict('ls', [undefined, '{}']), 'none');
  });

  it('a bare Bash allow rule allows every command, whatever its syntax, unless a deny or ask rule matches', () => {
    const all = settings({ allow: ['Bash'] });
    assert.equal(claudeVerdict('echo $(id) | wc\nls', [all]), 'allow');
    assert.equal(claudeVerdict('rm -rf x', [all, settings({ deny: ['Bash(rm:*)'] })]), 'leave');
  });

  it("rules on Claude Code's command line (--allowedTools, --disallowedTools) read as settings; another program's: none", () => {
    const claude = '/home/me/.local/bin/claude';
    assert.deepEqual(
      JSON.parse(
        commandLineRules([
          claude,
          '-p',
          'go',
          '--allowedTools',
          'Bash(git log:*),Edit',
          'Bash(printf:*)',
          '--output-format',
          'json',
          '--disallowed-tools=Bash(rm:*)',
        ])!,
      ),
      { permissions: { allow: ['Bash(git log:*)', 'Edit', 'Bash(printf:*)'], deny: ['Bash(rm:*)'] } },
    );
    const flags = commandLineRules([claude, '--allowedTools', 'Bash(printf:*)']);
    assert.equal(claudeVerdict("printf 'x'", [undefined, flags]), 'allow');
    assert.equal(claudeVerdict('touch a', [undefined, flags]), 'none');
    assert.equal(commandLineRules(['/usr/bin/node', '/opt/other.js', '--allowedTools', 'Bash']), undefined);
  });

  it('the hook on a Claude Code event: a command no settings rule allows stays as written where Claude Code would ask', () => {
    const event = (mode: string | undefined, command: string): Record<string, unknown> => ({
      ...(mode !== undefined ? { permission_mode: mode } : {}),
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      cwd: '/w',
      tool_input: { command },
    });
    const ctx = (texts: (string | undefined)[], allow = false): HookContext => ({
      cli: "'/be'",
      storage: '/st',
      allow,
      parses: () => true,
      prepare: () => '/st/evidence/spool/0123456789ab',
      claudeSettings: () => texts,
    });
    const rules = [settings({ allow: ['Bash(printf:*)'] })];
    const decide = (e: Record<string, unknown>, c: HookContext): unknown => {
      const d = decideHook(e, c);
      return d.action === 'rewrite'
        ? ((d.answer.hookSpecificOutput as { permissionDecision?: string }).permissionDecision ?? 'routed')
        : (d as { reason: string }).reason;
    };
    assert.equal(decide(event('default', "printf 'x\\n'"), ctx(rules)), 'allow');
    assert.equal(
      decide(event('default', 'touch a'), ctx(rules)),
      'no allow rule covers it in permission mode default: Claude Code decides on it as written',
    );
    assert.match(String(decide(event('acceptEdits', 'touch a'), ctx(rules))), /permission mode acceptEdits/);
    assert.equal(decide(event('bypassPermissions', 'touch a'), ctx(rules)), 'routed');
    // No mode in the event (opencode's plugin, in Claude Code's shape): nothing would ask.
    assert.equal(decide(event(undefined, 'touch a'), ctx(rules)), 'routed');
    // `hook --allow`: the person allows every routed command.
    assert.equal(decide(event('default', 'touch a'), ctx(rules, true)), 'allow');
  });
});
