/**
 * The inspector's third pass, in a real workbench: the detail reachable at 200% zoom in a
 * 900×700 window (1), whole sizes, handles and stream names and actions on at most two rows
 * in VS Code's default layout (side bar and chat open) and with them closed (2), a filter
 * that matches nothing says so and offers "Clear filters" (8), and the list, the Runs view and
 * the status bar follow a run the command line records (3). Screenshots go to
 * test-output/e2e/third-pass-*.png.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { CDPSession, FrameLocator, Locator } from 'playwright-core';
import { repoRoot } from '../harness/tools.js';
import { findFile, type Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

const fixtures = path.join(__dirname, 'fixtures', 'workspace');

/** Browser globals used inside `evaluate` callbacks (they run in the page, not in Node). */
interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
  width: number;
}
interface El {
  getBoundingClientRect(): Box;
  textContent: string | null;
  closest(s: string): El | null;
}
interface Doc {
  querySelector(s: string): El | null;
  querySelectorAll(s: string): El[];
  createRange(): { selectNodeContents(n: El): void; getBoundingClientRect(): Box };
}
interface Win {
  document: Doc;
  getComputedStyle(e: El): { paddingLeft: string; paddingRight: string; display: string };
}

/**
 * Cells of the list whose text is cut (the text's own extent against the cell's content box, to the subpixel)
 * or that end past the list's edge: stream names, sizes, handles and the status words where shown.
 */
async function cutCells(view: FrameLocator): Promise<string[]> {
  return await view.locator('body').evaluate(() => {
    const w = globalThis as unknown as Win;
    const doc = w.document;
    const edge = doc.querySelector('#calls')!.getBoundingClientRect().right;
    const sel = [
      '.vlist-row[data-kind="part"] .c1',
      '.vlist-row .c4',
      '.vlist-row[data-kind="call"] .c5',
      '.vlist-row[data-kind="part"] .c5',
      '.vlist-row .c3 .st-text',
    ].join(', ');
    return [...doc.querySelectorAll(sel)].flatMap((c) => {
      const box = c.getBoundingClientRect();
      if (box.width <= 1) return [];
      const st = w.getComputedStyle(c);
      // The status words are visually hidden in the compact column (its icon shows).
      if (c.closest('.split[data-layout="compact"]') && (c.textContent ?? '').length > 0 && box.width <= 1) return [];
      const range = doc.createRange();
      range.selectNodeContents(c);
      const text = range.getBoundingClientRect().width;
      const room = box.width - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
      if (text > room + 0.25) return [`cut: ${c.textContent}`];
      if (box.right > edge + 0.5) return [`past the edge: ${c.textContent}`];
      return [];
    });
  });
}

/** How many rows the detail's action buttons take. */
async function actionRows(view: FrameLocator): Promise<number> {
  const tops = await view
    .locator('.actions > vscode-button')
    .evaluateAll((bs) =>
      (bs as unknown as El[]).map((b) => Math.round(b.getBoundingClientRect().top)).filter((t) => Number.isFinite(t)),
    );
  return new Set(tops).size;
}

