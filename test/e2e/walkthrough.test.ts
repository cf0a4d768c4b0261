/**
 * The walkthrough on the first start (src/extension/views/firstStart.ts). VS Code
 * opens an extension's walkthrough only when it is installed while a window is open, so an
 * extension installed beforehand (as `npm start` does) opens it itself: once per profile,
 * gated on `workbench.welcomePage.walkthroughs.openOnInstall`. One server with the setting on:
 * each browser context is a fresh profile (the extension's globalState lives in the browser's
 * storage), a reload of the page is the same profile's next start; at 900×700 and 1920×1080.
 * One with the setting off (the harness's default).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '../harness/tools.js';
import { extensionLogs, outputDir, type Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

/** package.json `contributes.walkthroughs[0].title`. */
const TITLE = 'Get Started with Bounded Evidence';
// VS Code restores the editors open at the last shutdown (the walkthrough among them, as it should);
// without that, what the next start shows is only what was opened during it.
const ON = { 'workbench.welcomePage.walkthroughs.openOnInstall': true, 'workbench.editor.restoreEditors': false };

const count = (wb: Workbench, re: RegExp): number =>
  extensionLogs(wb)
    .flat()
    .filter((l) => re.test(l)).length;

/** Waits until `re` has matched more than `before` log lines (an activation, a decision). */
async function logged(wb: Workbench, re: RegExp, before: number): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (count(wb, re) <= before) {
    if (Date.now() > deadline) throw new Error(`not logged within 90 s: ${re}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The walkthrough's own page (VS Code's Welcome page lists walkthroughs with an h3). */
const walkthroughTitle = (page: Page) => page.locator('.gettingStartedContainer h2.category-title', { hasText: TITLE });
/** VS Code names the walkthrough's editor "Welcome" (nothing else here opens one: the harness skips the Welcome page). */
const walkthroughTab = (page: Page) => page.locator('.tabs-container .tab', { hasText: 'Welcome' });

const OPENED = /first start: the walkthrough opened/;
const SPENT = /first start: spent in this profile, the walkthrough is not opened/;
const OFF = /first start: the walkthrough is not opened \(workbench\.welcomePage\.walkthroughs\.openOnInstall is off\)/;

describe('the walkthrough on the first start', function () {
  this.timeout(300_000);
  let wb: Workbench;
  const contexts: BrowserContext[] = [];

  before(async () => {
    // The harness's own page is a first start too (at 1400×900): let it finish, so that each case
    // below is the only window starting (its activation is the next one logged).
    wb = await openWorkbench({ label: 'walkthrough', userSettings: ON });
    await walkthroughTitle(wb.page).waitFor({ state: 'visible', timeout: 90_000 });
    await logged(wb, OPENED, 0);
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeWorkbench(wb);
  });

  /** A fresh profile's first start at this size. */
  async function firstStart(width: number, height: number): Promise<Page> {
    const context = await wb.browser.newContext({ viewport: { width, height } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(wb.url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    return page;
  }

  for (const [width, height] of [
    [900, 700],
    [1920, 1080],
  ] as const) {
    it(`opens by itself on a first start with the setting on, and not on the next start (${width}×${height})`, async () => {
      const opened = count(wb, OPENED);
      const page = await firstStart(width, height);
      await walkthroughTitle(page).waitFor({ state: 'visible', timeout: 90_000 });
      await logged(wb, OPENED, opened);
      // The whole title is on screen, in the editor area, in the active tab.
      const box = await walkthroughTitle(page).boundingBox();
      assert.ok(
        box && box.x >= 0 && box.x + box.width <= width && box.y >= 0 && box.y + box.height <= height,
        `title on screen: ${JSON.stringify(box)}`,
      );
      assert.equal((await page.locator('.tabs-container .tab.active').textContent())?.trim(), 'Welcome');
      // Its description is whole (VS Code clamps it to three lines with an ellipsis).
      const clamped = await page
        .locator('.gettingStartedSlideDetails .category-description')
        .evaluateAll((els) =>
          els.filter((e) => e.getClientRects().length > 0).map((e) => e.scrollHeight > e.clientHeight + 1),
        );
      assert.deepEqual(clamped, [false], 'the walkthrough description fits its three lines');
      await page.screenshot({ path: path.join(outputDir, 'e2e', `walkthrough-first-start-${width}x${height}.png`) });

      // The same profile's next start must not open it again.
      const spent = count(wb, SPENT);
      const openedBefore = count(wb, OPENED);
      await page.reload();
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      // Once decided, nothing opens it later.
      await logged(wb, SPENT, spent);
      assert.equal(await walkthroughTab(page).count(), 0, 'no walkthrough tab on the second start');
      assert.equal(await walkthroughTitle(page).count(), 0);
      assert.equal(count(wb, OPENED), openedBefore);
      await page.context().close();
    });
  }

  it('ticks "Read what the model did not see" once a window is read, not when the views open; no path in the label', async () => {
    const page = wb.page;
    await page.setViewportSize({ width: 900, height: 700 });
    // Opened again each time, so the steps are drawn from the current state.
    const welcome = async (): Promise<void> => {
      await wb.runCommand('Welcome: Open Walkthrough...');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: TITLE }).first().click();
      // The tab was open already: the pick is done once the picker closed and the step has the focus, and only then
      // may the palette open (the focus coming late closed it before its command ran).
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
      await page.locator('.gettingStartedContainer .getting-started-step.expanded:focus').waitFor();
      await walkthroughTitle(page).waitFor({ state: 'visible' });
    };
    const readStep = page.locator('.getting-started-step', { hasText: 'Read what the model did not see' });
    const captureStep = page.locator('.getting-started-step', { hasText: 'Capture a build log' });
    await welcome();
    // The step's tick box says whether it is done.
    const done = (step: typeof readStep): Promise<string | null> =>
      step.locator('[data-done-step-id]').getAttribute('aria-checked');
    assert.equal(await done(readStep), 'false');
    await wb.runCommand('Bounded Evidence: Capture the Demo Build Log');
    const view = wb.webview();
    await view.locator('#detail-outcome', { hasText: /exit 1/ }).waitFor({ timeout: 120_000 });
    // The run is named without the extension's folder.
    const runRow = view.locator('.vlist-row[data-kind="run"]').first();
    const label = (await runRow.locator('.c1').textContent()) ?? '';
    assert.equal(label, 'run: node build-log.js (the demo build)');
    assert.ok(
      !label.includes(repoRoot) && !((await runRow.locator('.c1').getAttribute('title')) ?? '').includes(repoRoot),
    );
    // Opening the inspector, an output and the Runs view reads nothing yet.
    await view.locator('.vlist-row[data-kind="part"]', { hasText: 'stdout' }).first().click();
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
    await page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    await page.locator('.pane-header[aria-label^="Runs"]').waitFor();
    await welcome();
    assert.equal(await done(captureStep), 'true');
    assert.equal(await done(readStep), 'false');
    await page.screenshot({ path: path.join(outputDir, 'e2e', 'walkthrough-read-before-900x700.png') });
    // A person reads a window of lines.
    await page.locator('.tabs-container .tab', { hasText: 'Evidence Inspector' }).click();
    await view.locator('vscode-tab-header', { hasText: 'Lines' }).click();
    await view.locator('#lines-from input').fill('19201');
    await view.locator('#lines-from input').press('Enter');
    await view.locator('#window-position', { hasText: 'lines 19,201' }).waitFor({ timeout: 30_000 });
    await welcome();
    await readStep.locator('[data-done-step-id][aria-checked="true"]').waitFor();
    await page.screenshot({ path: path.join(outputDir, 'e2e', 'walkthrough-read-after-900x700.png') });
  });

  it('does not open when workbench.welcomePage.walkthroughs.openOnInstall is off', async () => {
    // The harness's default, on a server of its own (the setting is machine-scoped: read from the server's settings).
    const off = await openWorkbench({ label: 'walkthrough-off' });
    try {
      await off.page.setViewportSize({ width: 900, height: 700 });
      // Once decided, nothing opens it later.
      await logged(off, OFF, 0);
      assert.equal(await walkthroughTab(off.page).count(), 0);
      assert.equal(await walkthroughTitle(off.page).count(), 0);
      assert.equal(count(off, OPENED), 0);
    } finally {
      await closeWorkbench(off);
    }
  });
});
