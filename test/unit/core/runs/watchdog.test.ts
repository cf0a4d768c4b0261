/**
 * A command never outlives the process that started it (docs/contracts.md §5.4), under any
 * `/bin/sh`; how soon it ends is measured in bench/watchdog.bench.ts. The watchdog's
 * group kill was `kill -KILL -- -<group>`, which dash's builtin `kill` rejects (the error
 * went to /dev/null), so under dash a group member with no marker (`env -i`) survived the
 * parent's SIGKILL for ever. A real parent process (fixtures/watchdogParent.ts), its
 * watchdog under dash and under bash, a real SIGKILL. A parent killed after it spawned the
 * shell but before it named the shell's group left the whole tree running; that state is
 * made on purpose (`unnamed`) rather than waited for from the scheduler.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { alive, scratch } from './helpers.js';

const PARENT = path.join(__dirname, 'fixtures', 'watchdogParent.ts');

/** Only a bound on waiting: a watchdog that never fires fails here, a slow machine does not. */
const DEADLINE_MS = 30_000;

/** The parent's watchdog: its child running the watchdog script (it reads `add` lines). */
function watchdogOf(parent: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('while read -r op g m')) {
        return Number(name);
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

const WHEN = {
  named: 'SIGKILL of the parent',
  unnamed: 'SIGKILL of a parent that never named the group',
} as const;

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

    for (const [mode, when] of Object.entries(WHEN))
      it(`${when} ends its group (a member with env -i too) and its marked process in another session, then the watchdog exits`, async function () {
        this.timeout(DEADLINE_MS + 30_000);
        assert.equal(spawnSync(shell, ['-c', 'exit 0']).status, 0, `${shell} must be installed`);
        const parent = spawn(process.execPath, ['--import', 'tsx', PARENT, shell, dir, mode], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        parent.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        started.push(parent.pid!);
        // Unnamed: the line naming the shell's group was written, and kept from the watchdog.
        const states = mode === 'unnamed' ? ['ready', 'unsaid'] : ['ready'];
        assert.ok(
          await waitFor(() => states.every((f) => existsSync(path.join(dir, f))), 20_000),
          `the command never started: ${stderr}`,
        );
        if (mode === 'unnamed') assert.match(readFileSync(path.join(dir, 'unsaid'), 'utf8'), /^add \d+ \S+\n$/);
        const pids = Object.fromEntries(
          ['plain', 'cleared', 'session'].map((n) => [n, Number(readFileSync(path.join(dir, `${n}.pid`), 'utf8'))]),
        );
        started.push(...Object.values(pids));
        for (const [name, pid] of Object.entries(pids)) assert.equal(alive(pid), true, `${name} runs before the kill`);
        const watchdog = watchdogOf(parent.pid!);
        assert.ok(watchdog !== undefined && alive(watchdog), 'the watchdog runs before the kill');
        started.push(watchdog);
        const exited = new Promise((r) => parent.once('exit', r));
        parent.kill('SIGKILL');
        await exited;
        // Order and state, not time: once the parent is dead, every process of its command ends and the watchdog,
        // its work done, exits.
        await waitFor(() => [...Object.values(pids), watchdog].every((p) => !alive(p)), DEADLINE_MS);
        const survivors = Object.entries({ ...pids, watchdog })
          .filter(([, p]) => alive(p))
          .map(([n]) => n);
        assert.deepEqual(survivors, [], `still running ${DEADLINE_MS} ms after the parent's SIGKILL`);
      });
  });
}
