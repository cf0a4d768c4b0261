/**
 * Savings at scale: `bounded-evidence stats` on a heavy user's storage against the
 * same command on an empty store, in the same run; and `RunStore.usage` in the process.
 *
 * The template is recorded for real through the run store (the command line's session): a
 * small command (shown whole), a large one (an observation) and a read back of it by handle,
 * each with the `call_shown` record its front end writes. `BENCH_STATS_SIZES` (default
 * 1000,10000,100000) runs are seeded from clones of those records over 300 days (new ids and
 * times, every other byte the same: one call in ten the large command, read back once), logs
 * written directly and the catalog filled through its own row code (`Catalog.indexSnapshots`),
 * so the rollup is what the triggers leave. A process each, medians of `BENCH_STATS_REPEATS`
 * (default 5). `npm run bench -- stats` (after `node esbuild.js`).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { openSession } from '../src/cli/session.js';
import { Catalog } from '../src/core/runs/catalog/catalog.js';
import { snapshotOf, type RunSnapshot } from '../src/core/runs/catalog/rows.js';
import { parseRunLog } from '../src/core/runs/log/runLog.js';
import type { RunRecord } from '../src/core/runs/types.js';
import { median, scratchDir } from './util.js';

const REPO = path.resolve(__dirname, '..');
const CLI = path.join(REPO, 'dist', 'cli.js');
const REPEATS = Number(process.env.BENCH_STATS_REPEATS ?? 5);

/** A small command, a large one and a read of the large one, recorded as the front ends record them. */
async function template(storage: string, ws: string): Promise<RunRecord[][]> {
  const s = await openSession(storage);
  const logs: RunRecord[][] = [];
  for (const command of ['echo "compiled 12 files"', "yes 'test 0042 passed in 3 ms' | head -c 2300000"]) {
    const run = await s.runs.startRun({ source: { kind: 'hook', agent: 'claude' } });
    const o = await run.runCommand(command, { cwd: ws });
    await s.runs.recordShown({ view: 'answer', runId: run.runId, callId: o.callId, text: o.modelText });
    const stdout = o.record.attachments.find((a) => a.name === 'stdout')!;
    if (stdout.sizeBytes > 100_000)
      await s.runs.recordShown({ view: 'read', handle: stdout.handle, text: 'x'.repeat(700) });
    await run.finish();
  }
  const dir = path.join(s.storage.logsDir, s.storage.tenant);
  for (const n of readdirSync(dir).filter((f) => f.endsWith('.jsonl')))
    logs.push(parseRunLog(readFileSync(path.join(dir, n)), n.slice(0, -6)).records);
  s.runs.close();
  // The small command first, the large one (the run with a read) second.
  return logs.sort(
    (a, b) =>
      Number(a.some((r) => r.type === 'call_shown' && r.view === 'read')) -
      Number(b.some((r) => r.type === 'call_shown' && r.view === 'read')),
  );
}

