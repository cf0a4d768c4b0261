/**
 * A routed command is the user's command (docs/contracts.md §6.1): every row of the issue's
 * behaviour table run by a real bash, zsh and dash, once as written and once routed (the
 * hook's real decision and spool, src/cli/hook.ts; `keep` run by the real command line), in
 * one shell process per script, so state between commands (`cd`, `export`, functions,
 * background jobs) is what it would be in an agent's terminal. The two runs must print the
 * same bytes on stdout and stderr and end with the same status; a large output is the one
 * thing that differs, and the store then holds its exact bytes. A property test (fast-check)
 * does the same for hostile command texts.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { parsesIn, prepareSpool } from '../../../../src/cli/hook.js';
import { openSession } from '../../../../src/cli/session.js';
import { decideHook, unkeptCommand } from '../../../../src/core/reach/hookEvent.js';
import { isWrapped, routable, unwrappableReason, wrapCommand } from '../../../../src/core/reach/rewrite.js';
import { quoteShellWord } from '../../../../src/core/reach/shellQuote.js';
import { shimScript } from '../../../../src/core/reach/shim.js';

const ROOT = path.resolve(__dirname, '../../../..');
/** The command line as the wrapper starts it: this Node with tsx, on the sources (the unit suite runs before the build). */
const CLI = [
  process.execPath,
  '--import',
  pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href,
  path.join(ROOT, 'src/cli/main.ts'),
]
  .map(quoteShellWord)
  .join(' ');
// All three must be there (scripts/setup-tools.sh installs zsh): a missing shell fails its rows, it is never skipped.
const SHELLS = ['bash', 'zsh', 'dash'];

interface Ran {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly status: number | null;
}

