/**
 * The Savings view and the status bar in a real workbench. Runs are recorded the
 * way agents record them, by other processes the editor hears nothing from: the built command
 * line's `capture`, `read` (a read back by handle) and `keep` (a routed command) on the
 * editor's own storage. The status bar must count them (it once said "0 runs" while the
 * inspector listed 23 routed calls), its label must carry the week's savings, and the view's
 * figures must be the core's report for the same storage, at 900×700 and 1920×1080, with
 * axe-core finding nothing serious or critical.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { openSession } from '../../src/cli/session.js';
import { findFile, type Workbench } from '../harness/workbench.js';
import { repoRoot } from '../harness/tools.js';
import { axeIn } from './axe.js';
import { closeWorkbench, openWorkbench } from './session.js';
import { layoutSettled } from './settle.js';
import { setTheme } from './theme.js';

const CLI = path.join(repoRoot, 'dist', 'cli.js');

/** `1.5 MiB` as the page's format.ts writes it. */
function human(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0
    ? `${n.toLocaleString('en-US')} ${n === 1 ? 'byte' : 'bytes'}`
    : `${v < 10 ? v.toFixed(1) : Math.round(v).toString()} ${units[u]}`;
}

describe('Savings view and status bar in a real workbench', function () {
  this.timeout(240_000);
  let wb: Workbench;
  let storage: string;

  const cli = (...args: string[]): string => {
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: wb.workspaceDir });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };

  before(async () => {
    wb = await openWorkbench({ label: 'savings', colorTheme: 'Default Dark Modern' });
    // One capture from the palette makes the editor's storage (a person's: it saves nothing).
    await wb.capture('echo seeded by a person');
    let log: string | undefined;
    for (let i = 0; i < 120 && !log; i++) {
      log = findFile(wb.server.runDir, (f) => /\/evidence\/logs\/[^/]+\/run-[^/]+\.jsonl$/.test(f));
      if (!log) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(log, 'the palette capture was recorded');
    storage = path.resolve(path.dirname(log), '..', '..', '..');
    // What agents do, from other processes: two large captures, a small one, a routed command, reads back.
    const big = cli('capture', '--storage', storage, '--shell', 'seq 1 40000');
    cli('capture', '--storage', storage, '--shell', 'yes "npm ERR! peer dep" | head -c 300000');
    cli('capture', '--storage', storage, '--shell', 'echo small');
    const spool = path.join(storage, 'evidence', 'spool', 'e2e1');
    mkdirSync(spool, { recursive: true });
    writeFileSync(path.join(spool, '1'), 'PASS '.repeat(20_000));
    writeFileSync(path.join(spool, '2'), '');
    writeFileSync(path.join(spool, 'command'), 'pytest -q');
    writeFileSync(
      path.join(spool, 'meta.json'),
      JSON.stringify({ agent: 'claude', routedAt: new Date().toISOString(), cwd: wb.workspaceDir }),
    );
    const routed = spawnSync(process.execPath, [CLI, 'keep', spool, '0', '4096'], {
      encoding: 'utf8',
      cwd: wb.workspaceDir,
    });
    assert.equal(routed.status, 0, routed.stderr);
    const handle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(big)![1]!;
    cli('read', handle, '--storage', storage, '--pattern', '^3999[0-9]$');
    cli('read', handle, '--storage', storage, '--offset', '100', '--limit', '5');
  });
  after(() => closeWorkbench(wb));

  it("the status bar counts runs other processes recorded, and its label carries the week's savings", async () => {
    const session = await openSession(storage);
    const totals = await session.runs.totals();
    const week = (await session.runs.usage({ sinceMs: Date.now() - 7 * 86_400_000 })).total;
    session.runs.close();
    assert.equal(totals.runs, 5);
    // Polled from the catalog (nothing of these processes' records reaches the editor): within a few seconds.
    const item = wb.page.locator('.statusbar-item', { hasText: /\b5 runs · / }).first();
    await item.waitFor({ timeout: 30_000 });
    // The label follows the catalog within one poll (5 s) of the last record.
    const labelOf = async (): Promise<string> =>
      (await item.locator('a, [role="button"]').first().getAttribute('aria-label')) ?? '';
    await item
      .locator('a[aria-label*=" in 2 reads;"], [role="button"][aria-label*=" in 2 reads;"]')
      .first()
      .waitFor({ timeout: 30_000 });
    const label = await labelOf();
    assert.match(label, /^Bounded Evidence: 5 runs · /);
    assert.match(label, new RegExp(`Last 7 days: ${week.outputs} outputs \\(`));
    assert.match(label, / read back [0-9.]+ (bytes|KiB) in 2 reads; saved [0-9.]+ (KiB|MiB)\./);
  });

  async function savingsFrame(): Promise<Frame> {
    for (let i = 0; i < 60; i++) {
      for (const f of wb.page.frames()) {
        if (
          await f
            .locator('#savings')
            .count()
            .catch(() => 0)
        )
          return f;
      }
      await wb.page.waitForTimeout(500);
    }
    throw new Error('the Savings view did not load');
  }

  it("the Savings view shows the core's figures, a chart with its table, at 900×700 and 1920×1080, axe clean in dark and light", async () => {
    // The sidebar as a person leaves it: no editor or chat beside it taking the width.
    await wb.runCommand('View: Close All Editors');
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    const header = wb.page.locator('.pane-header', { hasText: 'Savings' });
    await header.waitFor({ timeout: 30_000 });
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    // The Runs tree collapsed: the Savings view gets the sidebar's height.
    const runs = wb.page.locator('.pane-header[aria-label^="Runs"]').first();
    if ((await runs.getAttribute('aria-expanded')) === 'true') await runs.locator('h3.title').click();
    await wb.page.locator('.pane-header[aria-label^="Runs"][aria-expanded="false"]').waitFor();
    const frame = await savingsFrame();
    await frame.locator('#savings[aria-busy="false"] .totals').waitFor({ timeout: 30_000 });
    const session = await openSession(storage);
    const now = Date.now();
    const r = await session.runs.usage({ sinceMs: now - 7 * 86_400_000, untilMs: now, by: 'command', limit: 1000 });
    session.runs.close();
    const dd = await frame.locator('.totals dd').allTextContents();
    // The person's palette capture is the one output no model reached.
    assert.equal(r.total.unreachedOutputs, 1);
    const reached = r.total.outputBytes - r.total.unreachedBytes;
    assert.equal(
      dd[0],
      // The denominator said: saved is a share of the output a model reached; the person's capture counted apart.
      `${human(r.total.savedBytes)} (${((100 * r.total.savedBytes) / reached).toFixed(1)}% of the ` +
        `${human(reached)} of output a model reached; ${human(r.total.unreachedBytes)} in 1 output no model ` +
        "reached (a person's own captures) counted apart)",
    );
    assert.equal(dd[1], `${r.total.outputs} · ${human(r.total.outputBytes)}`);
    assert.equal(dd[3], `${human(r.total.readBytes)} in 2 reads of 1 output`);
    // Top commands by saved: the core's order and figures (the person's palette capture saved nothing).
    const saved = frame.locator('table', { has: frame.locator('caption', { hasText: 'Commands by bytes saved' }) });
    const names = await saved.locator('tbody th').allTextContents();
    assert.deepEqual(
      names,
      r.groups.filter((g) => g.savedBytes > 0).map((g) => g.key),
    );
    assert.deepEqual(names.slice().sort(), ['pytest', 'seq', 'yes']);
    const recalls = frame.locator('table', { has: frame.locator('caption', { hasText: 'Commands by reads back' }) });
    assert.deepEqual(await recalls.locator('tbody tr').first().locator('th, td').allTextContents(), [
      'seq',
      '2',
      '1',
      human(r.groups.find((g) => g.key === 'seq')!.readBytes),
    ]);
    // The chart is one labelled image, with bars for today's bytes; its table has the same figures.
    const chart = frame.locator('canvas.chart[role="img"]');
    assert.match((await chart.getAttribute('aria-label')) ?? '', /^Bytes per day, log scale: /);
    // Bars are drawn in each series' theme colour: count the canvas pixels of each.
    // (A string, not a function: tsx would name the arrows with a helper the page does not have.)
    const painted = (await frame.evaluate(`(() => {
      const c = document.querySelector('canvas.chart');
      const probe = document.createElement('canvas').getContext('2d');
      const css = getComputedStyle(document.body);
      const want = ['--vscode-charts-blue', '--vscode-charts-orange', '--vscode-charts-green'].map((n) => {
        probe.clearRect(0, 0, 1, 1); probe.fillStyle = css.getPropertyValue(n).trim(); probe.fillRect(0, 0, 1, 1);
        return Array.from(probe.getImageData(0, 0, 1, 1).data.slice(0, 3)).join(',');
      });
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const counts = want.map(() => 0);
      // Within 3 of each channel: a theme colour with alpha comes back from the canvas rounded.
      const near = (i, w) => { const [r, g, b] = w.split(',').map(Number); return Math.abs(px[i] - r) <= 3 && Math.abs(px[i + 1] - g) <= 3 && Math.abs(px[i + 2] - b) <= 3 && px[i + 3] > 0; };
      for (let i = 0; i < px.length; i += 4) { const k = want.findIndex((w) => near(i, w)); if (k !== -1) counts[k]++; }
      return counts;
    })()`)) as number[];
    assert.ok(
      painted.every((n) => n > 20),
      `pixels of the kept, shown and read-back bars: ${painted.join(', ')}`,
    );
    const day = frame.locator('table', { has: frame.locator('caption', { hasText: 'Bytes per day' }) });
    const today = await day.locator('tbody tr').first().locator('th, td').allTextContents();
    assert.deepEqual(today.slice(1), [
      human(r.total.outputBytes),
      human(r.total.shownBytes),
      human(r.total.readBytes),
      human(r.total.savedBytes),
    ]);
    for (const [w, h] of [
      [900, 700],
      [1920, 1080],
    ] as const) {
      await wb.page.setViewportSize({ width: w, height: h });
      const f = await savingsFrame();
      await layoutSettled(wb.page, f);
      const findings = (await axeIn(f)).filter((x) => x.impact === 'serious' || x.impact === 'critical');
      assert.deepEqual(findings, [], `${w}×${h}: ${JSON.stringify(findings)}`);
      // Nothing wider than the view: no horizontal scroll bar in the sidebar.
      const overflow = (await f.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number;
      assert.ok(overflow <= 1, `${w}×${h}: ${overflow} px wider than the view`);
      await wb.screenshot(`savings-${w}x${h}`);
    }
    // The light theme too: axe clean there as well.
    await wb.page.setViewportSize({ width: 900, height: 700 });
    await setTheme(wb, frame, 'Default Light Modern');
    const light = (await axeIn(frame)).filter((x) => x.impact === 'serious' || x.impact === 'critical');
    assert.deepEqual(light, [], `light: ${JSON.stringify(light)}`);
    await wb.screenshot('savings-light-900x700');
    // The range buttons ask the host again; a 30-day range keeps the same totals here.
    await frame.locator('.ranges button', { hasText: '30 days' }).click();
    await frame.locator('.ranges button[aria-pressed="true"]', { hasText: '30 days' }).waitFor();
    assert.equal(await frame.locator('.totals dd').first().textContent(), dd[0]);
  });
});
