/**
 * Every routed command is kept (docs/contracts.md §6.1): a small output's recorder outlives a client that ends the
 * command's process group as it exits (Codex, opencode), and a killed shell's spool is recorded by the next routed
 * command, told by its shell being gone (real shells killed here), not by its age.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { prepareSpool } from '../../../../src/cli/hook.js';
import { openSession } from '../../../../src/cli/session.js';
import { shellAlive } from '../../../../src/cli/spoolOwner.js';
import type { RunSummary } from '../../../../src/core/index.js';
import { wrapCommand } from '../../../../src/core/reach/rewrite.js';
import { quoteShellWord } from '../../../../src/core/reach/shellQuote.js';
import { shimScript } from '../../../../src/core/reach/shim.js';

const ROOT = path.resolve(__dirname, '../../../..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
/** The command line on the sources (the unit suite runs before the build). */
const CLI = [process.execPath, '--import', TSX, path.join(ROOT, 'src/cli/main.ts')].map(quoteShellWord).join(' ');

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Resolves when `check` holds, polling; rejects after `ms` with `what`. */
async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The hook's spool for `command` and its routed form, through `cli`. */
function routed(storage: string, command: string, session: string, cli = CLI): { spool: string; text: string } {
  const spool = prepareSpool(storage, command, { agent: 'codex', sessionId: session, cwd: storage });
  return { spool, text: wrapCommand(command, { spool, cli, wholeBytes: 4096, sameLine: true }) };
}

/** A routed command in its own bash, in a process group of its own (as Codex and opencode start one). */
function startShell(text: string, cwd: string): ChildProcess {
  return spawn('bash', ['-c', text], { cwd, detached: true, stdio: 'ignore' });
}

function stdoutFile(spool: string): string | undefined {
  const name = existsSync(spool) ? readdirSync(spool).find((n) => /^1\.\d+$/.test(n)) : undefined;
  return name && path.join(spool, name);
}

async function hookRuns(storage: string): Promise<(RunSummary & { stdout: string | undefined })[]> {
  const session = await openSession(storage);
  const runs = (await session.runs.listRuns()).filter((r) => r.source?.kind === 'hook');
  return Promise.all(
    runs.map(async (r) => {
      const [call] = await session.runs.report(r.runId);
      return { ...r, stdout: call?.attachments.find((a) => a.name === 'stdout')?.sha256 };
    }),
  );
}

