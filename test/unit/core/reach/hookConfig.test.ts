/**
 * What hook configurations share (src/core/reach/hookConfig.ts): the older VS Code hook file and
 * how our hook command is recognised. Merging into and removing from each agent's files is
 * init's engine, tested in agentsInit.test.ts.
 */
import * as assert from 'node:assert/strict';
import { isOurHookCommand, workspaceHookFileText } from '../../../../src/core/reach/hookConfig.js';

const OURS = `'/home/me/.config/Code/User/globalStorage/bounded-evidence.bounded-evidence/bin/bounded-evidence' hook --storage '/st'`;
describe('hook configuration files', () => {
  it('the workspace file is exactly one PreToolUse command hook (PostToolUse added only when asked)', () => {
    assert.equal(
      workspaceHookFileText(OURS),
      `{\n  "hooks": {\n    "PreToolUse": [\n      {\n        "type": "command",\n        "command": ${JSON.stringify(OURS)},\n        "timeout": 15\n      }\n    ]\n  }\n}\n`,
    );
    assert.deepEqual(Object.keys((JSON.parse(workspaceHookFileText(OURS, true)) as { hooks: object }).hooks), [
      'PreToolUse',
      'PostToolUse',
    ]);
    assert.equal(isOurHookCommand(OURS), true);
    assert.equal(isOurHookCommand('bounded-evidence hook'), true);
    assert.equal(isOurHookCommand('/usr/local/bin/audit-bash'), false);
    assert.equal(isOurHookCommand('my-bounded-evidence hook'), false);
  });
});