/** Seeds `n` runs (logs and catalog rows) into a fresh storage from the template's records. */
async function seed(storage: string, tpl: RunRecord[][], n: number): Promise<number> {
  const t0 = performance.now();
  const s = await openSession(storage);
  const dir = path.join(s.storage.logsDir, s.storage.tenant);
  s.runs.close();
  const catalog = await Catalog.open(dir, s.storage.tenant, { maintenance: false });
  const now = Date.now();
  let batch: RunSnapshot[] = [];
  for (let i = 0; i < n; i++) {
    const src = tpl[i % 10 === 9 ? 1 : 0]!;
    const at = new Date(now - 300 * 86_400_000 + Math.floor((i / n) * 299 * 86_400_000)).toISOString();
    const token = (0x1000000000 + i).toString(16).slice(-10);
    const runId = `run-${at.replace(/[-:]/g, '').replace(/\.\d+Z$/, '')}-${token}`;
    const oldId = src[0]!.runId;
    const oldToken = oldId.slice(-10);
    const text =
      src
        .map((r) =>
          JSON.stringify({
            ...r,
            ...(r.type === 'run_started' ? { tenant: s.storage.tenant } : {}),
            ...('startedAt' in r ? { startedAt: at } : {}),
            ...('finishedAt' in r ? { finishedAt: at } : {}),
            ...('at' in r ? { at } : {}),
          })
            .split(oldId)
            .join(runId)
            .split(oldToken)
            .join(token),
        )
        .join('\n') + '\n';
    const bytes = Buffer.from(text);
    const fd = openSync(path.join(dir, `${runId}.jsonl`), 'wx');
    writeSync(fd, bytes);
    const st = fstatSync(fd);
    closeSync(fd);
    batch.push(snapshotOf(runId, s.storage.tenant, parseRunLog(bytes, runId), { size: st.size, mtimeMs: st.mtimeMs }));
    if (batch.length >= 2000) {
      catalog.indexSnapshots(batch);
      batch = [];
    }
  }
  catalog.indexSnapshots(batch);
  catalog.close();
  return (performance.now() - t0) / 1000;
}

/** `dist/cli.js stats …` in a new process: wall ms. */
function cliMs(storage: string, args: string[]): { ms: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'stats', '--storage', storage, ...args], { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`stats exited ${r.status}: ${r.stderr}`);
  return { ms, out: r.stdout };
}

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_STATS_SIZES ?? '1000,10000,100000').split(',').map(Number);
  const scratch = scratchDir('stats-bench');
  try {
    const ws = path.join(scratch.dir, 'ws');
    mkdirSync(ws);
    const tpl = await template(path.join(scratch.dir, 'tpl'), ws);
    const empty = path.join(scratch.dir, 'empty');
    await openSession(empty).then((s) => s.runs.close());
    const base = median(Array.from({ length: REPEATS }, () => cliMs(empty, ['--since', 'all']).ms));
    const baseJson = median(
      Array.from({ length: REPEATS }, () => cliMs(empty, ['--since', 'all', '--by', 'day', '--json']).ms),
    );
    console.log(
      `empty store: stats ${base.toFixed(0)} ms, stats --by day --json ${baseJson.toFixed(0)} ms (process start to exit, median of ${REPEATS})`,
    );
    for (const n of sizes) {
      const storage = path.join(scratch.dir, `s${n}`);
      const seconds = await seed(storage, tpl, n);
      const table = median(Array.from({ length: REPEATS }, () => cliMs(storage, ['--since', 'all']).ms));
      const day = median(
        Array.from({ length: REPEATS }, () => cliMs(storage, ['--since', 'all', '--by', 'day', '--json']).ms),
      );
      const s = await openSession(storage);
      const inProcess: Record<string, number> = {};
      for (const by of ['command', 'agent', 'tool', 'day'] as const) {
        const times: number[] = [];
        for (let k = 0; k < 21; k++) {
          const t0 = performance.now();
          await s.runs.usage({ by });
          times.push(performance.now() - t0);
        }
        inProcess[by] = median(times);
      }
      const r = await s.runs.usage({ by: 'day' });
      s.runs.close();
      console.log(
        `\n${n.toLocaleString('en')} runs (seeded in ${seconds.toFixed(1)} s; ${r.total.outputs.toLocaleString('en')} outputs, ${r.total.reads.toLocaleString('en')} reads, ${r.groups.length} days)`,
      );
      console.log(`  stats (table): ${table.toFixed(0)} ms   x${(table / base).toFixed(2)} of the empty store`);
      console.log(`  stats --by day --json: ${day.toFixed(0)} ms   x${(day / baseJson).toFixed(2)}`);
      console.log(
        `  RunStore.usage in the process (median of 21): ${Object.entries(inProcess)
          .map(([k, v]) => `${k} ${v.toFixed(2)} ms`)
          .join(', ')}`,
      );
    }
  } finally {
    scratch.cleanup();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
