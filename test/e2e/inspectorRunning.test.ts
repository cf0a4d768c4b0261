/**
 * A running command in a real workbench, in VS Code's default layout (side bar and chat open): the inspector
 * follows to the new call as soon as it starts and shows it running with its bytes so far, and so does its run's
 * row in the list and the Runs view; the Runs view counts the running call; once it ends, the run's size is the sum of its calls' sizes in the Runs view and in the
 * inspector's list. Screenshots go to test-output/e2e/running-*.png.
 */
import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import type { Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

/** Prints a line every 100 ms until `stop-ticks` exists: it runs as long as the test needs, however slow the machine. */
const ticks =
  "let i = 0; const t = setInterval(() => { if (require('fs').existsSync('stop-ticks')) " +
  "{ clearInterval(t); return; } console.log('tick ' + i++); }, 100);\n";

/** The few DOM members read in the page (the tests compile without the DOM library). */
interface Cell {
  querySelectorAll(selector: string): ArrayLike<Cell>;
  querySelector(selector: string): Cell | null;
  readonly textContent: string | null;
  readonly dataset: Record<string, string | undefined>;
}

describe('Inspector following a running command in a real workbench', function () {
  this.timeout(300_000);
  let wb: Workbench;
  let view: FrameLocator;
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();
  const exact = async (l: Locator): Promise<number> =>
    Number(/^([\d,]+) bytes/.exec((await l.getAttribute('title')) ?? '')![1]!.replace(/,/g, ''));

  before(async () => {
    wb = await openWorkbench({ label: 'running', colorTheme: 'Default Light Modern' });
    view = wb.webview();
    writeFileSync(path.join(wb.workspaceDir, 'ticks.js'), ticks);
    await wb.capture('echo first');
    await view.locator('#detail-outcome', { hasText: 'exit 0' }).waitFor({ timeout: 90_000 });
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
  });
  after(async () => {
    await closeWorkbench(wb);
  });

  for (const [width, height, n] of [
    [1920, 1080, 2],
    [900, 700, 3],
  ] as const) {
    it(`4 · ${width}×${height}, side bar and chat open: the inspector follows the running call; sizes agree`, async () => {
      await wb.page.setViewportSize({ width, height });
      await view.locator('#filter-text input').fill('');
      const stop = path.join(wb.workspaceDir, 'stop-ticks');
      rmSync(stop, { force: true });
      await wb.capture(`node ticks.js ${width}`);
      // No click: the detail moves to the new call while it runs.
      await view.locator('#detail-outcome', { hasText: /^running$/ }).waitFor({ timeout: 60_000 });
      assert.match(await text(view.locator('#detail-title')), /^evidence_runCommand result/);
      await view.locator('#preview-running', { hasText: 'still running' }).waitFor();
      // Its bytes so far, in the Size row and the live box, once the first lines are counted.
      await view
        .locator('#id-size', { hasText: /^[1-9][\d,]* bytes.* so far \(running\)$/ })
        .waitFor({ timeout: 60_000 });
      await view.locator('#live-sizes', { hasText: /stdout [1-9][\d,]* bytes/ }).waitFor();
      await view.locator('#list-summary', { hasText: new RegExp(`^${n} of ${n} calls$`) }).waitFor();
      // The Runs view counts the running call.
      const runRow = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list-row', {
        hasText: `node ticks.js ${width}`,
      });
      await runRow
        .filter({ hasText: /running · 1 call · / })
        .first()
        .waitFor({ timeout: 30_000 });
      // The run's row shows its bytes so far too, marked so, not the 0 bytes it has stored: in the list, the same
      // figure as its one running call (read in one frame), and in the Runs view.
      const [runCell, callCell] = await view.locator('body').evaluate((body: unknown, label) => {
        const rows = Array.from((body as Cell).querySelectorAll('.vlist-row:not([hidden])'));
        const run = rows.find((r) => r.dataset.kind === 'run' && r.textContent!.includes(label));
        const call = run && rows[rows.indexOf(run) + 1];
        return [run?.querySelector('.c4')?.textContent ?? '', call?.querySelector('.c4')?.textContent ?? ''];
      }, `node ticks.js ${width}`);
      assert.match(runCell, /^[1-9][\d,.]* (bytes|KiB) so far$/);
      assert.equal(runCell, callCell);
      await runRow
        .filter({ hasText: /running · 1 call · [1-9][\d,.]* (bytes|KiB) so far · / })
        .first()
        .waitFor({ timeout: 30_000 });
      await wb.screenshot(`running-4-${width}x${height}`);

      writeFileSync(stop, '');
      await view.locator('#detail-outcome', { hasText: 'exit 0' }).waitFor({ timeout: 60_000 });
      // One size source: the run's size in the Runs view is its one call's, in the same words.
      const done = runRow.filter({ hasText: /completed · 1 call · / }).first();
      await done.waitFor({ timeout: 30_000 });
      await done.click();
      await wb.page.keyboard.press('ArrowRight');
      const callRow = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list-row[aria-level="2"]', {
        hasText: 'evidence_runCommand',
      });
      await callRow.first().waitFor({ timeout: 30_000 });
      const callSize = (
        /exit 0 · (.+)$/.exec(await text(callRow.first()))?.[1] ?? (await text(callRow.first()))
      ).trim();
      // The row may first show the run as stored before its call's result landed; it settles on the call's size.
      await runRow
        .filter({ hasText: `completed · 1 call · ${callSize} · ` })
        .first()
        .waitFor({ timeout: 30_000 });
      await wb.page.keyboard.press('ArrowLeft');
      // In the inspector's list the run's exact size is the sum of the rows under it.
      await view.locator('#filter-text input').fill(`node ticks.js ${width}`);
      await view.locator('#list-summary', { hasText: /^1 of \d+ calls$/ }).waitFor();
      const run = await exact(view.locator('.vlist-row[data-kind="run"]:not([hidden]) .c4').first());
      const rows = view.locator(
        '.vlist-row[data-kind="call"]:not([hidden]) .c4, .vlist-row[data-kind="part"]:not([hidden]) .c4',
      );
      await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stdout' }).first().waitFor();
      let sum = 0;
      for (const c of await rows.all()) sum += await exact(c);
      assert.equal(run, sum);
      assert.ok(sum > 0);
      await wb.screenshot(`running-4-${width}x${height}-done`);
      await view.locator('#filter-text input').fill('');
    });
  }
});
