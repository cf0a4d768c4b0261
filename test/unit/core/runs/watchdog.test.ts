/**
 * A command never outlives the process that started it by more than
 * the watchdog's grace (docs/contracts.md §5.4), under any `/bin/sh`. The watchdog's
 * group kill was `kill -KILL -- -<group>`, which dash's builtin `kill` rejects (the error
 * went to /dev/null), so under dash a group member with no marker (`env -i`) survived the
 * parent's SIGKILL for ever. A real parent process (fixtures/watchdogParent.ts), its
 * watchdog under dash and under bash, a real SIGKILL.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { alive, scratch } from './helpers.js';

const PARENT = path.join(__dirname, 'fixtures', 'watchdogParent.ts');

/** The grace contracts §5.4 promises between the parent's death and the end of its commands. */
const GRACE_MS = 1_000;

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

for (const shell of ['dash', 'bash']) {
  describe(`the watchdog under ${shell}`, () => {
    let dir: string;
    let cleanup: () => void;
    const started: number[] = [];
    beforeEach(() => ({ dir, cleanup } = scratch('watchdog')));
    afterEach(() => {
      // Nothing left behind, whatever the assertions said.
      for (const pid of started.splice(0)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      cleanup();
    });

    it(`SIGKILL of the parent ends, within ${GRACE_MS} ms, its group (a member with env -i too) and its marked process in another session`, async function () {
      this.timeout(30_000);
      assert.equal(spawnSync(shell, ['-c', 'exit 0']).status, 0, `${shell} must be installed`);
      const parent = spawn(process.execPath, ['--import', 'tsx', PARENT, shell, dir], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      parent.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      started.push(parent.pid!);
      assert.ok(
        await waitFor(() => existsSync(path.join(dir, 'ready')), 20_000),
        `the command never started: ${stderr}`,
      );
      const pids = Object.fromEntries(
        ['plain', 'cleared', 'session'].map((n) => [n, Number(readFileSync(path.join(dir, `${n}.pid`), 'utf8'))]),
      );
      started.push(...Object.values(pids));
      for (const [name, pid] of Object.entries(pids)) assert.equal(alive(pid), true, `${name} runs before the kill`);
      const exited = new Promise((r) => parent.once('exit', r));
      parent.kill('SIGKILL');
      await exited;
      const t = Date.now();
      await waitFor(() => Object.values(pids).every((p) => !alive(p)), GRACE_MS + 4_000);
      const ms = Date.now() - t;
      const survivors = Object.entries(pids)
        .filter(([, p]) => alive(p))
        .map(([n]) => n);
      assert.deepEqual(survivors, [], `still running ${ms} ms after the parent's SIGKILL`);
      assert.ok(ms <= GRACE_MS, `all ended, but ${ms} ms after the parent's SIGKILL`);
    });
  });
}
