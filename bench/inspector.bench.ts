/**
 * The inspector's first rows at scale, through the real host: a served
 * workbench with this extension, whose workspace storage is seeded with
 * `BENCH_INSPECTOR_RUNS` runs (default 100,000; the same seeding as bench/scale.bench.ts:
 * one run in three with two calls, one call in ten with a 2.3 MB stdout), then the
 * Evidence Inspector opened from the palette several times. Printed: the host's answer
 * to the first page (asked → answered, in the page), first rows drawn, and the wall time
 * from the command to the first call row; medians over the opens, the first open apart
 * (it is the extension's first listing after start-up). Needs the test tools
 * (`BE_TOOLS_DIR`) and `node esbuild.js` first.
 */
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { CATALOG_FILE } from '../src/core/runs/catalog/catalog.js';
import { findFile, Workbench, type WorkbenchOptions } from '../test/harness/workbench.js';
import { seed } from './scale.bench.js';
import { median, report } from './util.js';

const RUNS = Number(process.env.BENCH_INSPECTOR_RUNS ?? 100_000);
const OPENS = 5;

/** A served workbench whose workspace storage holds `runs` seeded runs besides one captured run. */
export interface SeededWorkbench {
  wb: Workbench;
  /** What `seed` returned: known handles, calls, files, seconds. */
  seeded: Awaited<ReturnType<typeof seed>>;
  tenantDir: string;
}

/**
 * Opens a served workbench with this extension (retention kept from deleting the seeded
 * runs), lets one capture create the workspace's evidence storage (its place names the
 * tenant), then seeds `runs` runs into that storage with a fresh catalog. The running
 * extension host does not know them yet: `reload` starts the one that opens them.
 * `ready` is awaited before the capture (host.bench.ts lets its probe measure the empty
 * workspace first).
 */
export async function seededWorkbench(
  label: string,
  runs: number,
  opts: Pick<WorkbenchOptions, 'payload' | 'onExit' | 'onLog'> & { ready?: () => Promise<void> } = {},
): Promise<SeededWorkbench> {
  // Retention would delete the seeded runs older than 30 days in the background: keep them all.
  const wb = await Workbench.open({
    label,
    workspaceSettings: {
      'boundedEvidence.retention.maxAgeDays': 3650,
      'boundedEvidence.retention.maxStorageMB': 1_000_000,
    },
    ...opts,
  });
  try {
    await opts.ready?.();
    await wb.capture('echo first');
    await wb.webview().locator('.vlist-row[data-kind="call"]').first().waitFor({ timeout: 120_000 });
    const log = findFile(
      wb.server.runDir,
      (f) => f.endsWith('.jsonl') && f.includes('bounded-evidence') && f.includes(`${path.sep}logs${path.sep}`),
    );
    assert.ok(log, 'no run log in the workspace storage');
    const tenantDir = path.dirname(log);
    const root = path.dirname(path.dirname(tenantDir));
    // A fresh catalog database written by the seeder (it indexes the capture's own log too, listing the folder at the end).
    for (const f of ['', '-wal', '-shm']) rmSync(path.join(tenantDir, `${CATALOG_FILE}${f}`), { force: true });
    const seeded = await seed(root, runs, path.basename(tenantDir));
    console.log(
      `${runs.toLocaleString('en')} runs, ${seeded.calls.toLocaleString('en')} calls, ${seeded.files.toLocaleString('en')} files and folders seeded in ${seeded.seconds.toFixed(1)} s`,
    );
    return { wb, seeded, tenantDir };
  } catch (e) {
    await wb.close();
    throw e;
  }
}

/** Reloads the window: a new extension host opens the storage (what a person gets the next morning). */
export async function reload(wb: Workbench): Promise<void> {
  await wb.runCommand('View: Close All Editors');
  await wb.runCommand('Developer: Reload Window');
  await wb.page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
}

async function main(): Promise<void> {
  const { wb, seeded: s } = await seededWorkbench('bench-inspector', RUNS);
  try {
    const view = wb.webview();
    const t0 = Date.now();
    await reload(wb);
    // Every seeded call listed (the capture's own run joins when the store's background check has indexed it).
    const listed = async (): Promise<void> => {
      const summary = view.locator('#list-summary', { hasText: /^([\d,]+) of \1 calls$/ });
      await summary.waitFor({ timeout: 600_000 });
      const n = Number(/^([\d,]+)/.exec((await summary.textContent()) ?? '')![1]!.replace(/,/g, ''));
      assert.ok(n >= s.calls, `${n} calls listed, ${s.calls} seeded`);
    };
    const opens: { wall: number; host: number; rows: number }[] = [];
    for (let k = 0; k < OPENS; k++) {
      await wb.runCommand('View: Close All Editors');
      await wb.page
        .locator('iframe.webview.ready')
        .waitFor({ state: 'detached', timeout: 30_000 })
        .catch(() => undefined);
      const t = Date.now();
      await wb.runCommand('Bounded Evidence: Open Inspector');
      await listed();
      await view.locator('.vlist-row[data-kind="call"]').first().waitFor({ timeout: 60_000 });
      const wall = Date.now() - t;
      const d = await view
        .locator('body')
        .evaluate((b) => ({ ...(b as unknown as { dataset: Record<string, string> }).dataset }));
      opens.push({
        wall,
        host: Number(d.firstPageMs) - Number(d.pageAskedMs),
        rows: Number(d.firstRowsMs) - Number(d.pageAskedMs),
      });
      if (k === 0)
        console.log(
          `reload to the first inspector rows: ${((Date.now() - t0) / 1000).toFixed(1)} s (activation, catalog open, first page)`,
        );
    }
    const [first, ...rest] = opens;
    report(
      'first open after start-up: page asked → answered / first rows drawn / command → first call row (ms)',
      `${first!.host.toFixed(0)} / ${first!.rows.toFixed(0)} / ${first!.wall}`,
    );
    report(
      `next ${rest.length} opens, median: page asked → answered (ms)`,
      median(rest.map((o) => o.host)).toFixed(0),
      '< 300',
    );
    report('  median: page asked → first rows drawn (ms)', median(rest.map((o) => o.rows)).toFixed(0), '< 300');
    report('  median: command → first call row, wall (ms)', String(median(rest.map((o) => o.wall))));
    // Scrolling far: the page there is asked and answered.
    const list = view.locator('#calls');
    const times: number[] = [];
    for (const f of [0.25, 0.5, 0.75, 0.999]) {
      const t = Date.now();
      await list.evaluate((el, at) => {
        const vp = el as unknown as { scrollTop: number; scrollHeight: number; clientHeight: number };
        vp.scrollTop = at * (vp.scrollHeight - vp.clientHeight);
      }, f);
      await view.locator('#calls:not([aria-busy="true"])').waitFor({ timeout: 60_000 });
      await view
        .locator('.vlist-row[data-kind="pending"]:not([hidden])')
        .first()
        .waitFor({ state: 'detached', timeout: 60_000 });
      times.push(Date.now() - t);
    }
    report(
      'scroll to 25/50/75/100 % → rows there drawn, median (ms)',
      `${median(times).toFixed(0)} (${times.join(', ')})`,
    );
    await wb.screenshot(`bench-inspector-${RUNS}`);
  } finally {
    await wb.close();
  }
}

// Run as a benchmark, not when another bench imports `seededWorkbench`.
if (require.main === module)
  void main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
