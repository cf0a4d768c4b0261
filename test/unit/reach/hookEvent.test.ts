/**
 * The hook's decision (src/core/reach/hookEvent.ts) on stdin samples of each client,
 * shaped field for field as the issue records them (VS Code's built-in agent, Claude
 * Code, Codex, Gemini CLI): exact answers for terminal commands, no answer for what
 * must be left alone, and the quoting proven under /bin/sh for any command (fast-check).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { decideHook, isRouted, MAX_ARGUMENT_BYTES, type HookContext } from '../../../src/core/reach/hookEvent.js';
import { quoteShellWord } from '../../../src/core/reach/shellQuote.js';

const FIXTURES = path.join(__dirname, 'fixtures');
const sample = (name: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as Record<string, unknown>;
const CLI = `'/opt/be/bin/bounded-evidence'`;
const noSpill = (): string => { throw new Error('no spill expected'); };
const ctx = (over: Partial<HookContext> = {}): HookContext => ({ cli: CLI, storage: '/st', spill: noSpill, ...over });

describe('hook decision on client samples', () => {
  it('VS Code run_in_terminal: the whole tool input back with the command routed through capture, no permission decision', () => {
    const d = decideHook(sample('vscode-run_in_terminal'), ctx());
    assert.deepEqual(d, {
      action: 'rewrite', agent: 'copilot',
      command: `${CLI} capture --storage '/st' --hook-agent 'copilot' --hook-session 'b3c1e0d2-5f7a-4c1e-9b0e-0c6f2d1a7e44' --timeout-ms 120000 --shell 'node scripts/build-log.js 3000000'`,
      answer: { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: {
        command: `${CLI} capture --storage '/st' --hook-agent 'copilot' --hook-session 'b3c1e0d2-5f7a-4c1e-9b0e-0c6f2d1a7e44' --timeout-ms 120000 --shell 'node scripts/build-log.js 3000000'`,
        explanation: 'Run the build log script', goal: 'See why the build fails', mode: 'sync', isBackground: false, timeout: 120000,
      } } },
    });
  });

  it('Claude Code Bash with --allow: permissionDecision allow and the description kept; quotes and $ survive', () => {
    const d = decideHook(sample('claude-bash'), ctx({ allow: true }));
    assert.equal(d.action, 'rewrite');
    assert.deepEqual((d as { answer: unknown }).answer, { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: {
      command: `${CLI} capture --storage '/st' --hook-agent 'claude' --hook-session '4f1d9a0e-77c2-4e0b-a1d3-2a9b8c7d6e5f' --shell 'grep -n "$PATTERN" build.log | head -5 && echo '\\''done'\\'''`,
      description: 'Search the build log',
    } } });
  });

  it('Codex Bash (agent named by the hook flag) and Gemini BeforeTool (its own answer shape)', () => {
    const codex = decideHook(sample('codex-bash'), ctx({ agent: 'codex' }));
    assert.deepEqual((codex as { answer: unknown }).answer, { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: {
      command: `${CLI} capture --storage '/st' --hook-agent 'codex' --hook-session '0199a7c4-3b2e-7d10-9f00-5c4b3a291807' --shell 'cargo test 2>&1'`,
    } } });
    const gemini = decideHook(sample('gemini-run_shell_command'), ctx());
    assert.deepEqual((gemini as { answer: unknown }).answer, { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: {
      command: `${CLI} capture --storage '/st' --hook-agent 'gemini' --hook-session '7e0c5b1a-2d4f-4a8e-b9c3-1f2e3d4c5b6a' --shell 'make -j4 2>&1 | tail -n 50'`,
      description: 'Build the project',
    } } });
  });

  it('leaves alone: other tools, background commands, no storage, routed commands, shell-state builtins, NUL, junk', () => {
    const none = (event: unknown, c = ctx()): string => {
      const d = decideHook(event, c);
      assert.equal(d.action, 'none', JSON.stringify(d));
      return (d as { reason: string }).reason;
    };
    assert.match(none(sample('vscode-read_file')), /read_file is not routed/);
    assert.match(none(sample('vscode-run_in_terminal-background')), /background/);
    assert.match(none(sample('claude-bash-background')), /background/);
    // VS Code 1.139's run_in_terminal runs a server or watcher as mode 'async' (isBackground false): capture would block on it.
    const vscodeSample = sample('vscode-run_in_terminal') as { tool_input: Record<string, unknown> };
    assert.match(none({ ...vscodeSample, tool_input: { ...vscodeSample.tool_input, mode: 'async' } }), /stay in the terminal/);
    assert.equal(decideHook({ ...vscodeSample, tool_input: { ...vscodeSample.tool_input, mode: 'sync' } }, ctx()).action, 'rewrite');
    assert.match(none(sample('vscode-run_in_terminal'), ctx({ storage: undefined })), /no evidence storage/);
    assert.match(none(sample('claude-bash'), ctx({ storage: '' })), /no evidence storage/);
    const routed = decideHook(sample('claude-bash'), ctx()) as { command: string };
    const again = { ...sample('claude-bash'), tool_input: { command: routed.command } };
    assert.match(none(again), /already routed/);
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: `node '/x/dist/cli.js' capture --shell 'ls'` } }), /already routed/);
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: `"$BOUNDED_EVIDENCE_CLI" capture -- ls` } }), /already routed/);
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: 'cd packages/app' } }), /changes the shell/);
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: 'export NODE_ENV=test' } }), /changes the shell/);
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: 'echo a\0b' } }), /NUL/);
    // VS Code's terminal in fish or PowerShell: not routed (their quoting differs); bash and zsh are, and Bash tools always are.
    assert.match(none(sample('vscode-run_in_terminal'), ctx({ terminalShell: '/usr/bin/fish' })), /\(fish\) is not a POSIX shell/);
    assert.match(none(sample('vscode-run_in_terminal'), ctx({ terminalShell: '/opt/microsoft/powershell/7/pwsh' })), /\(pwsh\) is not a POSIX shell/);
    assert.equal(decideHook(sample('vscode-run_in_terminal'), ctx({ terminalShell: '/bin/zsh' })).action, 'rewrite');
    assert.equal(decideHook(sample('claude-bash'), ctx({ terminalShell: '/usr/bin/fish' })).action, 'rewrite');
    assert.match(none({ ...sample('claude-bash'), tool_input: { command: '   ' } }), /not a command/);
    assert.match(none({ ...sample('claude-bash'), tool_input: 'ls' }), /no tool_input/);
    assert.match(none(null), /not a JSON object/);
    assert.match(none([1, 2]), /not a JSON object/);
    assert.match(none({ hook_event_name: 'PreToolUse' }), /names no tool/);
    // A command that merely mentions the tool is routed: only a leading capture counts as routed.
    assert.equal(isRouted('echo bounded-evidence capture', CLI), false);
    assert.equal(isRouted(`ELECTRON_RUN_AS_NODE=1 '/usr/share/code/code' '/ext/dist/cli.js' capture --shell 'ls'`, CLI), true);
    assert.equal(isRouted(`bounded-evidence capture -- ls`, CLI), true);
    assert.equal(isRouted(`bounded-evidence list`, CLI), false);
  });

  it('PostToolUse: recorded only when enabled and over the threshold', () => {
    const big = { ...sample('claude-post-read'), tool_response: 'x'.repeat(5000) };
    assert.equal(decideHook(big, ctx()).action, 'none');
    const d = decideHook(big, ctx({ recordPostToolUse: true })) as { action: string; agent: string; sessionId: string; tool: string; response: string };
    assert.deepEqual({ ...d, response: d.response.length }, { action: 'record', agent: 'claude', sessionId: '4f1d9a0e-77c2-4e0b-a1d3-2a9b8c7d6e5f', tool: 'Read', response: 5000 });
    assert.equal(d.response, 'x'.repeat(5000));
    assert.equal(decideHook({ ...big, tool_response: 'x'.repeat(4096) }, ctx({ recordPostToolUse: true })).action, 'none');
    const structured = decideHook({ ...big, tool_response: { content: 'y'.repeat(5000) } }, ctx({ recordPostToolUse: true })) as { response: string };
    assert.equal(structured.response, JSON.stringify({ content: 'y'.repeat(5000) }));
  });
});

describe('hook quoting under /bin/sh', () => {
  let dir: string;
  let argvDump: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-quote-'));
    // Stands in for the command line: prints each argument it receives, NUL-terminated.
    argvDump = path.join(dir, 'bounded-evidence');
    writeFileSync(argvDump, '#!/bin/sh\nfor a do printf \'%s\\0\' "$a"; done\n');
    chmodSync(argvDump, 0o755);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the rewritten command under /bin/sh and returns the arguments the command line received. */
  function argsOf(command: string, session: string, spillDir = dir): { args: Buffer[]; spilled?: string } {
    let spilled: string | undefined;
    const d = decideHook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', session_id: session, tool_input: { command } }, {
      cli: quoteShellWord(argvDump), storage: dir,
      spill: (c) => { spilled = path.join(spillDir, 'cmd.sh'); writeFileSync(spilled, c); return spilled; },
    });
    assert.equal(d.action, 'rewrite');
    const out = execFileSync('/bin/sh', ['-c', (d as { command: string }).command], { maxBuffer: 64 * 1024 * 1024 });
    const args: Buffer[] = [];
    let start = 0;
    for (let i = 0; i < out.length; i++) if (out[i] === 0) { args.push(out.subarray(start, i)); start = i + 1; }
    return { args, ...(spilled ? { spilled } : {}) };
  }

  /** The value after `flag` in the received arguments. */
  const valueOf = (args: Buffer[], flag: string): Buffer => args[args.findIndex((a) => a.toString() === flag) + 1]!;

  it('any command and session id arrive byte-exact as single arguments (property)', () => {
    const hostile = fc.constantFrom(`'`, `"`, '$(id)', '`id`', '\n', '\\', '$HOME', '<<EOF\nx\nEOF\n', ';', '&&', '|', '*', '~', '!', '#', '{a,b}', '\t', ' ', 'é', '🙂', '\u202e', '\r');
    const piece = fc.oneof(fc.string({ unit: 'grapheme' }), hostile, fc.string({ unit: 'binary' }));
    const text = fc.array(piece, { maxLength: 12 }).map((p) => p.join('')).filter((s) => s.trim() !== '' && !s.includes('\0') && !/^\s*(cd|pushd|popd|export|unset|source|\.|alias|unalias|set|shopt|exec|exit|logout|eval|ulimit|umask|trap|conda|nvm|workon|deactivate)(\s|$)/.test(s) && !/^\s*\S*\s*\S*\s*'?[^'\s]*(bounded-evidence|cli\.js)'?\s+capture/.test(s));
    fc.assert(fc.property(text, fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => !s.includes('\0')), (command, session) => {
      const { args } = argsOf(command, session);
      assert.equal(args[0]!.toString(), 'capture');
      // Lone surrogates have no UTF-8 form: the event's JSON text would carry U+FFFD, so compare with what UTF-8 can carry.
      assert.deepEqual(valueOf(args, '--shell'), Buffer.from(command, 'utf8'));
      assert.deepEqual(valueOf(args, '--hook-session'), Buffer.from(session, 'utf8'));
    }), { numRuns: 150 });
  });

  it('a 100 KB command: ASCII with quotes as an argument, 4-byte characters through a private file, both byte-exact', () => {
    const ascii = `printf '%s' "${'a\'b$(x)`y`'.repeat(3000)}"`.slice(0, 20_000);
    const viaArg = argsOf(ascii, 's');
    assert.equal(viaArg.spilled, undefined);
    assert.deepEqual(valueOf(viaArg.args, '--shell'), Buffer.from(ascii));
    const wide = `echo ${'🙂'.repeat(25_000)}`;
    assert.ok(Buffer.byteLength(wide) > 100_000 && Buffer.byteLength(quoteShellWord(wide)) > MAX_ARGUMENT_BYTES);
    const viaFile = argsOf(wide, 's');
    assert.equal(valueOf(viaFile.args, '--shell-file').toString(), viaFile.spilled);
    assert.equal(readFileSync(viaFile.spilled!, 'utf8'), wide);
    const quotes = `echo ${"'".repeat(100_000)}`;
    const q = argsOf(quotes, 's');
    assert.equal(readFileSync(valueOf(q.args, '--shell-file').toString(), 'utf8'), quotes);
  });
});
