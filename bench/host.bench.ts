/**
 * Start-up at scale in the real extension host: a served workbench whose
 * workspace storage is seeded with `BENCH_HOST_RUNS` runs (default 100,000; the seeding
 * of bench/scale.bench.ts through inspector.bench.ts's `seededWorkbench`), measured by
 * bench/hostProbe.ts running inside each new extension host as the workbench's
 * `extensionTestsPath`. Three extension hosts, one after another in the same workbench:
 *   empty   — the workspace before anything was recorded (the floor of every figure);
 *   first   — the first reload after seeding (the seeder wrote the catalog database
 *             and marked it built: the extension host opens it, nothing to replay);
 *   morning — the next reload: what a person gets every morning.
 * Each prints: activation, activation → first `read_tool_output` answer of a known
 * handle through `vscode.lm.invokeTool`, further hits and misses (medians), the largest
 * lateness of a 100 ms timer and the largest `setContext` round trip in the first
 * `BENCH_HOST_SECONDS` (default 20) seconds, and the extension host's peak RSS.
 * Needs the test tools (`BE_TOOLS_DIR`) and `node esbuild.js` first.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { mintAttachmentHandle } from '../src/core/runs/log/handles.js';
import { reload, seededWorkbench } from './inspector.bench.js';
import type { ProbeConfig, ProbeResult } from './hostProbe.js';
import { median, report, scratchDir } from './util.js';

const RUNS = Number(process.env.BENCH_HOST_RUNS ?? process.env.BENCH_INSPECTOR_RUNS ?? 100_000);
const SECONDS = Number(process.env.BENCH_HOST_SECONDS ?? 20);

/** Waits for `<out>/<phase>.json`, failing early when the test run reported a failure. */
async function result(out: string, phase: string, failed: () => number | undefined): Promise<ProbeResult> {
  const file = path.join(out, `${phase}.json`);
  const deadline = Date.now() + 30 * 60_000;
  while (!existsSync(file)) {
    const code = failed();
    if (code) throw new Error(`the probe in the extension host failed (exit ${code}) in phase ${phase}`);
    if (Date.now() > deadline) throw new Error(`no result from phase ${phase}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return JSON.parse(readFileSync(file, 'utf8')) as ProbeResult;
}

function print(r: ProbeResult): void {
  const f = (ms: number): string => ms.toFixed(ms < 10 ? 2 : 0);
  console.log(`\n-- ${r.phase}`);
  report('host process start → probe loaded (ms)', f(r.hostUptimeMs));
  report('probe loaded → extension activated (ms)', f(r.activateMs));
  if (r.firstAnswer) report('activation → first read_tool_output answer (ms)', f(r.firstAnswerMs), '< 1000');
  if (r.hitsMs.length)
    report(
      `handle hit, median of ${r.hitsMs.length} (max) (ms)`,
      `${f(median(r.hitsMs))} (${f(Math.max(...r.hitsMs))})`,
      '< 10',
    );
  report(
    `handle miss, median of ${r.missesMs.length} (max) (ms)`,
    `${f(median(r.missesMs))} (${f(Math.max(...r.missesMs))})`,
    '< 10',
  );
  if (r.apiHitsMs.length)
    report(
      "  the same through the API's read: hit (max) (ms)",
      `${f(median(r.apiHitsMs))} (${f(Math.max(...r.apiHitsMs))})`,
      '< 10',
    );
  report(
    "  the same through the API's read: miss (max) (ms)",
    `${f(median(r.apiMissesMs))} (${f(Math.max(...r.apiMissesMs))})`,
    '< 10',
  );
  if (r.lateHitsMs.length)
    report(
      `  through the tool again after ${SECONDS} s: hit (max) (ms)`,
      `${f(median(r.lateHitsMs))} (${f(Math.max(...r.lateHitsMs))})`,
      '< 10',
    );
  report(
    `  through the tool again after ${SECONDS} s: miss (max) (ms)`,
    `${f(median(r.lateMissesMs))} (${f(Math.max(...r.lateMissesMs))})`,
    '< 10',
  );
  report(`largest 100 ms timer lateness in ${SECONDS} s (ms)`, f(r.worstLateMs), '< 100');
  report(
    `largest setContext round trip (at, ${r.pings} pings) (ms)`,
    `${f(r.worstRoundTripMs)} (at ${(r.worstAtMs / 1000).toFixed(1)} s)`,
    '< 100',
  );
  report(
    'extension host RSS at start / peak (MB)',
    `${(r.startRss / 2 ** 20).toFixed(0)} / ${(r.peakRss / 2 ** 20).toFixed(0)}`,
  );
  console.log(
    `  slow pings [s after probe start: late / round trip ms]: ${r.slow.map(([at, late, rtt]) => `${(at / 1000).toFixed(1)}: ${late}/${rtt}`).join(', ') || 'none'}`,
  );
}

async function main(): Promise<void> {
  const { dir, cleanup } = scratchDir('host');
  const config = path.join(dir, 'config.json');
  const out = path.join(dir, 'out');
  mkdirSync(out);
  const probe = path.join(dir, 'probe', 'index.js');
  buildSync({
    entryPoints: [path.join(__dirname, 'hostProbe.ts')],
    outfile: probe,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    define: { BENCH_HOST_CONFIG: JSON.stringify(config) },
    logLevel: 'warning',
  });
  // Handles nobody recorded: minted as the recorder mints them, so a miss takes the path a real one takes.
  const misses = Array.from({ length: 20 }, () => mintAttachmentHandle());
  const configure = (c: Omit<ProbeConfig, 'out' | 'seconds'>): void =>
    writeFileSync(
      config,
      JSON.stringify({ ...c, out, seconds: SECONDS, profile: Boolean(process.env.BENCH_HOST_PROFILE) }),
    );
  let exitCode: number | undefined;
  configure({ phase: 'empty', handles: [], misses });
  console.log(`load average before: ${execFileSync('uptime').toString().trim()}`);
  const results: ProbeResult[] = [];
  const { wb, seeded } = await seededWorkbench('bench-host', RUNS, {
    payload: (remote) => [['extensionTestsPath', remote(probe)]],
    onExit: (code) => {
      exitCode = code;
    },
    ready: async () => {
      results.push(await result(out, 'empty', () => exitCode));
    },
  });
  try {
    for (const phase of ['first', 'morning']) {
      exitCode = undefined;
      configure({
        phase,
        handles: phase === 'first' ? seeded.handles.slice(0, 21) : seeded.handles.slice(21, 42),
        misses,
      });
      await reload(wb);
      results.push(await result(out, phase, () => exitCode));
    }
    console.log(`load average after: ${execFileSync('uptime').toString().trim()}`);
    console.log(
      `${RUNS.toLocaleString('en')} runs seeded; first answer of the seeded host: ${results[2]!.firstAnswer.slice(0, 80)}…; a miss: ${results[2]!.missAnswer.slice(0, 100)}`,
    );
    for (const r of results) print(r);
  } finally {
    await wb.close();
    if (!process.env.BENCH_HOST_KEEP) cleanup();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