/** Runs `script` in one `shell` process (as an agent's terminal or Bash tool would: `-c`, the folder `cwd`). */
function runIn(shell: string, script: string, cwd: string, env: NodeJS.ProcessEnv = {}): Ran {
  const r = spawnSync(shell, ['-c', script], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, ...env },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 60_000,
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

describe("routed commands are the user's commands (real shells)", function () {
  this.timeout(120_000);
  let dir: string;
  let storage: string;
  let work: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-route-'));
    storage = path.join(dir, 'storage');
    mkdirSync(path.join(storage, 'evidence'), { recursive: true });
    work = path.join(dir, 'work');
    mkdirSync(work);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The hook's rewrite of `command` for `shell` (asserting it routes), or the unrouted reason. */
  function route(shell: string, command: string, over: { storage?: string; wholeBytes?: number } = {}): string {
    const store = over.storage ?? storage;
    const d = decideHook(
      { hook_event_name: 'PreToolUse', tool_name: 'Bash', session_id: 'sess-1', cwd: work, tool_input: { command } },
      {
        cli: CLI,
        storage: store,
        largeResultBytes: over.wholeBytes ?? 4096,
        parses: (s) => parsesIn(shell, s),
        prepare: (c, meta) => prepareSpool(store, c, meta),
      },
    );
    assert.equal(d.action, 'rewrite', JSON.stringify(d));
    return (d as { command: string }).command;
  }

  /** Steps: plain strings run as written; `{ routed }` is routed in the second run. */
  type Step = string | { routed: string };
  function both(shell: string, steps: readonly Step[], fresh = true): { plain: Ran; routed: Ran } {
    const cwd = path.join(work, `${shell}-${Math.random().toString(36).slice(2)}`);
    mkdirSync(cwd);
    const plainCwd = path.join(cwd, 'plain');
    const routedCwd = path.join(cwd, 'routed');
    mkdirSync(plainCwd);
    mkdirSync(routedCwd);
    const plain = runIn(shell, steps.map((s) => (typeof s === 'string' ? s : s.routed)).join('\n'), plainCwd);
    const routed = runIn(
      shell,
      steps.map((s) => (typeof s === 'string' ? s : route(shell, s.routed))).join('\n'),
      routedCwd,
    );
    void fresh;
    return { plain, routed };
  }

  /** The same bytes on both streams and the same status; paths of the two working folders made equal. */
  function assertSame(r: { plain: Ran; routed: Ran }, what: string): void {
    const norm = (b: Buffer): string => b.toString('utf8').replace(/\/(plain|routed)\b/g, '/<cwd>');
    assert.equal(norm(r.routed.stdout), norm(r.plain.stdout), `${what}: stdout`);
    assert.equal(norm(r.routed.stderr), norm(r.plain.stderr), `${what}: stderr`);
    assert.equal(r.routed.status, r.plain.status, `${what}: status`);
  }

  const spools = (): string[] =>
    existsSync(path.join(storage, 'evidence', 'spool')) ? readdirSync(path.join(storage, 'evidence', 'spool')) : [];
  /** Small outputs are recorded by a `keep --quiet` in the background: wait until every spool is taken. */
  async function spoolsTaken(): Promise<void> {
    // A bound on waiting, not a measurement: each `keep` is a Node start, slow on a loaded machine.
    for (const end = Date.now() + 90_000; spools().length > 0 && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(spools(), []);
  }

  for (const shell of SHELLS) {
    describe(shell, () => {
      it('cd and export stick for the next command, as unrouted; status and small outputs byte-identical and kept; no spool left', async () => {
        const r = both(shell, [
          { routed: 'mkdir -p sub && cd sub && pwd' },
          'pwd',
          { routed: 'true && export X=1' },
          'echo "X=$X"',
          { routed: "printf 'hello\\n'" },
          { routed: "sh -c 'exit 7'" },
          'echo "status=$?"',
          { routed: 'printf out; printf err >&2; false' },
          'echo " status=$?"',
          { routed: 'cd .. && export Y=2 && echo "$X$Y"' },
          'pwd; echo "Y=$Y"',
        ]);
        assertSame(r, 'state');
        assert.match(r.plain.stdout.toString(), /\/sub\n.*\/sub\nX=1\nhello\nstatus=7\nout status=1\n12\n/s);
        await spoolsTaken();
        // Each small output is evidence too: its run holds the exact bytes the command printed.
        const session = await openSession(storage);
        const hello = (await session.runs.listRuns()).filter((x) => (x.label ?? '').includes("printf 'hello"));
        assert.ok(hello.length >= 1);
        const [call] = await session.runs.report(hello[0]!.runId);
        const out = call!.attachments.find((a) => a.name === 'stdout')!;
        assert.equal(out.sizeBytes, 6);
        assert.equal(out.sha256, createHash('sha256').update('hello\n').digest('hex'));
      });

      it('functions and variables defined earlier, background jobs that outlive the command, and wait', () => {
        const r = both(shell, [
          'greet() { echo "hi $1"; }',
          'V=outer',
          { routed: 'greet there; echo "$V"' },
          { routed: '(sleep 0.4; echo late > late.txt) & echo started' },
          'sleep 0.8; cat late.txt',
          { routed: 'sleep 0.2 & echo bg' },
          'wait; echo waited',
        ]);
        assertSame(r, 'jobs');
        assert.equal(r.plain.stdout.toString(), 'hi there\nouter\nstarted\nlate\nbg\nwaited\n');
      });

      it("a large output: the model gets the bounded observation, the store the exact bytes, the status is the command's", async () => {
        const big =
          'i=0; while [ $i -lt 3000 ]; do echo "line $i of the build"; i=$((i+1)); done; echo "ERROR: the one error" >&2; (exit 3)';
        const plain = runIn(shell, big, work);
        const routed = runIn(shell, `${route(shell, big)}\necho "after=$?"`, work);
        assert.equal(plain.status, 3);
        assert.equal(routed.status, 0);
        const text = routed.stdout.toString();
        assert.ok(Buffer.byteLength(text) < 4096, text);
        assert.match(text, /exit code 3\n/);
        assert.match(text, /after=3\n$/);
        const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(text)![1]!;
        const session = await openSession(storage);
        const run = (await session.runs.listRuns()).find(
          (x) => x.source?.kind === 'hook' && (x.label ?? '').includes('line $i'),
        )!;
        assert.deepEqual(run.source, { kind: 'hook', agent: 'claude', sessionId: 'sess-1' });
        const head = await session.runs.readToolOutput({ handle, bytes: { start: 0, end: 30 } });
        assert.equal(head.content, plain.stdout.subarray(0, 30).toString());
        const found = await session.runs.readToolOutput({ handle, pattern: 'line 2999 of' });
        assert.equal(found.matches?.[0]?.line_number, 3000);
        // The exact bytes and their digest, as the command wrote them.
        const attachments = (await session.runs.report(run.runId))[0]!.attachments;
        const stdout = attachments.find((a) => a.name === 'stdout')!;
        assert.equal(stdout.sizeBytes, plain.stdout.length);
        assert.equal(stdout.sha256, createHash('sha256').update(plain.stdout).digest('hex'));
        const stderr = attachments.find((a) => a.name === 'stderr')!;
        assert.equal(stderr.sizeBytes, Buffer.byteLength('ERROR: the one error\n'));
        await spoolsTaken();
      });

      it("fail open: a file in the storage's way, or no storage folder: the command runs as written, one line says evidence was not kept", () => {
        const blocked = path.join(dir, `blocked-${shell}`);
        mkdirSync(blocked);
        writeFileSync(path.join(blocked, 'evidence'), 'not a folder');
        const fileStore = path.join(dir, `file-${shell}`);
        writeFileSync(fileStore, 'a file, not a folder');
        const missing = path.join(dir, `missing-${shell}`);
        for (const store of [blocked, missing, fileStore]) {
          const cmd = 'printf "hello\\n"; cd /; exit_code=5; (exit $exit_code)';
          const plain = runIn(shell, `${cmd}\necho "s=$? $(pwd)"`, work);
          const routed = runIn(shell, `${route(shell, cmd, { storage: store })}\necho "s=$? $(pwd)"`, work);
          assert.equal(routed.stdout.toString(), plain.stdout.toString());
          assert.equal(plain.stdout.toString(), 'hello\ns=5 /\n');
          assert.equal(
            routed.stderr.toString(),
            `bounded-evidence: evidence not kept (${store === missing ? 'the storage folder is missing' : "a file is in the storage's way"}); the command ran unrouted\n`,
          );
        }
        assert.equal(existsSync(path.join(missing, 'evidence')), false);
      });
    });
  }

  it('bash syntax, options and builtins behave as in bash (routed in bash)', () => {
    const r = both('bash', [
      {
        routed: 'echo {1..3}; [[ a == a ]] && echo dbl; set -o pipefail; false | true; echo "pipe=$?"; set +o pipefail',
      },
      { routed: 'cat <(echo procsub); echo $\'a\\tb\'; echo -e \'x\\ty\'; read -t 1 v <<< "here"; echo "$v"' },
      { routed: 'shopt -s nullglob; echo none*; shopt -u nullglob' },
      'echo end',
    ]);
    assertSame(r, 'bash syntax');
    assert.equal(r.plain.stdout.toString(), '1 2 3\ndbl\npipe=1\nprocsub\na\tb\nx\ty\nhere\n\nend\n');
  });

  it('aliases expand in a routed command: bash with expand_aliases, zsh from its rc file as in a terminal', () => {
    const r = both('bash', ['shopt -s expand_aliases; alias ll="echo aliased"', { routed: 'll one' }]);
    assertSame(r, 'bash alias');
    assert.equal(r.plain.stdout.toString(), 'aliased one\n');
    const zdot = path.join(dir, 'zdot');
    mkdirSync(zdot, { recursive: true });
    writeFileSync(path.join(zdot, '.zshrc'), 'alias ll="echo aliased"\nmyfn() { echo "fn $1" }\n');
    const cmd = 'll two; myfn three';
    const zsh = (script: string): Ran => {
      const z = spawnSync('zsh', ['-i', '-c', script], {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: work, ZDOTDIR: zdot },
        timeout: 30_000,
      });
      return { stdout: z.stdout, stderr: z.stderr, status: z.status };
    };
    const plain = zsh(cmd);
    const routed = zsh(route('zsh', cmd));
    assert.equal(plain.stdout.toString(), 'aliased two\nfn three\n');
    assert.equal(routed.stdout.toString(), plain.stdout.toString());
    assert.equal(routed.status, plain.status);
  });

  it('what is left unrouted, so it runs exactly as written: breaking out of the group, open here-documents, a final backslash, exec/exit, errexit, NUL', () => {
    const none = (command: string, shell = 'bash'): string => {
      const d = decideHook(
        { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } },
        {
          cli: CLI,
          storage,
          parses: (s) => parsesIn(shell, s),
          prepare: () => {
            throw new Error('must not prepare');
          },
        },
      );
      assert.equal(d.action, 'none', command);
      return (d as { reason: string }).reason;
    };
    assert.match(none('true; } ; echo pwned; {'), /does not parse on its own/);
    assert.match(none('echo x\n}\necho y'), /does not parse on its own/);
    assert.match(none('cat <<EOF\nbody'), /here-document open/);
    // Open to the end on its only line: bash would number a later line's messages past it.
    assert.match(none('<< false | 🙂'), /here-document open/);
    assert.match(none('cat <<-EOF'), /here-document open/);
    assert.equal(routable('cat <<EOF\nhi\nEOF', '{ cat <<EOF\nhi\nEOF\n}', (s) => parsesIn('bash', s)).ok, true);
    assert.match(none('echo "open'), /does not parse/);
    assert.match(none('echo a \\'), /line continuation/);
    assert.match(none('exec bash'), /ends the shell/);
    assert.match(none('exit 3'), /ends the shell/);
    assert.match(none('make || exit 1'), /ends the shell/);
    assert.match(none('if true; then exit; fi'), /ends the shell/);
    assert.equal(unwrappableReason('(exit 3); sh -c "exit 7"; echo exit'), undefined);
    assert.match(none('set -euo pipefail; make'), /errexit/);
    assert.match(none('set -o errexit\nmake'), /errexit/);
    assert.match(none('echo a\0b'), /NUL/);
    assert.equal(unwrappableReason('reset -e'), undefined);
    assert.equal(unwrappableReason('echo a\\\\'), undefined);
    // Already wrapped (a second hook on the same command): left as it is.
    const wrapped = wrapCommand('ls', { spool: '/s/evidence/spool/abc', cli: CLI, wholeBytes: 4096 });
    assert.ok(isWrapped(wrapped));
    assert.match(none(wrapped), /already routed/);
    // The fail-open form carries no path and keeps the status.
    const unkept = unkeptCommand('exit_code=4; (exit $exit_code)', "the storage's disk is full");
    const r = runIn('bash', `${unkept}\necho "s=$?"`, work);
    assert.equal(r.stdout.toString(), 's=4\n');
    assert.equal(
      r.stderr.toString(),
      "bounded-evidence: evidence not kept (the storage's disk is full); the command ran unrouted\n",
    );
  });

  it('a small output of any bytes (invalid UTF-8, NUL, no final newline) comes back byte-identical; just over the limit it is kept', async () => {
    const bytes = "printf '\\377\\000a\\r\\nb'; printf '\\033[31mred' >&2";
    const r = both('bash', [{ routed: bytes }]);
    assertSame(r, 'bytes');
    assert.deepEqual(r.plain.stdout, Buffer.from([0xff, 0x00, 0x61, 0x0d, 0x0a, 0x62]));
    // 4,096 bytes in all: whole. 4,097: the observation.
    const exact = runIn(
      'bash',
      route('bash', 'head -c 4000 /dev/zero | tr "\\0" x; head -c 96 /dev/zero | tr "\\0" y >&2'),
      work,
    );
    assert.equal(exact.stdout.length + exact.stderr.length, 4096);
    assert.equal(exact.stdout.toString(), 'x'.repeat(4000));
    const over = runIn(
      'bash',
      route('bash', 'head -c 4000 /dev/zero | tr "\\0" x; head -c 97 /dev/zero | tr "\\0" y >&2'),
      work,
    );
    assert.match(over.stdout.toString(), /"handle":"out_[a-z2-7]{26}"/);
    assert.equal(over.stderr.length, 0);
  });

  it("run through eval inside bash -c, as Claude Code runs a command: bash's line numbers are the command's", () => {
    // bash numbers eval'd lines after the whole eval'd text's line count: one more line would shift every "line N".
    const asClaudeCode = (c: string): Ran => runIn('bash', `eval ${quoteShellWord(c)} < /dev/null\necho "s=$?"`, work);
    for (const command of [
      'nosuch_cmd_x',
      'echo "$LINENO"; nosuch_cmd_x',
      'true\nnosuch_cmd_x\necho "at $LINENO"',
      'if true; then\n  nosuch_cmd_x\nfi',
      'cd /nonexistent-folder',
    ]) {
      const routed = route('bash', command);
      assert.equal(routed.split('\n').length, command.split('\n').length, routed);
      const plain = asClaudeCode(command);
      const r = asClaudeCode(routed);
      assert.match(plain.stderr.toString(), /line \d+:/, command);
      assert.deepEqual([r.stdout.toString(), r.stderr.toString()], [plain.stdout.toString(), plain.stderr.toString()]);
    }
    // Where the group must close on its own line (a trailing comment), the command is still routed (and run: its spool
    // is taken).
    const commented = route('bash', 'echo hi # why');
    assert.match(commented, /# why\n\} 8>>/);
    assert.equal(runIn('bash', commented, work).stdout.toString(), 'hi\n');
  });

  it('any command text: routed or left alone, it prints the same bytes and status as unrouted (property, bash)', function () {
    // Two shells per run, sixty runs: more than the suite's bound on a loaded machine.
    this.timeout(300_000);
    const hostile = fc.constantFrom(
      `'`,
      `"`,
      '$(echo sub)',
      '`echo tick`',
      '\n',
      '\\\\',
      '$HOME',
      ';',
      '&&',
      '||',
      '|',
      '*',
      '~',
      '#',
      '{a,b}',
      '{',
      '}',
      '\t',
      ' ',
      'é',
      '🙂',
      '\u202e',
      'echo',
      'printf %s',
      '>&2',
      'x=1',
      '(',
      ')',
      'true',
      'false',
      '<<',
      'EOF',
    );
    const text = fc
      .array(hostile, { minLength: 1, maxLength: 10 })
      .map((p) => p.join(' '))
      .filter((s) => !/\bexit\b|\bexec\b/.test(s));
    const decide = (command: string): ReturnType<typeof decideHook> =>
      decideHook(
        { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } },
        {
          cli: CLI,
          storage,
          parses: (s) => parsesIn('bash', s),
          prepare: (c, meta) => prepareSpool(storage, c, meta),
        },
      );
    const same = (command: string, d: ReturnType<typeof decideHook>): void => {
      const plain = runIn('bash', `${command}\necho "s=$?"`, work);
      const routed = runIn('bash', `${d.action === 'rewrite' ? d.command : command}\necho "s=$?"`, work);
      assert.deepEqual(routed.stdout, plain.stdout, command);
      // The members of a pipeline write their errors at once, in any order: compared as sorted lines. Line numbers
      // included: the wrapper opens its group on the command's own first line, so bash's "line N:" stays the user's.
      const errs = (b: Buffer): string[] =>
        b
          .toString()
          .split(/(?<=\n)|(?=bash:)/)
          .filter((l) => l !== '')
          .sort();
      assert.deepEqual(errs(routed.stderr), errs(plain.stderr), command);
      assert.equal(routed.status, plain.status, command);
    };
    // Any text, routed or left alone.
    fc.assert(
      fc.property(text, (command) => same(command, decide(command))),
      { numRuns: 40 },
    );
    // Texts the hook routes, a fixed number of runs: a count of routed texts among random
    // ones would fall short by chance.
    fc.assert(
      fc.property(text, (command) => {
        const d = decide(command);
        fc.pre(d.action === 'rewrite');
        same(command, d);
      }),
      { numRuns: 20 },
    );
  });
});

