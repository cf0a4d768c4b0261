/**
 * Codex's policy applied before routing (src/core/reach/codexPolicy.ts), on payloads recorded from the real
 * Codex 0.171 (`codex exec` against the scripted loopback model, test/agents/codex.test.ts): its PreToolUse
 * event (fixtures/codex-0.171-bash.json, paths renamed) and one rollout `turn_context` line per sandbox
 * (fixtures/codex-0.171-turn-contexts.jsonl: read-only, workspace-write, danger-full-access, in that order).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { codexVerdict, latestCodexTurn, ruledPrograms } from '../../../../src/core/reach/codexPolicy.js';
import { decideHook, type HookContext } from '../../../../src/core/reach/hookEvent.js';

const FIXTURES = path.join(__dirname, 'fixtures');
const lines = readFileSync(path.join(FIXTURES, 'codex-0.171-turn-contexts.jsonl'), 'utf8').trim().split('\n');
const [readOnly, workspaceWrite, fullAccess] = lines.map((l) => latestCodexTurn(l)!);
const event = JSON.parse(readFileSync(path.join(FIXTURES, 'codex-0.171-bash.json'), 'utf8')) as Record<string, unknown>;
const ctx = (over: Partial<HookContext> = {}): HookContext => ({
  cli: `'/opt/be/bin/bounded-evidence'`,
  storage: '/home/dev/.config/Code/User/workspaceStorage/ab/bounded-evidence.bounded-evidence',
  parses: () => true,
  prepare: () =>
    '/home/dev/.config/Code/User/workspaceStorage/ab/bounded-evidence.bounded-evidence/evidence/spool/0123456789ab',
  ...over,
});

describe('Codex policy before routing (recorded Codex 0.171 payloads)', () => {
  it('reads the latest turn_context of a rollout, also from a tail cut mid-line', () => {
    assert.deepEqual(readOnly, {
      approvalPolicy: 'never',
      sandbox: { type: 'read-only', writableRoots: [], excludeSlashTmp: false, excludeTmpdirEnvVar: false },
      cwd: '/home/dev/project',
    });
    assert.equal(workspaceWrite!.sandbox.type, 'workspace-write');
    assert.equal(latestCodexTurn(lines.join('\n'))!.sandbox.type, 'danger-full-access');
    assert.equal(latestCodexTurn(`${lines[0]!.slice(40)}\n${lines[1]}`)!.sandbox.type, 'workspace-write');
    assert.equal(latestCodexTurn('{"type":"session_meta","payload":{}}\nnot json'), undefined);
  });

  it("the real event is told from Claude Code's (turn_id and model) and routed with allow under danger-full-access", () => {
    const d = decideHook(event, ctx({ codexSession: () => ({ turn: fullAccess, rules: [] }) }));
    assert.equal(d.action, 'rewrite');
    assert.equal((d as { agent: string }).agent, 'codex');
    const out = (d as unknown as { answer: { hookSpecificOutput: Record<string, unknown> } }).answer.hookSpecificOutput;
    assert.deepEqual(Object.keys(out), ['hookEventName', 'permissionDecision', 'updatedInput']);
    assert.equal(out.permissionDecision, 'allow');
  });

  it('leaves the command as written where the routed form would not run as the original', () => {
    const storage = ctx().storage!;
    const v = (turn = fullAccess, rules: string[] = [], command = 'cargo test 2>&1', s = storage) =>
      codexVerdict(command, turn, { storage: s, rules, tmpdir: '/tmp/u' });
    assert.deepEqual(v(), { route: true });
    assert.match((v(readOnly) as { reason: string }).reason, /read-only sandbox cannot write the evidence storage/);
    assert.match((v(workspaceWrite) as { reason: string }).reason, /writable_roots/);
    // Writable: the storage under the workspace, /tmp, $TMPDIR or a writable root.
    assert.deepEqual(v(workspaceWrite, [], 'ls', '/home/dev/project/.store'), { route: true });
    assert.deepEqual(v(workspaceWrite, [], 'ls', '/tmp/be-store'), { route: true });
    assert.deepEqual(
      v(
        { ...workspaceWrite!, sandbox: { ...workspaceWrite!.sandbox, excludeSlashTmp: true } },
        [],
        'ls',
        '/tmp/be-store',
      ).route,
      false,
    );
    assert.deepEqual(v({ ...workspaceWrite!, sandbox: { ...workspaceWrite!.sandbox, writableRoots: [storage] } }), {
      route: true,
    });
    assert.match(
      (v({ ...fullAccess!, approvalPolicy: 'untrusted' }) as { reason: string }).reason,
      /untrusted judges commands by their text/,
    );
    assert.match(
      (codexVerdict('ls', undefined, { storage, rules: [], tmpdir: undefined }) as { reason: string }).reason,
      /could not be read/,
    );
    const rules = [
      'prefix_rule(pattern = ["cargo", "publish"], decision = "forbidden")\nprefix_rule(pattern=[["git", "hg"], "push"], decision="prompt")',
    ];
    assert.deepEqual([...ruledPrograms(rules[0]!)].sort(), ['cargo', 'git', 'hg']);
    assert.match((v(fullAccess, rules) as { reason: string }).reason, /rule names cargo/);
    assert.match(
      (v(fullAccess, rules, 'cd x && FOO=1 /usr/bin/git status') as { reason: string }).reason,
      /rule names git/,
    );
    assert.deepEqual(v(fullAccess, rules, 'npm test | tail -5'), { route: true });
    assert.match((v(fullAccess, rules, 'echo $(date)') as { reason: string }).reason, /cannot be told/);
    // Through decideHook: no answer at all (Codex runs the command as written).
    assert.equal(decideHook(event, ctx({ codexSession: () => ({ turn: readOnly, rules: [] }) })).action, 'none');
  });
});

describe('Gemini CLI and Qwen Code payloads recorded from the real clients', () => {
  const recorded = (name: string): Record<string, unknown> =>
    JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
  it("Gemini CLI 0.61 BeforeTool: tool_input with the command wrapped (Gemini CLI merges it over the model's arguments)", () => {
    const d = decideHook(recorded('gemini-0.61-run_shell_command.json'), ctx()) as unknown as {
      agent: string;
      answer: { hookSpecificOutput: Record<string, unknown> };
    };
    assert.equal(d.agent, 'gemini');
    assert.deepEqual(Object.keys(d.answer.hookSpecificOutput), ['hookEventName', 'tool_input']);
    assert.equal((d.answer.hookSpecificOutput.tool_input as { description: string }).description, 'Build');
  });
  it('Qwen Code 0.24.4 PreToolUse: a rewrite with allow and a reason only in yolo mode (allow skips its approval prompt)', () => {
    const e = recorded('qwen-0.24.4-run_shell_command.json');
    const d = decideHook(e, ctx()) as unknown as {
      agent: string;
      answer: { hookSpecificOutput: Record<string, unknown> };
    };
    assert.equal(d.agent, 'qwen');
    assert.deepEqual(Object.keys(d.answer.hookSpecificOutput), [
      'hookEventName',
      'permissionDecision',
      'permissionDecisionReason',
      'updatedInput',
    ]);
    assert.match(
      (decideHook({ ...e, permission_mode: 'default' }, ctx()) as { reason: string }).reason,
      /would ask before this command/,
    );
  });
});
