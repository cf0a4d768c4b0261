/**
 * A command whose descendant called setsid() and holds stdout/stderr
 * open ends at its limit, says so honestly, keeps the bytes it had, and the descendant in
 * the other session is ended (docs/contracts.md §5.4).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { openStore, scratch, waitGone } from './helpers.js';

/** The session id of a pid (field 6 of /proc/<pid>/stat). */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

/**
 * The holders sleep for ten minutes, far past each test's own timeout: a call that waited for its holder would never
 * return in time, so its returning at all, with the limit's status, shows it did not wait (no clock is read).
 */
const HOLDER = 'exec sleep 600';

/** A holder in a session of its own that writes its pid to `pidFile` whole (aside, then renamed) before it holds. */
function holderWritingPid(pidFile: string): string {
  return `setsid sh -c 'echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; ${HOLDER}'`;
}

/** Shell that waits until the holder whose pid is in `pidFile` runs `sleep` (it has exec'd). */
function untilHolding(pidFile: string): string {
  return `until [ "$(cat /proc/$(cat ${pidFile} 2>/dev/null)/comm 2>/dev/null)" = sleep ]; do sleep 0.01; done`;
}

describe('command lifetime with descendants in another session', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('lifetime')));
  afterEach(() => cleanup());

  it('a setsid holder in the background: the call ends with its shell (not at its limit, not at an abort), the holder is ended and named', async function () {
    this.timeout(60_000);
    const store = await openStore(dir, { blobs: new MemoryBlobStore() });
    const run = await store.startRun();
    const pidFile = path.join(dir, 'pid');
    const ac = new AbortController();
    // The limit and the abort only bound a call that would wait for its holder: the shell ends long before either.
    const abortTimer = setTimeout(() => ac.abort(), 40_000);
    const out = await run.runCommand(`${holderWritingPid(pidFile)} & ${untilHolding(pidFile)}; echo hi`, {
      cwd: dir,
      timeoutMs: 30_000,
      signal: ac.signal,
    });
    clearTimeout(abortTimer);
    const holder = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(await waitGone(holder), true, 'the setsid descendant was ended');
    // The shell itself ended with status 0: that is what is reported, plus what was ended.
    assert.equal(out.record.attachments[0]!.inline, 'hi\n');
    assert.equal(out.record.attachments[2]!.inline, '{"aborted":false,"code":0,"signal":null,"timedOut":false}');
    assert.match(out.modelText, new RegExp(`ended 1 process left in another session: sleep \\(pid ${holder}\\)`));
  });

  it('a foreground setsid holder: the call times out at its limit, keeps the bytes before, and the holder is ended', async function () {
    this.timeout(30_000);
    const store = await openStore(dir, { blobs: new MemoryBlobStore() });
    const run = await store.startRun();
    const pidFile = path.join(dir, 'pid');
    // The limit leaves the holder room to start (and write its pid) on a loaded machine.
    const out = await run.runCommand(`echo before; ${holderWritingPid(pidFile)}; echo never`, {
      cwd: dir,
      timeoutMs: 5000,
    });
    const holder = Number(readFileSync(pidFile, 'utf8'));
    assert.deepEqual([out.status, out.record.error?.code], ['error', 'timeout']);
    assert.equal(out.record.attachments[0]!.inline, 'before\n');
    assert.equal(out.record.attachments[2]!.inline, '{"aborted":false,"code":null,"signal":"SIGKILL","timedOut":true}');
    assert.equal(await waitGone(holder), true);
  });

  it('cancellation with a setsid holder ends at once and reports cancelled', async function () {
    this.timeout(30_000);
    const store = await openStore(dir, { blobs: new MemoryBlobStore() });
    const run = await store.startRun();
    const pidFile = path.join(dir, 'pid');
    const ac = new AbortController();
    const call = run.runCommand(`printf partial; ${holderWritingPid(pidFile)} 2>&1`, { cwd: dir, signal: ac.signal });
    // Cancelled once the holder runs: by state, not time.
    while (!existsSync(pidFile)) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const out = await call;
    const holder = Number(readFileSync(pidFile, 'utf8'));
    assert.notEqual(sessionOf(process.pid), Number.NaN);
    assert.deepEqual([out.status, out.record.error?.code], ['error', 'aborted']);
    assert.equal(out.record.attachments[0]!.inline, 'partial');
    assert.ok(out.modelText.includes('killed: cancelled'), out.modelText);
    assert.equal(await waitGone(holder), true);
  });

  it('a holder that also closes its environment marker (env -i) still cannot keep the call open: it ends with its shell', async function () {
    this.timeout(60_000);
    const store = await openStore(dir, { blobs: new MemoryBlobStore() });
    const run = await store.startRun();
    const pidFile = path.join(dir, 'pid');
    const go = path.join(dir, 'go');
    const holding = holderWritingPid(pidFile).replace('setsid sh', 'setsid env -i sh');
    // The shell ends once this test, whose code runs after the call's start, has seen the holder hold: by state.
    const call = run.runCommand(`${holding} & until [ -e ${go} ]; do sleep 0.01; done; echo hi`, {
      cwd: dir,
      timeoutMs: 30_000,
    });
    const holds = (): boolean => {
      try {
        return readFileSync(`/proc/${readFileSync(pidFile, 'utf8').trim()}/comm`, 'utf8') === 'sleep\n';
      } catch {
        return false;
      }
    };
    while (!holds()) await new Promise((r) => setTimeout(r, 10));
    writeFileSync(go, '');
    const out = await call;
    const holder = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(out.record.attachments[0]!.inline, 'hi\n');
    assert.equal(out.record.attachments[2]!.inline, '{"aborted":false,"code":0,"signal":null,"timedOut":false}');
    // Found as a holder of the output pipes, and ended.
    assert.equal(await waitGone(holder), true);
  });
});

