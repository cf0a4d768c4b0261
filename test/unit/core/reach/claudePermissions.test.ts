/**
 * Claude Code's permission rules applied to the original command (src/core/reach/claudePermissions.ts):
 * the verdict the hook acts on, for the rule forms Claude Code documents (exact, `prefix:*`, globs, bare `Bash`).
 */
import * as assert from 'node:assert/strict';
import {
  bashRulesOf,
  claudeVerdict,
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
});
