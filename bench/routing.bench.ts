/**
 * Routing overhead (`npm run bench -- routing`, docs/contracts.md §6.1): what a person pays for
 * each agent command once routing is on, against the bare command in the same run.
 *
 * One "routed" step is what an agent does: start the hook through the shim (as the extension writes
 * it: `dist/hook.js`, the event on stdin), take its answer, run the rewritten command with `bash -c`. The
 * baseline is `bash -c` on the command as written. Steps alternate (bare, routed, bare, …) so a
 * change of load hits both alike; the background `keep --quiet` of a small output is let finish
 * between steps and not counted (the command does not wait for it). Also: the hook alone on a
 * non-terminal tool through the shim (the shell answers, no Node), against `sh -c :`.
 *
 * Stores: empty, and seeded with `BENCH_ROUTING_RUNS` runs (default 100000; `0` skips) through the
 * run store's own API (engine-agnostic), each one small call like a routed `echo`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { RunStore } from '../src/core/runs/store/runStore.js';
import { openSession } from '../src/cli/session.js';
import { shimScript } from '../src/core/reach/shim.js';
import { median, report, scratchDir } from './util.js';

const ROOT = path.resolve(__dirname, '..');
const HOOK = path.join(ROOT, 'dist', 'hook.js');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const STEPS = Number(process.env.BENCH_ROUTING_STEPS ?? 21);

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** The hook's answer for a Bash event, as Claude Code in a VS Code terminal gets it: through the shim. */
function hookAnswer(shim: string, storage: string, command: string): string {
  const event = JSON.stringify({
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    session_id: 'bench',
    cwd: ROOT,
    tool_input: { command },
  });
  const out = execFileSync(shim, ['hook', '--storage', storage], {
    input: event,
    encoding: 'utf8',
    env: { ...process.env, BOUNDED_EVIDENCE_CLI: shim },
  });
  return (JSON.parse(out) as { hookSpecificOutput: { updatedInput: { command: string } } }).hookSpecificOutput
    .updatedInput.command;
}

async function waitForSpools(storage: string): Promise<void> {
  const dir = path.join(storage, 'evidence', 'spool');
  for (let i = 0; i < 600 && existsSync(dir) && readdirSync(dir).length > 0; i++)
    await new Promise((r) => setTimeout(r, 50));
}

/** Median wall times of the bare and the routed command, alternating. */
async function measure(
  shim: string,
  storage: string,
  command: string,
): Promise<{ bare: number; routed: number; hook: number }> {
  const bare: number[] = [];
  const routed: number[] = [];
  const hook: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    let t = process.hrtime.bigint();
    spawnSync('bash', ['-c', command], { cwd: ROOT, stdio: 'ignore' });
    bare.push(ms(t));
    t = process.hrtime.bigint();
    const rewritten = hookAnswer(shim, storage, command);
    const h = ms(t);
    spawnSync('bash', ['-c', rewritten], { cwd: ROOT, stdio: 'ignore' });
    routed.push(ms(t));
    hook.push(h);
    await waitForSpools(storage);
  }
  return { bare: median(bare), routed: median(routed), hook: median(hook) };
}

/** Seeds `n` runs of one small call each through the run store. */
async function seed(storage: string, n: number): Promise<void> {
  const session = await openSession(storage);
  const runs: RunStore = session.runs;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const run = await runs.startRun({
      label: `seed ${i}`,
      source: { kind: 'hook', agent: 'claude', sessionId: 'seed' },
    });
    await run.recordResult('evidence_runCommand', { command: `echo ${i}` }, `$ echo ${i}\nexit code 0\n`);
    await run.finish('completed');
    if (i % 10_000 === 9_999) console.log(`  seeded ${i + 1} runs (${(ms(t0) / 1000).toFixed(0)} s)`);
  }
}

async function main(): Promise<void> {
  if (!existsSync(HOOK) || !existsSync(CLI))
    execFileSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: ROOT, stdio: 'inherit' });
  const { dir, cleanup } = scratchDir('routing');
  try {
    // The shim as the extension writes it, for the non-terminal tool case.
    const shim = path.join(dir, 'bounded-evidence');
    writeFileSync(
      shim,
      shimScript({
        node: process.execPath,
        electron: false,
        cli: CLI,
        extensionsDir: dir,
        folderPrefix: 'x-',
        home: dir,
      }),
      { mode: 0o755 },
    );
    const readEvent = JSON.stringify({
      hook_event_name: 'PreToolUse',
      tool_name: 'read_file',
      tool_input: { filePath: '/x' },
    });
    const noop: number[] = [];
    const viaShim: number[] = [];
    for (let i = 0; i < STEPS; i++) {
      let t = process.hrtime.bigint();
      spawnSync('sh', ['-c', ':'], { input: readEvent });
      noop.push(ms(t));
      t = process.hrtime.bigint();
      spawnSync(shim, ['hook', '--storage', dir], { input: readEvent });
      viaShim.push(ms(t));
    }
    report(
      'hook on a non-terminal tool (shim, no Node) vs sh -c :',
      `${median(viaShim).toFixed(1)} ms vs ${median(noop).toFixed(1)} ms: +${(median(viaShim) - median(noop)).toFixed(1)} ms`,
      '≤ 10 ms',
    );
    const sizes = [0, Number(process.env.BENCH_ROUTING_RUNS ?? 100_000)].filter((n, i) => i === 0 || n > 0);
    for (const n of sizes) {
      const storage = path.join(dir, `store-${n}`);
      mkdirSync(storage);
      if (n > 0) await seed(storage, n);
      for (const command of ['echo hi', 'node demo/build-log.js 38400']) {
        const r = await measure(shim, storage, command);
        report(
          `${command} routed vs bare, ${n.toLocaleString('en')} runs`,
          `${r.routed.toFixed(1)} ms vs ${r.bare.toFixed(1)} ms: +${(r.routed - r.bare).toFixed(1)} ms (hook ${r.hook.toFixed(1)} ms)`,
          command === 'echo hi' ? '≤ 100 ms' : undefined,
        );
      }
    }
    console.log(
      `medians of ${STEPS} alternating steps; load average ${(await import('node:os'))
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    cleanup();
  }
}

void main();