describe("the command's own group", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('own-group')));
  afterEach(() => cleanup());

  it('members killed with the group are not named as left in another session, though some are still on their way out when the tree is swept', async function () {
    this.timeout(30_000);
    const store = await openStore(dir, { blobs: new MemoryBlobStore() });
    const run = await store.startRun();
    const ac = new AbortController();
    const ready = path.join(dir, 'ready');
    const pids = path.join(dir, 'pids');
    // Twenty members of the shell's group (no setsid): cancelled once all run, by state, not time.
    const started = run.runCommand(`for i in $(seq 20); do sleep 600 & echo $! >> ${pids}; done; : > ${ready}; wait`, {
      cwd: dir,
      signal: ac.signal,
    });
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const out = await started;
    assert.deepEqual([out.status, out.record.error?.code], ['error', 'aborted']);
    assert.ok(!out.modelText.includes('another session'), out.modelText);
    const members = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    assert.equal(members.length, 20);
    for (const pid of members) assert.equal(await waitGone(pid), true, `member ${pid} ended`);
  });
});

describe('command output after the shell exits, read by a slow reader', () => {
  it('keeps every byte left in the pipes when the reader is behind (a busy disk or machine), never cutting it at the grace', async function () {
    this.timeout(60_000);
    const { startCommand } = await import('../../../../src/core/runs/processes/command.js');
    // 200,000 bytes fit the pipes' buffers: the shell exits at once, with nearly all of them still unread.
    const cmd = startCommand('head -c 200000 /dev/zero | tr "\\0" x', { cwd: process.cwd() });
    let bytes = 0;
    let exitedAt = 0;
    void cmd.exit.then(() => {
      exitedAt = Date.now();
    });
    for await (const piece of cmd.stdout as AsyncIterable<Uint8Array>) {
      bytes += piece.length;
      // 300 ms a piece: the backlog left at exit takes longer to read than the 250 ms grace (twice) allows.
      await new Promise((r) => setTimeout(r, 300));
    }
    const end = await cmd.exit;
    assert.equal(bytes, 200_000, `read ${bytes} bytes (exit resolved ${exitedAt ? 'before' : 'after'} the last byte)`);
    assert.deepEqual([end.code, end.pipesAbandoned], [0, false]);
  });
});

describe('command end leaves nothing pending', () => {
  it('once a quick command has ended and its pipes closed, no timer of ours is left (a command line exits at once)', async () => {
    const { startCommand } = await import('../../../../src/core/runs/processes/command.js');
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const cmd = startCommand('echo hi', { cwd: process.cwd() });
    const chunks: Uint8Array[] = [];
    for await (const piece of cmd.stdout as AsyncIterable<Uint8Array>) chunks.push(piece);
    const end = await cmd.exit;
    assert.deepEqual([Buffer.concat(chunks).toString(), end.code, end.pipesAbandoned], ['hi\n', 0, false]);
    // Before the fix, the 250 ms grace timer of the pipe drain was still pending here.
    // At most as many as before (another timer of the process may have fired meanwhile, none of ours is left).
    assert.ok(timers() <= before, `timers pending: ${process.getActiveResourcesInfo().join(', ')}`);
  });
});