describe('every routed command is kept', function () {
  this.timeout(120_000);
  let dir: string;
  let storage: string;
  const shells: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-kept-'));
    storage = path.join(dir, 'storage');
    mkdirSync(path.join(storage, 'evidence'), { recursive: true });
  });
  afterEach(() => {
    for (const s of shells.splice(0))
      if (s.exitCode === null && s.signalCode === null) process.kill(-s.pid!, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it("a killed shell's spool is recorded by the next routed command as cancelled, every byte; a live one's is left", async () => {
    const killed = routed(storage, "printf 'half of the build\\n'; sleep 60", 'killed');
    const live = routed(storage, "printf 'still going\\n'; sleep 60", 'live');
    const a = startShell(killed.text, dir);
    const b = startShell(live.text, dir);
    shells.push(a, b);
    const written = (spool: string, text: string) => (): boolean => {
      const f = stdoutFile(spool);
      return f !== undefined && readFileSync(f, 'utf8') === text;
    };
    await until(written(killed.spool, 'half of the build\n'), 'the first shell wrote its half');
    await until(written(live.spool, 'still going\n'), 'the second shell started');
    // The shell's pid names its stdout file: the text of the command names none.
    assert.equal(path.basename(stdoutFile(killed.spool)!), `1.${a.pid}`);
    assert.ok(!killed.text.includes(String(a.pid)));
    const gone = new Promise((r) => a.on('exit', r));
    process.kill(-a.pid!, 'SIGKILL');
    await gone;
    const next = routed(storage, "printf 'now\\n'", 'next');
    const r = spawnSync('bash', ['-c', next.text], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.stdout, 'now\n');
    assert.deepEqual(readdirSync(path.join(storage, 'evidence', 'spool')), [path.basename(live.spool)]);
    const runs = await hookRuns(storage);
    const byRun = new Map(runs.map((x) => [x.source?.sessionId, x]));
    assert.deepEqual([...byRun.keys()].sort(), ['killed', 'next']);
    assert.equal(byRun.get('killed')!.status, 'cancelled');
    assert.equal(byRun.get('killed')!.stdout, sha('half of the build\n'));
    assert.equal(byRun.get('next')!.status, 'completed');
  });

  it('a pid reused since the spool was last written is not its shell', async () => {
    const left = routed(storage, 'make all', 'reused');
    // A process that started now, named as the shell of a spool last written an hour ago.
    const other = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    shells.push(other);
    const out = path.join(left.spool, `1.${other.pid}`);
    writeFileSync(out, 'before the reuse\n');
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const f of [out, path.join(left.spool, '2'), path.join(left.spool, 'command')])
      utimesSync(f, hourAgo, hourAgo);
    assert.equal(shellAlive(other.pid!, hourAgo.getTime()), false);
    assert.equal(shellAlive(other.pid!, Date.now()), true);
    const next = routed(storage, 'true', 'next');
    spawnSync('bash', ['-c', next.text], { cwd: dir });
    assert.deepEqual(readdirSync(path.join(storage, 'evidence', 'spool')), []);
    const runs = await hookRuns(storage);
    assert.equal(runs.find((x) => x.source?.sessionId === 'reused')?.stdout, sha('before the reuse\n'));
  });

  it("a small output's recorder survives the end of the command's process group (the shim's sh path)", async () => {
    const node = path.join(dir, 'node');
    writeFileSync(node, `#!/bin/sh\nexec ${quoteShellWord(process.execPath)} --import ${quoteShellWord(TSX)} "$@"\n`, {
      mode: 0o755,
    });
    const shim = path.join(dir, 'bounded-evidence');
    const cli = path.join(ROOT, 'src/cli/main.ts');
    writeFileSync(shim, shimScript({ node, electron: false, cli, extensionsDir: dir, folderPrefix: 'x-', home: dir }), {
      mode: 0o755,
    });
    const commands = ["printf 'ok\\n'", "printf 'no\\n' >&2; (exit 3)"];
    for (const [i, command] of commands.entries()) {
      const { text } = routed(storage, command, `small-${i}`, quoteShellWord(shim));
      const shell = startShell(text, dir);
      // As Codex and opencode do: the whole group ends the moment the shell exits.
      const status = await new Promise<number | null>((resolve) =>
        shell.on('exit', (code) => {
          try {
            process.kill(-shell.pid!, 'SIGKILL');
          } catch {
            /* already empty */
          }
          resolve(code);
        }),
      );
      assert.equal(status, i === 0 ? 0 : 3);
    }
    const spools = path.join(storage, 'evidence', 'spool');
    await until(() => readdirSync(spools).length === 0, 'both recorded and their spools removed');
    const runs = await hookRuns(storage);
    assert.deepEqual(runs.map((r) => [r.source?.sessionId, r.status, r.failedCalls]).sort(), [
      ['small-0', 'completed', 0],
      ['small-1', 'completed', 1],
    ]);
    assert.equal(runs.find((r) => r.source?.sessionId === 'small-0')!.stdout, sha('ok\n'));
  });

  /** The shim on the sources, with a `node` that loads them. */
  function sourceShim(): string {
    const node = path.join(dir, 'node');
    writeFileSync(node, `#!/bin/sh\nexec ${quoteShellWord(process.execPath)} --import ${quoteShellWord(TSX)} "$@"\n`, {
      mode: 0o755,
    });
    const shim = path.join(dir, 'bounded-evidence');
    const cli = path.join(ROOT, 'src/cli/main.ts');
    writeFileSync(shim, shimScript({ node, electron: false, cli, extensionsDir: dir, folderPrefix: 'x-', home: dir }), {
      mode: 0o755,
    });
    return quoteShellWord(shim);
  }

  it("the client's time limit: what was printed by then is given once, the rest after; a killed shell is recorded at once", async () => {
    const cli = sourceShim();
    const watched = (command: string, session: string): { spool: string; text: string } => {
      const spool = prepareSpool(storage, command, { agent: 'claude', sessionId: session, cwd: storage });
      return {
        spool,
        text: wrapCommand(command, { spool, cli, wholeBytes: 4096, sameLine: true, watchUntil: Date.now() }),
      };
    };
    // The limit is now: the watcher gives `partial` while the command sleeps; keep then gives only what followed.
    const command = "printf 'partial\\n'; sleep 2; printf 'rest\\n'; (exit 4)";
    const shell = spawn('bash', ['-c', `(exit 9); ${watched(command, 'limit').text}`], { cwd: dir, detached: true });
    shells.push(shell);
    let out = '';
    shell.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    await until(() => out === 'partial\n', 'the output so far given at the limit');
    const code = await new Promise<number | null>((r) => shell.on('close', (c) => r(c)));
    assert.equal(out, 'partial\nrest\n');
    assert.equal(code, 4);
    // Killed by its client after the limit: recorded by the watcher, not left for the next command.
    const k = watched("printf 'half\\n'; sleep 60", 'killed');
    const killed = spawn('bash', ['-c', k.text], {
      cwd: dir,
      detached: true,
      stdio: 'ignore',
    });
    shells.push(killed);
    const spools = path.join(storage, 'evidence', 'spool');
    await until(() => existsSync(path.join(k.spool, 'given', 'sizes')), 'the output so far given');
    process.kill(-killed.pid!, 'SIGKILL');
    await until(() => readdirSync(spools).length === 0, 'the killed spool recorded by its watcher');
    const runs = await hookRuns(storage);
    assert.deepEqual(runs.map((r) => [r.source?.sessionId, r.status]).sort(), [
      ['killed', 'cancelled'],
      ['limit', 'completed'],
    ]);
    assert.equal(runs.find((r) => r.source?.sessionId === 'killed')!.stdout, sha('half\n'));
    assert.equal(runs.find((r) => r.source?.sessionId === 'limit')!.stdout, sha('partial\nrest\n'));
  });

  it('a limit on silence: while the command writes, an empty SGR; once it has not, what it printed so far, once', async () => {
    const cli = sourceShim();
    const command = "printf 'a\\n'; sleep 3; printf 'b\\n'; (exit 2)";
    const spool = prepareSpool(storage, command, { agent: 'gemini', sessionId: 'idle', cwd: storage });
    const text = wrapCommand(command, {
      spool,
      cli,
      wholeBytes: 4096,
      sameLine: true,
      watchUntil: Date.now() + 500,
      watchIdle: 1500,
    });
    const shell = spawn('bash', ['-c', text], { cwd: dir, detached: true });
    shells.push(shell);
    let out = '';
    shell.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const code = await new Promise<number | null>((r) => shell.on('close', (c) => r(c)));
    assert.equal(code, 2);
    // `a` was written since the start: the client's clock is reset first; then, nothing new, `a` itself.
    assert.ok(out.startsWith('\x1b[ma\n'), JSON.stringify(out));
    assert.equal(out.split('\x1b[m').join(''), 'a\nb\n');
    const spools = path.join(storage, 'evidence', 'spool');
    await until(() => readdirSync(spools).length === 0, 'recorded');
    const run = (await hookRuns(storage)).find((r) => r.source?.sessionId === 'idle')!;
    assert.equal(run.stdout, sha('a\nb\n'));
    // On a terminal (Gemini CLI's node-pty) an invisible byte before the first visible one counts for nothing: `a`.
    const ttySpool = prepareSpool(storage, command, { agent: 'gemini', sessionId: 'idle-tty', cwd: storage });
    const ttyText = wrapCommand(command, {
      spool: ttySpool,
      cli,
      wholeBytes: 4096,
      sameLine: true,
      watchUntil: Date.now() + 500,
      watchIdle: 1500,
    });
    const tty = spawn('script', ['-qec', `bash -c ${quoteShellWord(ttyText)}`, '/dev/null'], {
      cwd: dir,
      detached: true,
    });
    shells.push(tty);
    let seen = '';
    tty.stdout!.on('data', (d: Buffer) => (seen += d.toString('utf8')));
    await new Promise((r) => tty.on('close', r));
    assert.ok(seen.startsWith('a\r\n'), JSON.stringify(seen));
    assert.equal(seen.split('\x1b[m').join(''), 'a\r\nb\r\n');
  });

  it("`$?` reaches the command through the watcher's start as it was", () => {
    const cli = sourceShim();
    const spool = prepareSpool(storage, 'echo "was $?"', { agent: 'claude', sessionId: 's', cwd: storage });
    const text = wrapCommand('echo "was $?"', { spool, cli, wholeBytes: 4096, watchUntil: Date.now() + 60_000 });
    const r = spawnSync('bash', ['-c', `(exit 7); ${text}`], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.stdout, 'was 7\n');
  });

  it('keep --interim and --killed refuse malformed arguments with their usage line and touch no spool', () => {
    const { spool } = routed(storage, 'true', 'bad');
    for (const args of [['--interim', spool, 'x', '1'], ['--interim', spool], ['--killed']]) {
      const r = spawnSync('sh', ['-c', `${CLI} keep ${args.map(quoteShellWord).join(' ')}`], { encoding: 'utf8' });
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, /usage: bounded-evidence keep --killed SPOOL, or keep --interim SPOOL OUT ERR/);
    }
    assert.deepEqual(readdirSync(spool).sort(), ['2', 'command', 'meta.json']);
  });

  it('an ended spool its recorder never took is recorded with its status, not as cancelled', async () => {
    const left = routed(storage, "printf 'done\\n'; (exit 5)", 'ended');
    writeFileSync(path.join(left.spool, '1.1'), 'done\n');
    writeFileSync(path.join(left.spool, 'status'), '5\n');
    const past = new Date(Date.now() - 120_000);
    utimesSync(path.join(left.spool, 'status'), past, past);
    const next = routed(storage, 'true', 'next');
    spawnSync('bash', ['-c', next.text], { cwd: dir });
    assert.deepEqual(readdirSync(path.join(storage, 'evidence', 'spool')), []);
    const ended = (await hookRuns(storage)).find((x) => x.source?.sessionId === 'ended')!;
    assert.deepEqual([ended.status, ended.failedCalls, ended.stdout], ['completed', 1, sha('done\n')]);
  });
});