describe("routed through the shim (VS Code's terminals): a small output needs no Node", function () {
  this.timeout(120_000);
  it("small: the bytes back from sh at once, recorded in the background; large: the observation; the status is the command's either way", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'be-shim-route-'));
    try {
      const storage = path.join(dir, 'storage');
      mkdirSync(storage);
      // The shim as the extension writes it; its "node" runs the sources through tsx.
      const node = path.join(dir, 'node');
      writeFileSync(
        node,
        `#!/bin/sh\nexec ${quoteShellWord(process.execPath)} --import ${quoteShellWord(pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href)} "$@"\n`,
        { mode: 0o755 },
      );
      const shim = path.join(dir, 'bounded-evidence');
      writeFileSync(
        shim,
        shimScript({
          node,
          electron: false,
          cli: path.join(ROOT, 'src/cli/main.ts'),
          extensionsDir: dir,
          folderPrefix: 'x-',
          home: dir,
        }),
        { mode: 0o755 },
      );
      const route = (command: string): string => {
        const d = decideHook(
          {
            hook_event_name: 'PreToolUse',
            tool_name: 'run_in_terminal',
            session_id: 'vs-1',
            cwd: dir,
            tool_input: { command },
          },
          {
            cli: quoteShellWord(shim),
            storage,
            terminalStorage: storage,
            parses: (x) => parsesIn('bash', x),
            prepare: (c, meta) => prepareSpool(storage, c, meta),
            writeRun: (spool, script) => writeFileSync(path.join(spool, 'run'), script, { mode: 0o600 }),
          },
        );
        assert.equal(d.action, 'rewrite');
        return (d as { command: string }).command;
      };
      const t0 = Date.now();
      const small = runIn('bash', `${route("printf 'hi\\n'; printf 'e' >&2; (exit 4)")}\necho "s=$?"`, dir, {
        BOUNDED_EVIDENCE_STORAGE: storage,
      });
      const smallMs = Date.now() - t0;
      assert.equal(small.stdout.toString(), 'hi\ns=4\n');
      assert.equal(small.stderr.toString(), 'e');
      // The terminal's one line: the wrapped command sourced from the spool through BOUNDED_EVIDENCE_STORAGE (set in every
      // VS Code terminal), short enough for VS Code to strip its echo; in the same shell, so `cd` sticks.
      const viaVar = route('cd /; printf v');
      assert.match(viaVar, /^\. "\$BOUNDED_EVIDENCE_STORAGE\/evidence\/spool\/[0-9a-f]{12}\/run"$/);
      const sourced = runIn('bash', `${viaVar}\necho " $? $(pwd)"`, dir, { BOUNDED_EVIDENCE_STORAGE: storage });
      assert.equal(sourced.stdout.toString(), 'v 0 /\n');
      const large = runIn('bash', `${route('seq 1 5000; (exit 2)')}\necho "s=$?"`, dir, {
        BOUNDED_EVIDENCE_STORAGE: storage,
      });
      assert.match(
        large.stdout.toString(),
        /^\$ seq 1 5000; \(exit 2\)\nexit code 2\nstdout: 23893 bytes, 5000 lines, handle out_[a-z2-7]{26}\. Preview:\n/,
      );
      assert.match(large.stdout.toString(), /\ns=2\n$/);
      // The small one is recorded by the background keep: wait for both runs.
      const spools = path.join(storage, 'evidence', 'spool');
      for (const end = Date.now() + 90_000; readdirSync(spools).length > 0 && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(readdirSync(spools), []);
      const runs = await (await openSession(storage)).runs.listRuns();
      assert.equal(runs.length, 3);
      assert.ok(
        runs.every((r) => r.source?.kind === 'hook' && r.source.agent === 'copilot' && r.source.sessionId === 'vs-1'),
      );
      console.log(
        `      small routed command through the shim (sh only, tsx recording in the background): ${smallMs} ms`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a spool whose shell ended mid-command', function () {
  this.timeout(60_000);
  it('is recorded by the next keep as a cancelled call with every byte it holds, then removed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'be-orphan-'));
    try {
      mkdirSync(dir + '/evidence', { recursive: true });
      const old = prepareSpool(dir, 'make all', { agent: 'claude', sessionId: 'killed', cwd: dir });
      writeFileSync(path.join(old, '1'), 'half of the build\n');
      const past = new Date(Date.now() - 2 * 86_400_000);
      for (const f of ['1', '2', 'command', 'meta.json']) utimesSync(path.join(old, f), past, past);
      const fresh = prepareSpool(dir, 'echo now', { agent: 'claude', sessionId: 'live', cwd: dir });
      writeFileSync(path.join(fresh, '1'), 'now\n');
      const r = runIn('bash', `${CLI} keep ${quoteShellWord(fresh)} 0 4096`, dir);
      assert.equal(r.stdout.toString(), 'now\n');
      assert.deepEqual(readdirSync(path.join(dir, 'evidence', 'spool')), []);
      const session = await openSession(dir);
      const runs = await session.runs.listRuns();
      const orphan = runs.find((x) => x.source?.kind === 'hook' && x.source.sessionId === 'killed')!;
      assert.equal(orphan.status, 'cancelled');
      const [call] = await session.runs.report(orphan.runId);
      const out = call!.attachments.find((a) => a.name === 'stdout')!;
      assert.equal(out.sha256, createHash('sha256').update('half of the build\n').digest('hex'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the spool a hook prepares', () => {
  it('is private, holds the command and the routing facts, and is refused outside a storage', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'be-spool-'));
    try {
      mkdirSync(path.join(dir, 'evidence'));
      const spool = prepareSpool(dir, 'echo hi', { agent: 'claude', sessionId: 's', cwd: '/w' });
      assert.equal(path.dirname(spool), path.join(dir, 'evidence', 'spool'));
      assert.equal(readFileSync(path.join(spool, 'command'), 'utf8'), 'echo hi');
      const meta = JSON.parse(readFileSync(path.join(spool, 'meta.json'), 'utf8')) as Record<string, unknown>;
      assert.deepEqual(
        { ...meta, routedAt: typeof meta.routedAt },
        { agent: 'claude', sessionId: 's', cwd: '/w', routedAt: 'string' },
      );
      assert.deepEqual(readdirSync(spool).sort(), ['2', 'command', 'meta.json']);
      assert.equal(statSync(spool).mode & 0o777, 0o700);
      assert.equal(statSync(path.join(spool, 'command')).mode & 0o777, 0o600);
      assert.throws(
        () => prepareSpool(path.join(dir, 'nope'), 'x', { agent: 'a', sessionId: undefined, cwd: undefined }),
        /the storage folder is missing/,
      );
      // A storage folder without its evidence folder yet (never opened by the editor): made.
      const bare = path.join(dir, 'bare');
      mkdirSync(bare);
      assert.ok(
        prepareSpool(bare, 'x', { agent: 'a', sessionId: undefined, cwd: undefined }).startsWith(
          path.join(bare, 'evidence', 'spool'),
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
