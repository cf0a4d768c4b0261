/**
 * The shim (src/core/reach/shim.sh, filled in by shim.ts) run by /bin/sh: arguments pass through untouched,
 * paths with quotes and spaces are safe, a missing dist/cli.js falls back to the newest
 * installed copy, and Electron is started as Node with the variable's old value kept.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { givenBackWhole, SPOOL_STDERR, SPOOL_STDOUT } from '../../../../src/core/reach/rewrite.js';
import { quoteShellWord } from '../../../../src/core/reach/shellQuote.js';
import { shimScript } from '../../../../src/core/reach/shim.js';

describe('command line shim', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "be shim 'q' "));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in cli.js printing what it was started with. */
  function fakeCli(at: string, tag: string): string {
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(
      at,
      `process.stdout.write(JSON.stringify({ tag: ${JSON.stringify(tag)}, args: process.argv.slice(2), home: process.env.BOUNDED_EVIDENCE_HOME, eran: process.env.ELECTRON_RUN_AS_NODE ?? null, was: process.env.BOUNDED_EVIDENCE_ELECTRON_WAS ?? null }))`,
    );
    return at;
  }

  function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
    const shim = path.join(dir, 'bin', 'bounded-evidence');
    mkdirSync(path.dirname(shim), { recursive: true });
    writeFileSync(shim, script);
    chmodSync(shim, 0o755);
    return JSON.parse(execFileSync(shim, args, { env, encoding: 'utf8' })) as Record<string, unknown>;
  }

  it('runs the recorded cli.js with the recorded node, arguments byte-exact, BOUNDED_EVIDENCE_HOME exported', () => {
    const exts = path.join(dir, 'extensions');
    const cli = fakeCli(path.join(exts, 'bounded-evidence.bounded-evidence-0.1.0', 'dist', 'cli.js'), 'current');
    const script = shimScript({
      node: process.execPath,
      electron: false,
      cli,
      extensionsDir: exts,
      folderPrefix: 'bounded-evidence.bounded-evidence-',
      home: dir,
    });
    const args = ['capture', '--shell', `echo "it's" $(id) \`x\` \n done`, '', 'é🙂'];
    assert.deepEqual(run(script, args), { tag: 'current', args, home: dir, eran: null, was: null });
  });

  it('falls back to the newest installed copy when the recorded one is gone, and to node on PATH', () => {
    const exts = path.join(dir, 'extensions');
    fakeCli(path.join(exts, 'bounded-evidence.bounded-evidence-0.1.0', 'dist', 'cli.js'), 'old');
    fakeCli(path.join(exts, 'bounded-evidence.bounded-evidence-0.2.0', 'dist', 'cli.js'), 'new');
    fakeCli(path.join(exts, 'other.ext-9.9.9', 'dist', 'cli.js'), 'other');
    const script = shimScript({
      node: path.join(dir, 'gone-node'),
      electron: false,
      cli: path.join(exts, 'gone', 'dist', 'cli.js'),
      extensionsDir: exts,
      folderPrefix: 'bounded-evidence.bounded-evidence-',
      home: dir,
    });
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    assert.equal(run(script, ['list'], env).tag, 'new');
  });

  it("says in one line what it needs when the editor's Node is gone and no node is on PATH", () => {
    const cli = fakeCli(path.join(dir, 'dist', 'cli.js'), 'x');
    const script = shimScript({
      node: path.join(dir, 'gone-node'),
      electron: false,
      cli,
      extensionsDir: dir,
      folderPrefix: 'x-',
      home: dir,
    });
    const shim = path.join(dir, 'bin', 'bounded-evidence');
    mkdirSync(path.dirname(shim), { recursive: true });
    writeFileSync(shim, script);
    chmodSync(shim, 0o755);
    const r = spawnSync('/bin/sh', [shim, 'list'], { env: { PATH: path.join(dir, 'no-such-bin') }, encoding: 'utf8' });
    assert.deepEqual(
      [r.status, r.stdout, r.stderr],
      [
        127,
        '',
        "bounded-evidence needs Node 22.14 or newer (none found: the editor's Node is gone and no node is on PATH)\n",
      ],
    );
  });

  it("starts Electron as Node and hands the command line the variable's previous value", () => {
    const cli = fakeCli(path.join(dir, 'dist', 'cli.js'), 'e');
    // A stand-in "Electron": refuses to run unless ELECTRON_RUN_AS_NODE=1, then runs as node.
    const electron = path.join(dir, 'code');
    writeFileSync(
      electron,
      `#!/bin/sh\n[ "$ELECTRON_RUN_AS_NODE" = 1 ] || { echo not-as-node; exit 9; }\nexec ${JSON.stringify(process.execPath)} "$@"\n`,
    );
    chmodSync(electron, 0o755);
    const script = shimScript({
      node: electron,
      electron: true,
      cli,
      extensionsDir: dir,
      folderPrefix: 'x-',
      home: dir,
    });
    const { ELECTRON_RUN_AS_NODE: _drop, ...clean } = process.env;
    assert.deepEqual(run(script, ['a'], clean), { tag: 'e', args: ['a'], home: dir, eran: '1', was: '' });
    assert.equal(run(script, ['a'], { ...clean, ELECTRON_RUN_AS_NODE: 'yes' }).was, 'yes');
  });

  it('hook: starts dist/hook.js beside cli.js; an event naming no terminal tool is answered by the shell alone (no Node), others reach it byte-exact', () => {
    const cli = fakeCli(path.join(dir, 'dist', 'cli.js'), 'cli');
    // The stand-in hook.js echoes its arguments and the stdin it was given.
    writeFileSync(
      path.join(dir, 'dist', 'hook.js'),
      'let s = ""; process.stdin.on("data", (d) => { s += d; }).on("end", () => process.stdout.write(JSON.stringify({ tag: "hook", args: process.argv.slice(2), stdin: s })));',
    );
    // A "node" that leaves a mark each time it starts: the shell-only answer must leave none.
    const marks = path.join(dir, 'node-starts');
    const node = path.join(dir, 'node');
    writeFileSync(
      node,
      `#!/bin/sh\necho x >> ${quoteShellWord(marks)}\nexec ${quoteShellWord(process.execPath)} "$@"\n`,
    );
    chmodSync(node, 0o755);
    const script = shimScript({
      node,
      electron: false,
      cli,
      extensionsDir: dir,
      folderPrefix: 'x-',
      home: dir,
    });
    const shim = path.join(dir, 'bin', 'bounded-evidence');
    mkdirSync(path.dirname(shim), { recursive: true });
    writeFileSync(shim, script);
    chmodSync(shim, 0o755);
    const other = JSON.stringify({
      hook_event_name: 'PreToolUse',
      tool_name: 'read_file',
      tool_input: { filePath: '/x' },
    });
    assert.equal(execFileSync(shim, ['hook', '--storage', '/st'], { input: other, encoding: 'utf8' }), '');
    assert.equal(existsSync(marks), false, 'the prefilter started Node for an event naming no terminal tool');
    // The same event with recording on reaches the command line.
    assert.equal(
      (
        JSON.parse(execFileSync(shim, ['hook', '--record-post-tool-use'], { input: other, encoding: 'utf8' })) as {
          stdin: string;
        }
      ).stdin,
      other,
    );
    const terminal = JSON.stringify({
      hook_event_name: 'PreToolUse',
      tool_name: 'run_in_terminal',
      tool_input: { command: 'echo "$HOME" \\ `x` \'q\'' },
    });
    const got = JSON.parse(execFileSync(shim, ['hook', '--storage', '/st'], { input: terminal, encoding: 'utf8' })) as {
      tag: string;
      args: string[];
      stdin: string;
    };
    assert.deepEqual(got, { tag: 'hook', args: ['hook', '--storage', '/st'], stdin: `${terminal}\n` });
    assert.equal(readFileSync(marks, 'utf8'), 'x\nx\n');
    // The Copilot CLI's bash tool (its event names no event, compact JSON) reaches the hook; a read mentioning "bash" does not.
    const cliEvent = JSON.stringify({
      sessionId: 's',
      timestamp: 1,
      cwd: '/w',
      toolName: 'bash',
      toolArgs: { command: 'make' },
    });
    assert.equal(
      (JSON.parse(execFileSync(shim, ['hook'], { input: cliEvent, encoding: 'utf8' })) as { stdin: string }).stdin,
      `${cliEvent}\n`,
    );
    assert.equal(
      execFileSync(shim, ['hook'], {
        input: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'read_file', tool_input: { shell: 'bash' } }),
        encoding: 'utf8',
      }),
      '',
    );
    // An `--agent` line is started by its client's matcher: the event reaches the hook untouched, with no filter.
    const bash = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' } });
    for (const input of [bash, other])
      assert.deepEqual(JSON.parse(execFileSync(shim, ['hook', '--agent', 'claude'], { input, encoding: 'utf8' })), {
        tag: 'hook',
        args: ['hook', '--agent', 'claude'],
        stdin: input,
      });
    // Other subcommands still start cli.js.
    assert.equal(run(script, ['list']).tag, 'cli');
  });

  it("hook and keep: Node's compile cache in a private per-user folder, only where that folder can be made", () => {
    const cli = path.join(dir, 'dist', 'cli.js');
    mkdirSync(path.dirname(cli), { recursive: true });
    writeFileSync(cli, 'process.stdout.write(JSON.stringify({ cache: process.env.NODE_COMPILE_CACHE ?? null }))');
    const script = shimScript({
      node: process.execPath,
      electron: false,
      cli,
      extensionsDir: dir,
      folderPrefix: 'x-',
      home: dir,
    });
    const { NODE_COMPILE_CACHE: _a, XDG_CACHE_HOME: _b, HOME: _c, ...clean } = process.env;
    const cacheOf = (args: string[], env: NodeJS.ProcessEnv): unknown => run(script, args, env).cache;
    // keep with an output past the limit starts Node.
    const spool = path.join(dir, 'spool');
    mkdirSync(spool);
    writeFileSync(path.join(spool, `${SPOOL_STDOUT}.1`), 'xx');
    writeFileSync(path.join(spool, SPOOL_STDERR), '');
    const keep = ['keep', spool, '0', '1'];
    const home = path.join(dir, 'home');
    const want = path.join(home, '.cache', 'bounded-evidence', 'node-compile-cache');
    for (const args of [['hook', '--agent', 'claude'], keep]) {
      rmSync(home, { recursive: true, force: true });
      assert.equal(cacheOf(args, { ...clean, HOME: home }), want);
      assert.equal(statSync(want).mode & 0o777, 0o700);
    }
    const xdg = path.join(dir, 'xdg cache');
    assert.equal(
      cacheOf(keep, { ...clean, HOME: home, XDG_CACHE_HOME: xdg }),
      path.join(xdg, 'bounded-evidence', 'node-compile-cache'),
    );
    // The person's own choice stands; other subcommands, no home, a relative or unmakeable folder: none named.
    assert.equal(cacheOf(keep, { ...clean, HOME: home, NODE_COMPILE_CACHE: '/theirs' }), '/theirs');
    assert.equal(cacheOf(['list'], { ...clean, HOME: home }), null);
    assert.equal(cacheOf(keep, clean), null);
    assert.equal(cacheOf(keep, { ...clean, XDG_CACHE_HOME: 'relative' }), null);
    writeFileSync(path.join(dir, 'a-file'), '');
    assert.equal(cacheOf(keep, { ...clean, XDG_CACHE_HOME: path.join(dir, 'a-file') }), null);
    assert.equal(cacheOf(keep, { ...clean, XDG_CACHE_HOME: '/proc/no-such-folder' }), null);
  });

  it("keep: sh gives an output back whole exactly where the command line's rule does (the byte count where it switches)", () => {
    const cli = fakeCli(path.join(dir, 'dist', 'cli.js'), 'node-keep');
    const script = shimScript({
      node: process.execPath,
      electron: false,
      cli,
      extensionsDir: dir,
      folderPrefix: 'x-',
      home: dir,
    });
    const shim = path.join(dir, 'bin', 'bounded-evidence');
    mkdirSync(path.dirname(shim), { recursive: true });
    writeFileSync(shim, script);
    chmodSync(shim, 0o755);
    const whole = 4096;
    // Around the boundary, split between the streams every way that matters: all on one, or on both.
    const cases: [number, number][] = [];
    for (const total of [0, 1, whole - 1, whole, whole + 1, whole + 2])
      for (const out of [0, Math.floor(total / 2), total]) cases.push([out, total - out]);
    let n = 0;
    for (const [outBytes, errBytes] of cases) {
      const spool = path.join(dir, 'spool', String(n++));
      mkdirSync(spool, { recursive: true });
      const out = Buffer.alloc(outBytes, 'o');
      const err = Buffer.alloc(errBytes, 'e');
      writeFileSync(path.join(spool, `${SPOOL_STDOUT}.${4242 + n}`), out);
      writeFileSync(path.join(spool, SPOOL_STDERR), err);
      const r = spawnSync(shim, ['keep', spool, '3', String(whole)]);
      assert.equal(r.status, 3, "the status is the command's");
      const shWhole = r.stdout.equals(out) && r.stderr.equals(err);
      if (!shWhole)
        assert.equal((JSON.parse(r.stdout.toString()) as { args: string[] }).args[0], 'keep', 'else Node keeps it');
      assert.equal(shWhole, givenBackWhole(outBytes, errBytes, whole), `${outBytes} + ${errBytes} bytes`);
    }
    // A spool whose stderr file is gone cannot be sized by sh: Node's keep decides, with the command's status.
    const gone = path.join(dir, 'spool', 'gone');
    mkdirSync(gone, { recursive: true });
    writeFileSync(path.join(gone, `${SPOOL_STDOUT}.1`), 'x');
    const r = spawnSync(shim, ['keep', gone, '5', String(whole)], { encoding: 'utf8' });
    assert.equal(r.status, 5);
    assert.deepEqual((JSON.parse(r.stdout) as { args: string[] }).args, ['keep', gone, '5', String(whole)]);
  });
});
