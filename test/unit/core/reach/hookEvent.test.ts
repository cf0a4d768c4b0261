/**
 * The hook's decision (src/core/reach/hookEvent.ts) on stdin samples of each client,
 * shaped field for field as the issue records them (VS Code's built-in agent, Claude
 * Code, Codex, Gemini CLI): exact answers for terminal commands (the original text wrapped,
 * src/core/reach/rewrite.ts), no answer for what must be left alone, and the original text
 * carried verbatim for any command (fast-check). What the rewritten command does when a real
 * shell runs it is test/unit/core/reach/routing.test.ts.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { decideHook, isRouted, type HookContext, type HookDecision } from '../../../../src/core/reach/hookEvent.js';
import { wrapCommand } from '../../../../src/core/reach/rewrite.js';
import { latestCodexTurn } from '../../../../src/core/reach/codexPolicy.js';
import { routableText } from './hostileCommands.js';

const FIXTURES = path.join(__dirname, 'fixtures');
const sample = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as Record<string, unknown>;
const CLI = `'/opt/be/bin/bounded-evidence'`;
const SPOOL = '/st/evidence/spool/0123456789ab';
const prepared: { command: string; meta: unknown }[] = [];
const ctx = (over: Partial<HookContext> = {}): HookContext => ({
  cli: CLI,
  storage: '/st',
  parses: () => true,
  prepare: (command, meta) => {
    prepared.push({ command, meta });
    return SPOOL;
  },
  ...over,
});
// The test's shell parses everything: the group closes on the command's last line (rewrite.ts `sameLine`).
const wrapped = (command: string, lead?: string): string =>
  wrapCommand(command, { spool: SPOOL, cli: CLI, wholeBytes: 4096, lead, sameLine: true });

describe('hook decision on client samples', () => {
  it('VS Code run_in_terminal: the whole tool input back with the command wrapped (the text verbatim), the spool told the agent and session, no permission decision', () => {
    prepared.length = 0;
    const d = decideHook(sample('vscode-run_in_terminal'), ctx());
    const command = wrapped('node scripts/build-log.js 3000000', ':; ');
    assert.deepEqual(d, {
      action: 'rewrite',
      agent: 'copilot',
      command,
      answer: {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          updatedInput: {
            command,
            explanation: 'Run the build log script',
            goal: 'See why the build fails',
            mode: 'sync',
            isBackground: false,
            timeout: 120000,
          },
        },
      },
    });
    assert.equal(
      command,
      `:; { node scripts/build-log.js 3000000 ; } 8>>'${SPOOL}'/1.$$ 9>>'${SPOOL}'/2 1>&8 2>&9 8>&- 9>&-; ${CLI} keep '${SPOOL}' $? 4096`,
    );
    assert.deepEqual(prepared, [
      {
        command: 'node scripts/build-log.js 3000000',
        meta: {
          agent: 'copilot',
          sessionId: 'b3c1e0d2-5f7a-4c1e-9b0e-0c6f2d1a7e44',
          cwd: (sample('vscode-run_in_terminal') as { cwd?: string }).cwd,
        },
      },
    ]);
  });

  it('Claude Code Bash with --allow: permissionDecision allow and the description kept; quotes and $ untouched', () => {
    const d = decideHook(sample('claude-bash'), ctx({ allow: true }));
    assert.equal(d.action, 'rewrite');
    assert.deepEqual((d as { answer: unknown }).answer, {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: {
          command: wrapped(`grep -n "$PATTERN" build.log | head -5 && echo 'done'`),
          description: 'Search the build log',
        },
      },
    });
  });

  it('Codex Bash (agent named by the hook flag) and Gemini BeforeTool (its own answer shape)', () => {
    prepared.length = 0;
    // Codex honours a rewrite only with permissionDecision allow (codex-rs/hooks/src/engine/output_parser.rs), given when its session policy runs the routed form as the original.
    const fullAccess = latestCodexTurn(readFileSync(path.join(FIXTURES, 'codex-0.171-turn-contexts.jsonl'), 'utf8'));
    const codex = decideHook(
      sample('codex-bash'),
      ctx({ agent: 'codex', codexSession: () => ({ turn: fullAccess, rules: [] }) }),
    );
    assert.deepEqual((codex as { answer: unknown }).answer, {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { command: wrapped('cargo test 2>&1') },
      },
    });
    const gemini = decideHook(sample('gemini-run_shell_command'), ctx());
    assert.deepEqual((gemini as { answer: unknown }).answer, {
      hookSpecificOutput: {
        hookEventName: 'BeforeTool',
        tool_input: {
          command: wrapped('make -j4 2>&1 | tail -n 50'),
          description: 'Build the project',
        },
      },
    });
    assert.deepEqual(
      prepared.map((p) => (p.meta as { agent: string }).agent),
      ['codex', 'gemini'],
    );
    // What Gemini CLI refuses after its hooks (substitutions outside single quotes) stays as written: no spool is made
    // for a command that will never run.
    prepared.length = 0;
    const geminiWith = (command: string): HookDecision =>
      decideHook({ ...(sample('gemini-run_shell_command') as object), tool_input: { command } }, ctx());
    for (const refused of ['diff <(ls a) <(ls b)', 'echo "$(date)"', 'tee >(wc -l)', 'echo `id`'])
      assert.match((geminiWith(refused) as { reason: string }).reason, /Gemini CLI refuses/, refused);
    assert.deepEqual(prepared, []);
    for (const routed of ["echo '$(date)' '<(x)'", 'echo "<(x)"', 'echo \\$\\(x\\)'])
      assert.equal(geminiWith(routed).action, 'rewrite', routed);
  });

  it("routes what changes the shell (cd, export, source, set) now that the command runs in the agent's shell; no time limit of its own", () => {
    for (const command of [
      'cd packages/app',
      'export NODE_ENV=test',
      'cd sub && npm test',
      'source .venv/bin/activate && pytest',
      'set -x; make',
    ]) {
      const d = decideHook({ ...sample('claude-bash'), tool_input: { command } }, ctx());
      assert.equal(d.action, 'rewrite', command);
      assert.equal((d as { command: string }).command, wrapped(command));
    }
    // The agent's timeout stays the agent's: nothing of it reaches the rewritten command.
    const d = decideHook(sample('vscode-run_in_terminal'), ctx()) as { command: string };
    assert.doesNotMatch(d.command, /timeout|120000/);
  });

  it('fail open: a storage that cannot be written routes to the command as written plus one line', () => {
    const d = decideHook(
      sample('claude-bash'),
      ctx({
        prepare: () => {
          throw new Error('the storage is not writable');
        },
      }),
    ) as { command: string };
    assert.equal(
      d.command,
      `{ grep -n "$PATTERN" build.log | head -5 && echo 'done'\n}; __be_s=$?; printf '%s\\n' 'bounded-evidence: evidence not kept (the storage is not writable); the command ran unrouted' >&2; eval "unset __be_s; (exit $__be_s)"`,
    );
  });

  it('leaves alone: other tools, background commands, no storage, routed commands, what does not parse, NUL, junk', () => {
    const none = (event: unknown, c = ctx()): string => {
      const d = decideHook(event, c);
      assert.equal(d.action, 'none', JSON.stringify(d));
      return (d as { reason: string }).reason;
    };
    assert.match(none(sample('vscode-read_file')), /read_file is not routed/);
    // The shim passes an `--agent` line's every event to Node (its client's matcher filters): another tool, nothing.
    for (const agent of ['claude', 'codex', 'gemini', 'droid', 'opencode'])
      none({ ...(sample('claude-bash') as object), tool_name: 'Read' }, ctx({ agent }));
    assert.match(none(sample('vscode-run_in_terminal-background')), /background/);
    assert.match(none(sample('claude-bash-background')), /background/);
    // VS Code 1.139's run_in_terminal runs a server or watcher as mode 'async' (isBackground false): it stays in the terminal.
    const vscodeSample = sample('vscode-run_in_terminal') as { tool_input: Record<string, unknown> };
    assert.match(
      none({ ...vscodeSample, tool_input: { ...vscodeSample.tool_input, mode: 'async' } }),
      /stay in the terminal/,
    );
    assert.equal(
      decideHook({ ...vscodeSample, tool_input: { ...vscodeSample.tool_input, mode: 'sync' } }, ctx()).action,
      'rewrite',
    );
    assert.match(none(sample('vscode-run_in_terminal'), ctx({ storage: undefined })), /no evidence storage/);
    assert.match(none(sample('claude-bash'), ctx({ storage: '' })), /no evidence storage/);
    const routed = decideHook(sample('claude-bash'), ctx()) as { command: string };
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: routed.command } }), /already routed/);
    assert.match(
      none({ ...sample('claude-bash'), tool_input: { command: `node '/x/dist/cli.js' capture --shell 'ls'` } }),
      /already routed/,
    );
    assert.match(
      none({ ...sample('claude-bash'), tool_input: { command: `"$BOUNDED_EVIDENCE_CLI" capture -- ls` } }),
      /already routed/,
    );
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: 'echo a\0b' } }), /NUL/);
    assert.match(
      none(
        { ...sample('claude-bash'), tool_input: { command: 'echo "open' } },
        ctx({ parses: (s) => !s.includes('"open') }),
      ),
      /does not parse on its own/,
    );
    assert.match(
      none(
        { ...sample('claude-bash'), tool_input: { command: 'cat <<EOF' } },
        ctx({ parses: (s) => !s.includes('} 8>>') && !s.endsWith('\n}') }),
      ),
      /inside the group/,
    );
    assert.match(
      none({ ...sample('claude-bash'), tool_input: { command: 'cat <<EOF' } }, ctx({ parses: () => true })),
      /here-document open/,
    );
    // VS Code's terminal in fish or PowerShell: not routed (their syntax differs); bash and zsh are, and Bash tools always are.
    assert.match(
      none(sample('vscode-run_in_terminal'), ctx({ terminalShell: '/usr/bin/fish' })),
      /\(fish\) is not a POSIX shell/,
    );
    assert.match(
      none(sample('vscode-run_in_terminal'), ctx({ terminalShell: '/opt/microsoft/powershell/7/pwsh' })),
      /\(pwsh\) is not a POSIX shell/,
    );
    assert.equal(decideHook(sample('vscode-run_in_terminal'), ctx({ terminalShell: '/bin/zsh' })).action, 'rewrite');
    assert.equal(decideHook(sample('claude-bash'), ctx({ terminalShell: '/usr/bin/fish' })).action, 'rewrite');
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: '   ' } }), /not a command/);
    assert.match(none({ ...sample('claude-bash'), tool_input: 'ls' }), /no tool_input/);
    assert.match(none(null), /not a JSON object/);
    assert.match(none([1, 2]), /not a JSON object/);
    assert.match(none({ hook_event_name: 'PreToolUse' }), /names no tool/);
    // A command that merely mentions the tool is routed: only a leading capture counts as routed.
    assert.equal(isRouted('echo bounded-evidence capture', CLI), false);
    assert.equal(
      isRouted(`ELECTRON_RUN_AS_NODE=1 '/usr/share/code/code' '/ext/dist/cli.js' capture --shell 'ls'`, CLI),
      true,
    );
    assert.equal(isRouted(`bounded-evidence capture -- ls`, CLI), true);
    assert.equal(isRouted(`bounded-evidence list`, CLI), false);
  });

  it('any command text is carried verbatim between "{ " and the group\'s end, never quoted or altered (property)', () => {
    fc.assert(
      fc.property(routableText, (command) => {
        const d = decideHook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }, ctx());
        if (d.action !== 'rewrite') return;
        assert.ok(d.command.startsWith(`{ ${command} ; } 8>>'${SPOOL}'/1.$$ `));
        assert.equal(d.command.length, wrapped(command).length);
      }),
      { numRuns: 300 },
    );
  });

  it('PostToolUse: recorded only when enabled and over the threshold', () => {
    const big = { ...sample('claude-post-read'), tool_response: 'x'.repeat(5000) };
    assert.equal(decideHook(big, ctx()).action, 'none');
    const d = decideHook(big, ctx({ recordPostToolUse: true })) as {
      action: string;
      agent: string;
      sessionId: string;
      tool: string;
      response: string;
    };
    assert.deepEqual(
      { ...d, response: d.response.length },
      {
        action: 'record',
        agent: 'claude',
        sessionId: '4f1d9a0e-77c2-4e0b-a1d3-2a9b8c7d6e5f',
        tool: 'Read',
        response: 5000,
      },
    );
    assert.equal(d.response, 'x'.repeat(5000));
    assert.equal(
      decideHook({ ...big, tool_response: 'x'.repeat(4096) }, ctx({ recordPostToolUse: true })).action,
      'none',
    );
    const structured = decideHook(
      { ...big, tool_response: { content: 'y'.repeat(5000) } },
      ctx({ recordPostToolUse: true }),
    ) as { response: string };
    assert.equal(structured.response, JSON.stringify({ content: 'y'.repeat(5000) }));
  });
});