describe('Inspector, third pass, in a real workbench', function () {
  this.timeout(300_000);
  let wb: Workbench;
  let view: FrameLocator;
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();

  /** Sets the window's size, at 100% or 200% zoom (as a browser applies it: half the CSS pixels, twice the density). */
  async function size(width: number, height: number, zoom: 1 | 2, cdp: CDPSession): Promise<void> {
    await wb.page.setViewportSize({ width: width / zoom, height: height / zoom });
    if (zoom === 2)
      await cdp.send('Emulation.setDeviceMetricsOverride', {
        width: width / 2,
        height: height / 2,
        deviceScaleFactor: 2,
        mobile: false,
      });
    else await cdp.send('Emulation.clearDeviceMetricsOverride');
    // The panel lays out again at the new size: wait until its width is the one it reports.
    await wb.page.waitForFunction(
      ([w, h]) => {
        const g = globalThis as unknown as { innerWidth: number; innerHeight: number };
        return g.innerWidth === w && g.innerHeight === h;
      },
      [width / zoom, height / zoom],
    );
    await view.locator('#split[data-layout]').waitFor();
  }

  /** Closes the side bar and the chat (once; the tests after need them closed too). */
  async function closeSideBars(): Promise<void> {
    if (!(await wb.page.locator('.part.sidebar').isVisible())) return;
    await wb.runCommand('View: Close Primary Side Bar');
    await wb.runCommand('View: Hide Secondary Side Bar');
    await wb.page.locator('.part.sidebar').waitFor({ state: 'hidden' });
    await wb.page.locator('.part.auxiliarybar').waitFor({ state: 'hidden' });
  }

  /** Selects the big log's stdout (filtered to it, then the filter cleared). */
  async function selectBigStdout(): Promise<void> {
    await view.locator('#filter-text input').fill('big-log');
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stdout' }).first().click();
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
    await view.locator('#filter-text input').fill('');
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
  }

  before(async () => {
    wb = await openWorkbench({ label: 'third-pass', workspaceTemplate: fixtures, colorTheme: 'Default Light Modern' });
    view = wb.webview();
    await wb.capture('node big-log.js');
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 90_000 });
    await wb.capture(`node -e "process.stderr.write('boom\\n'); process.exitCode = 2"`);
    await view.locator('#detail-outcome', { hasText: 'exit 2' }).waitFor({ timeout: 60_000 });
    await wb.capture('echo hi');
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor({ timeout: 60_000 });
  });
  after(async () => {
    await closeWorkbench(wb);
  });

  // The default layout first (side bar and chat open), then with them closed.
  for (const layout of ['default', 'closed'] as const) {
    for (const [width, height, zoom] of [
      [1920, 1080, 1],
      [900, 700, 1],
      [1920, 1080, 2],
      [900, 700, 2],
    ] as const) {
      // 200% in a 900×700 window with the side bar and the chat open leaves the editor a sliver: a person closes them.
      if (layout === 'default' && width === 900 && zoom === 2) continue;
      const name = `${width}×${height}${zoom === 2 ? ' at 200%' : ''}, ${layout === 'default' ? 'side bar and chat open' : 'side bar and chat closed'}`;
      const shot = `third-pass-2-${layout}-${width}x${height}-${zoom * 100}`;

      it(`2 · ${name}: no size, handle or stream name is cut; the actions take at most two rows`, async () => {
        if (layout === 'closed') await closeSideBars();
        const cdp = await wb.page.context().newCDPSession(wb.page);
        try {
          await size(width, height, zoom, cdp);
          await selectBigStdout();
          await view.locator('.vlist-row[data-kind="part"]', { hasText: 'stdout' }).first().waitFor();
          // Sizes are whole and human; the exact count is in the tooltip.
          const big = view.locator('.vlist-row.selected .c4');
          assert.match(await text(big), /^\d+(\.\d)? MiB$/);
          assert.match((await big.getAttribute('title')) ?? '', /^[\d,]+ bytes$/);
          await wb.screenshot(shot);
          assert.deepEqual(await cutCells(view), []);
          await view.locator('.actions').scrollIntoViewIfNeeded();
          await wb.screenshot(`${shot}-actions`);
          const rows = await actionRows(view);
          const widths = await view
            .locator('.actions > vscode-button')
            .evaluateAll((bs) => (bs as unknown as El[]).map((b) => Math.round(b.getBoundingClientRect().width)));
          assert.ok(rows <= 2, `the actions take ${rows} rows: ${widths.join(', ')}`);
        } finally {
          await cdp.detach().catch(() => undefined);
        }
      });
    }
  }

  it('1 · 200% zoom in 900×700 (side bar and chat closed): the detail is reachable and the splitter moves it', async () => {
    await closeSideBars();
    const cdp = await wb.page.context().newCDPSession(wb.page);
    try {
      await size(900, 700, 2, cdp);
      await selectBigStdout();
      const detail = view.locator('section.detail');
      const box = async (l: Locator): Promise<{ y: number; height: number }> => (await l.boundingBox())!;
      const rowH = (await box(view.locator('.vlist-row').first())).height;
      const before = (await box(detail)).height;
      assert.ok(before >= 3 * rowH, `the detail is ${before} px tall`);
      // What the model saw and the actions are there by scrolling the detail.
      for (const sel of ['#detail-title', '#preview-heading', '.actions']) {
        await view.locator(sel).first().scrollIntoViewIfNeeded();
        const b = await box(view.locator(sel).first());
        const d = await box(detail);
        assert.ok(b.y >= d.y - 1 && b.y < d.y + d.height, `${sel} is not in the detail's view`);
      }
      await wb.screenshot('third-pass-1-zoom-200-900x700');
      // The splitter follows both ways: Home gives the detail more, End the list more.
      const splitter = view.locator('#splitter');
      await splitter.focus();
      await splitter.press('Home');
      assert.ok((await box(detail)).height > before, 'Home did not give the detail more room');
      await wb.screenshot('third-pass-1-zoom-200-900x700-home');
      await splitter.press('End');
      assert.ok((await box(detail)).height < before, 'End did not give the list more room');
      await splitter.press('Home');
      for (let i = 0; i < 5; i++) await splitter.press('ArrowDown');
    } finally {
      await cdp.send('Emulation.clearDeviceMetricsOverride').catch(() => undefined);
      await cdp.detach().catch(() => undefined);
      await wb.page.setViewportSize({ width: 1400, height: 900 });
    }
  });

  for (const [width, height] of [
    [900, 700],
    [1920, 1080],
  ] as const) {
    it(`8 · ${width}×${height}: a filter that matches nothing says so, and "Clear filters" brings the calls back`, async () => {
      await wb.page.setViewportSize({ width, height });
      const notice = view.locator('#no-match');
      assert.equal(await notice.isVisible(), false);
      await view.locator('#filter-text input').fill('no call is named like this');
      await view.locator('#list-summary', { hasText: /^0 of 3 calls$/ }).waitFor();
      await notice.waitFor({ state: 'visible' });
      assert.equal(await text(notice.locator('.reveal-text')), 'No calls match the filters.');
      await wb.screenshot(`third-pass-8-no-match-${width}x${height}`);
      await view.locator('#no-match-clear').click();
      await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
      assert.equal(await view.locator('#filter-text input').inputValue(), '');
      await notice.waitFor({ state: 'hidden' });
    });
  }

  it("11 · the preview's labelled boxes are regions (a label on a plain box names nothing)", async () => {
    await selectBigStdout();
    for (const id of ['preview-errors', 'preview-head', 'preview-tail'])
      assert.equal(await view.locator(`#${id}`).getAttribute('role'), 'region', id);
  });

  it('3 · a run the command line records shows in the list, the Runs view and the status bar without Refresh', async () => {
    await wb.page.setViewportSize({ width: 1400, height: 900 });
    const log = findFile(wb.server.runDir, (f) => /\/evidence\/logs\/[^/]+\/run-[^/]+\.jsonl$/.test(f));
    assert.ok(log, 'the palette captures were recorded');
    const storage = path.resolve(path.dirname(log), '..', '..', '..');
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
    const r = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'dist', 'cli.js'), 'capture', '--storage', storage, '--shell', 'echo from the command line'],
      { encoding: 'utf8', cwd: wb.workspaceDir },
    );
    assert.equal(r.status, 0, r.stderr);
    // No Refresh pressed: the store's watch brings the run in.
    await view.locator('#list-summary', { hasText: /^4 of 4 calls$/ }).waitFor({ timeout: 30_000 });
    await view.locator('.vlist-row[data-kind="run"]', { hasText: 'echo from the command line' }).waitFor();
    await wb.page
      .locator('.statusbar-item', { hasText: /\b4 runs · / })
      .first()
      .waitFor({ timeout: 30_000 });
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    await wb.page
      .locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list .monaco-list-row', {
        hasText: 'echo from the command line',
      })
      .waitFor({ timeout: 30_000 });
    await wb.screenshot('third-pass-3-live-from-cli');
  });
});
