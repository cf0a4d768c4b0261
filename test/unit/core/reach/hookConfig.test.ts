/**
 * Routing's hook files (src/core/reach/hookConfig.ts): merging into files with hooks of
 * their own, missing files, files that are not JSON and files that cannot be read, and
 * removing exactly what was added.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editSettingsFile, isOurHookCommand, mergeHook, removeHook, workspaceHookFileText } from '../../../../src/core/reach/hookConfig.js';

const OURS = `'/home/me/.config/Code/User/globalStorage/bounded-evidence.bounded-evidence/bin/bounded-evidence' hook --storage '/st'`;
const OTHER_CLAUDE = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/audit-bash' }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
};

describe('hook configuration files', () => {
  it('the workspace file is exactly one PreToolUse command hook (PostToolUse added only when asked)', () => {
    assert.equal(workspaceHookFileText(OURS), `{\n  "hooks": {\n    "PreToolUse": [\n      {\n        "type": "command",\n        "command": ${JSON.stringify(OURS)},\n        "timeout": 15\n      }\n    ]\n  }\n}\n`);
    assert.deepEqual(Object.keys((JSON.parse(workspaceHookFileText(OURS, true)) as { hooks: object }).hooks), ['PreToolUse', 'PostToolUse']);
    assert.equal(isOurHookCommand(OURS), true);
    assert.equal(isOurHookCommand('bounded-evidence hook'), true);
    assert.equal(isOurHookCommand('/usr/local/bin/audit-bash'), false);
    assert.equal(isOurHookCommand('my-bounded-evidence hook'), false);
  });

  it('merges into Claude settings with hooks of their own, keeps them in order, is idempotent, and removes only ours', () => {
    const text = JSON.stringify(OTHER_CLAUDE, null, 2);
    const merged = mergeHook(text, OURS, '~/.claude/settings.json', { matcher: 'Bash' });
    assert.ok(merged.ok && merged.changed);
    const doc = JSON.parse(merged.text!) as typeof OTHER_CLAUDE;
    assert.equal(doc.model, 'opus');
    assert.deepEqual(doc.permissions, OTHER_CLAUDE.permissions);
    assert.deepEqual(doc.hooks.Stop, OTHER_CLAUDE.hooks.Stop);
    assert.deepEqual(doc.hooks.PreToolUse, [...OTHER_CLAUDE.hooks.PreToolUse, { matcher: 'Bash', hooks: [{ type: 'command', command: OURS, timeout: 15 }] }]);
    const again = mergeHook(merged.text, OURS, 'x', { matcher: 'Bash' });
    assert.ok(again.ok && !again.changed && again.text === merged.text);
    // Another install path of ours is replaced, not added twice.
    const moved = mergeHook(merged.text, OURS.replace('/home/me', '/home/you'), 'x', { matcher: 'Bash' });
    assert.ok(moved.ok);
    assert.equal((JSON.parse(moved.text!) as typeof OTHER_CLAUDE).hooks.PreToolUse.length, 2);
    const removed = removeHook(merged.text, 'x');
    assert.ok(removed.ok && removed.changed);
    assert.deepEqual(JSON.parse(removed.text!), OTHER_CLAUDE);
    // Ours inside a group someone else also uses: only our hook goes.
    const shared = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }, { type: 'command', command: OURS }] }] } };
    const r = removeHook(JSON.stringify(shared), 'x');
    assert.ok(r.ok);
    assert.deepEqual(JSON.parse(r.text!), { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }] } });
  });

  it('a missing or empty file becomes ours alone, and removing it again deletes it', () => {
    for (const start of [undefined, '', '  \n']) {
      const m = mergeHook(start, OURS, 'f');
      assert.ok(m.ok && m.changed);
      assert.equal(m.text, workspaceHookFileText(OURS));
      const r = removeHook(m.text, 'f');
      assert.deepEqual(r, { ok: true, changed: true, text: undefined });
    }
    assert.deepEqual(removeHook(undefined, 'f'), { ok: true, changed: false, text: undefined });
  });

  it('refuses text that is not a JSON object, or hooks of the wrong shape, and says so', () => {
    for (const [text, re] of [['{ "hooks": { // comment\n } }', /not valid JSON/], ['[1]', /not a JSON object/], ['{"hooks": 3}', /"hooks" that is not an object/], ['{"hooks": {"PreToolUse": {}}}', /hooks.PreToolUse that is not a list/]] as const) {
      const m = mergeHook(text, OURS, 'settings.json');
      assert.ok(!m.ok);
      assert.match(m.error, re);
    }
    const r = removeHook('not json', 'settings.json');
    assert.ok(!r.ok);
  });

  it('on disk: creates folders, leaves an unreadable path and a non-JSON file untouched, deletes only an emptied file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'be-hookcfg-'));
    try {
      const file = path.join(dir, '.github', 'hooks', 'bounded-evidence.json');
      assert.deepEqual(await editSettingsFile(file, (t) => mergeHook(t, OURS, 'f')), { ok: true, changed: true, deleted: false });
      assert.equal(readFileSync(file, 'utf8'), workspaceHookFileText(OURS));
      assert.deepEqual(await editSettingsFile(file, (t) => mergeHook(t, OURS, 'f')), { ok: true, changed: false, deleted: false });
      assert.deepEqual(await editSettingsFile(file, (t) => removeHook(t, 'f')), { ok: true, changed: true, deleted: true });
      assert.equal(existsSync(file), false);
      // A folder where the file should be cannot be read (root reads any mode, so permissions would prove nothing here).
      const unreadable = path.join(dir, 'settings.json');
      mkdirSync(unreadable);
      const u = await editSettingsFile(unreadable, (t) => mergeHook(t, OURS, 'f'));
      assert.ok(!u.ok);
      assert.match(u.error, /cannot be read \(EISDIR\)/);
      const broken = path.join(dir, 'broken.json');
      writeFileSync(broken, '{ "hooks": ');
      const b = await editSettingsFile(broken, (t) => mergeHook(t, OURS, 'broken.json', { matcher: 'Bash' }));
      assert.ok(!b.ok);
      assert.equal(readFileSync(broken, 'utf8'), '{ "hooks": ');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
