/**
 * The Evidence custom agent (agents/evidence.agent.md, contributed as `chatAgents`): its
 * front matter names the evidence tools by the reference names package.json declares,
 * and its agent-scoped PreToolUse hook, run by /bin/sh as the chat extension runs it,
 * routes a `run_in_terminal` event when the extension host has BOUNDED_EVIDENCE_CLI and
 * answers nothing (exit 0) when it has not.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = path.resolve(__dirname, '..', '..', '..', '..');
const AGENT = readFileSync(path.join(REPO, 'agents', 'evidence.agent.md'), 'utf8');
const PKG = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  contributes: { chatAgents: { path: string }[]; languageModelTools: { toolReferenceName: string }[] };
};

describe('Evidence custom agent', () => {
  const front = /^---\n([\s\S]*?)\n---\n/.exec(AGENT)![1]!;

  it('is contributed, and its tools are the evidence tools plus the edit, search, read and terminal tools it needs', () => {
    assert.deepEqual(PKG.contributes.chatAgents, [{ path: './agents/evidence.agent.md' }]);
    assert.match(front, /^name: Evidence$/m);
    assert.match(front, /^description: .{20,}$/m);
    const tools = JSON.parse(/^tools: (\[.*\])$/m.exec(front)![1]!.replace(/'/g, '"')) as string[];
    for (const t of PKG.contributes.languageModelTools)
      assert.ok(tools.includes(t.toolReferenceName), t.toolReferenceName);
    // Only what it needs (the whole edit, search, read, execute and web sets were 34 tools): files, search, read, the terminal.
    for (const t of [
      'edit/createFile',
      'edit/editFiles',
      'search/textSearch',
      'read/readFile',
      'execute/runInTerminal',
    ])
      assert.ok(tools.includes(t), t);
    assert.ok(
      !tools.includes('web') &&
        !tools.some((t) => !t.includes('/') && ['edit', 'search', 'read', 'execute'].includes(t)),
      'no whole tool sets',
    );
    assert.match(AGENT, /pattern/);
    assert.match(AGENT, /offset/);
  });

  it('its PreToolUse hook routes run_in_terminal through the shim the extension host names, and stays silent without it', () => {
    const command = /^ {6}command: '(.*)'$/m.exec(front)![1]!.replace(/''/g, "'");
    const dir = mkdtempSync(path.join(os.tmpdir(), 'be-agent-'));
    try {
      const shim = path.join(dir, 'bounded-evidence');
      const tsx = pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
      writeFileSync(
        shim,
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${tsx} ${JSON.stringify(path.join(REPO, 'src', 'cli', 'main.ts'))} "$@"\n`,
      );
      chmodSync(shim, 0o755);
      const event = JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: 's1',
        tool_name: 'run_in_terminal',
        tool_input: { command: 'npm test', isBackground: false },
        cwd: dir,
      });
      const { BOUNDED_EVIDENCE_CLI: _a, BOUNDED_EVIDENCE_STORAGE: _b, ...clean } = process.env;
      mkdirSync(path.join(dir, 'st'));
      const routed = spawnSync('/bin/sh', ['-c', command], {
        input: event,
        encoding: 'utf8',
        env: { ...clean, BOUNDED_EVIDENCE_CLI: shim, BOUNDED_EVIDENCE_STORAGE: path.join(dir, 'st') },
      });
      assert.equal(routed.status, 0, routed.stderr);
      const answer = JSON.parse(routed.stdout) as {
        hookSpecificOutput: { hookEventName: string; updatedInput: { command: string; isBackground: boolean } };
      };
      assert.equal(answer.hookSpecificOutput.hookEventName, 'PreToolUse');
      assert.equal(answer.hookSpecificOutput.updatedInput.isBackground, false);
      // The command itself, run in the terminal's own shell, its streams in a spool of this storage, `keep` through the shim.
      const routedCommand = answer.hookSpecificOutput.updatedInput.command;
      // VS Code's terminal gets one short line sourcing the wrapped command from its spool (the terminal echoes the
      // typed line into what the model gets); the script is the command, its streams in the spool, `keep` through the shim.
      const st = path.join(dir, 'st');
      const id = /^\. "\$BOUNDED_EVIDENCE_STORAGE\/evidence\/spool\/([0-9a-f]{12})\/run"$/.exec(routedCommand)?.[1];
      assert.ok(id, routedCommand);
      const spool = path.join(st, 'evidence', 'spool', id);
      assert.equal(
        readFileSync(path.join(spool, 'run'), 'utf8'),
        `{ npm test ; } 8>>'${spool}'/1.$$ 9>>'${spool}'/2 1>&8 2>&9 8>&- 9>&-; '${shim}' keep '${spool}' $? 4096`,
      );
      const silent = spawnSync('/bin/sh', ['-c', command], { input: event, encoding: 'utf8', env: clean });
      assert.deepEqual([silent.status, silent.stdout], [0, '']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
