/**
 * How soon a command's processes end once the process that started it is SIGKILLed (the watchdog, contracts §5.4),
 * under dash and bash: from the parent's death to the last of its three processes gone (a group member, one with a
 * cleared environment, a marked one in another session), at the same 5 ms polling. Baseline in the same run: the
 * same three processes killed directly (`kill -9` of the group and the session), observed by the same polling.
 * Runs: BENCH_WATCHDOG_RUNS (default 10) per shell.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { median, report, scratchDir } from './util.js';
import { alive } from '../test/unit/core/runs/helpers.js';

const PARENT = path.join(__dirname, '..', 'test', 'unit', 'core', 'runs', 'fixtures', 'watchdogParent.ts');
const NAMES = ['plain', 'cleared', 'session'];

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Milliseconds from `kill` returning to every pid gone (polled every 5 ms). */
async function goneAfter(kill: () => Promise<void>, pids: number[]): Promise<number> {
  await kill();
  const t = process.hrtime.bigint();
  while (pids.some(alive)) await pause(5);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** One parent: its command started; then killed by the watchdog (`direct` false) or by us. */
async function once(shell: string, direct: boolean): Promise<number> {
  const { dir, cleanup } = scratchDir('watchdog');
  const parent = spawn(process.execPath, ['--import', 'tsx', PARENT, shell, dir], { stdio: 'ignore' });
  try {
    while (!existsSync(path.join(dir, 'ready'))) await pause(5);
    const pids = NAMES.map((n) => Number(readFileSync(path.join(dir, `${n}.pid`), 'utf8')));
    const shellPid = Number(
      spawnSync('ps', ['-o', 'pid=', '--ppid', String(parent.pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .map(Number)
        .find((p) => p > 0 && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('echo ready')),
    );
    return await goneAfter(async () => {
      if (direct) {
        process.kill(-shellPid, 'SIGKILL');
        process.kill(pids[2]!, 'SIGKILL');
        return;
      }
      const exited = new Promise((r) => parent.once('exit', r));
      parent.kill('SIGKILL');
      await exited;
    }, pids);
  } finally {
    parent.kill('SIGKILL');
    cleanup();
  }
}

async function main(): Promise<void> {
  const runs = Number(process.env.BENCH_WATCHDOG_RUNS ?? 10);
  for (const shell of ['dash', 'bash']) {
    const watchdog: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < runs; i++) {
      watchdog.push(await once(shell, false));
      direct.push(await once(shell, true));
    }
    const w = median(watchdog);
    const d = median(direct);
    report(
      `${shell}: parent's death to last process gone, median (direct kill)`,
      `${w.toFixed(1)} ms (${d.toFixed(1)} ms), max ${Math.max(...watchdog).toFixed(1)} ms, ratio ${(w / Math.max(d, 0.1)).toFixed(1)}`,
      'max < 1000 ms',
    );
  }
}

void main();
