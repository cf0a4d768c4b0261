/**
 * The inspector's second pass for people, in a real workbench, each at
 * 900×700 and 1920×1080: nothing scrolls away under the wheel (1), the dropdowns work
 * from the keyboard (2), search results can be dismissed (3), a failed run reads as
 * failed in the list and the Runs view (4), names, streams and handles are whole and a
 * run's tooltip is its command (5), Compare does not squeeze the panel (8), and the small
 * defects (a long run label found by the text filter, errors said once).
 * 200% zoom (7) is the zoom test of inspectorPeople.test.ts. Screenshots in light and
 * dark go to test-output/e2e/second-pass-*.png.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { INSPECTOR_FRAME, type Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';
import { layoutSettled, workbenchSettled } from './settle.js';
import { setTheme } from './theme.js';

const fixtures = path.join(__dirname, 'fixtures', 'workspace');

/** Browser globals used inside `evaluate` callbacks (they run in the page, not in Node). */
interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
  width: number;
  height: number;
}
interface El {
  getBoundingClientRect(): Box;
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
}
interface PageGlobals {
  document: {
    scrollingElement: { scrollTop: number; scrollHeight: number; clientHeight: number };
    querySelector(s: string): El | null;
    querySelectorAll(s: string): El[];
  };
  innerHeight: number;
}

/** A command line longer than 60 characters: its run's label (the text filter once missed it). */
const longCommand = `node -e "console.log('a run whose label is longer than sixty characters, to be found by text')"`;

describe('Inspector, second pass for people, in a real workbench', function () {
  this.timeout(300_000);
  let wb: Workbench;
  let view: FrameLocator;
  const errors: string[] = [];
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();

  /** Shows the failed call's stderr (a pattern hit in it marks a line). */
  async function showFailedStderr(): Promise<void> {
    await view.locator('#filter-text input').fill('the build broke');
    await view.locator('#list-summary', { hasText: /^1 of 3 calls$/ }).waitFor();
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stderr' }).first().click();
    await view.locator('#detail-title', { hasText: 'stderr of' }).waitFor();
    await view.locator('#filter-text input').fill('');
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
  }

  before(async () => {
    wb = await openWorkbench({ label: 'second-pass', workspaceTemplate: fixtures, colorTheme: 'Default Light Modern' });
    view = wb.webview();
    // An uncaught error in the panel (one was once `s.matches is not a function`) fails the file.
    wb.page.on('pageerror', (e) => errors.push(e.message));
    await wb.capture(`node -e "process.stderr.write('boom: the build broke\\n'); process.exit(1)"`);
    await view.locator('#detail-outcome', { hasText: 'exit 1' }).waitFor({ timeout: 60_000 });
    await wb.capture(
      `node -e "for (let i = 1; i <= 3000; i++) console.log('row ' + i + (i % 100 === 0 ? ' ERROR here' : ''))"`,
    );
    await view.locator('#detail-outcome', { hasText: 'exit 0' }).waitFor({ timeout: 60_000 });
    await wb.capture(longCommand);
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor({ timeout: 60_000 });
  });
  after(async () => {
    await closeWorkbench(wb);
  });
  afterEach(() => {
    assert.deepEqual(errors.splice(0), [], 'uncaught errors in the page');
  });

  for (const [width, height] of [
    [900, 700],
    [1920, 1080],
  ] as const) {
    const size = `${width}×${height}`;

    it(`1 · ${size}: the wheel over the heading after a pattern hit scrolls nothing away`, async () => {
      await wb.page.setViewportSize({ width, height });
      await showFailedStderr();
      await view.locator('vscode-tab-header', { hasText: 'Pattern' }).click();
      await view.locator('#pattern input').fill('boom');
      await view.locator('#pattern input').press('Enter');
      await view.locator('#window .wline[aria-current="true"]').waitFor();
      const heading = view.locator('#heading');
      const before = (await heading.boundingBox())!;
      await wb.page.mouse.move(before.x + 20, before.y + before.height / 2);
      // Measured once the page has had the wheel and drawn two frames after it: a scroll would have begun.
      await view.locator('body').evaluate(
        `(globalThis.wheeled = new Promise((r) => addEventListener('wheel', () => requestAnimationFrame(() =>
          requestAnimationFrame(r)), { once: true, capture: true })), 0)`,
      );
      await wb.page.mouse.wheel(0, 600);
      await view.locator('body').evaluate('globalThis.wheeled');
      const after = (await heading.boundingBox())!;
      assert.equal(Math.round(after.y), Math.round(before.y), 'the heading moved');
      const doc = await view.locator('body').evaluate(() => {
        const s = (globalThis as unknown as PageGlobals).document.scrollingElement;
        return { top: s.scrollTop, over: s.scrollHeight - s.clientHeight };
      });
      assert.deepEqual(doc, { top: 0, over: 0 }, 'the page itself scrolls');
      // The actions are all on screen in the detail (none cut off below the panel).
      await wb.screenshot(`second-pass-1-wheel-${width}x${height}`);
    });

    it(`2 · ${size}: Sort, Outcome and Source change from the keyboard`, async () => {
      await wb.page.setViewportSize({ width, height });
      // Where room is short the filters fold behind "Filters": open them.
      const toggle = view.locator('#toggle-filters');
      if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
      const pick = async (id: string, presses: string[]): Promise<void> => {
        await view.locator(`#${id}`).focus();
        for (const k of ['Enter', ...presses, 'Enter']) await view.locator(`#${id}`).press(k);
      };
      await pick('sort', ['ArrowDown']);
      await view.locator('#sort[value="size"], #sort').first().waitFor();
      assert.equal(await view.locator('#sort').evaluate((el) => (el as unknown as { value: string }).value), 'size');
      await pick('filter-outcome', ['ArrowDown']);
      assert.equal(
        await view.locator('#filter-outcome').evaluate((el) => (el as unknown as { value: string }).value),
        'failed',
      );
      await view.locator('#list-summary', { hasText: /^1 of 3 calls$/ }).waitFor();
      await pick('filter-source', ['ArrowDown']);
      assert.notEqual(
        await view.locator('#filter-source').evaluate((el) => (el as unknown as { value: string }).value),
        '',
      );
      if (await toggle.isVisible()) assert.equal(await text(toggle), 'Filters (3)');
      // Back to all, again by keyboard.
      await pick('filter-source', ['ArrowUp']);
      await pick('filter-outcome', ['ArrowUp']);
      await pick('sort', ['ArrowUp']);
      await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
      assert.equal(await view.locator('#sort').evaluate((el) => (el as unknown as { value: string }).value), 'time');
    });

    it(`3 · ${size}: search results are dismissed by Clear, Escape and an emptied field, and the list gets its room back`, async () => {
      await wb.page.setViewportSize({ width, height });
      const listHeight = async (): Promise<number> => (await view.locator('#calls').boundingBox())!.height;
      const roomy = await listHeight();
      const field = view.locator('#search-pattern input');
      const search = async (): Promise<void> => {
        await field.fill('row|ERROR');
        await field.press('Enter');
        await view.locator('#search-results li').first().waitFor({ timeout: 30_000 });
        assert.ok(await view.locator('#search-clear').isVisible(), 'no Clear button beside the results');
      };
      await search();
      await wb.screenshot(`second-pass-3-search-${width}x${height}`);
      await view.locator('#search-clear').click();
      assert.equal(await view.locator('#search-results li').count(), 0);
      assert.equal(await text(view.locator('#search-progress')), '');
      assert.equal(await field.inputValue(), 'row|ERROR', 'Clear keeps the pattern');
      await search();
      await field.press('Escape');
      assert.equal(await view.locator('#search-results li').count(), 0);
      await search();
      await field.fill('');
      assert.equal(await view.locator('#search-results li').count(), 0);
      assert.ok(Math.abs((await listHeight()) - roomy) <= 1, `the list is ${await listHeight()} px, was ${roomy} px`);
      // The splitter still moves the list.
      const splitter = view.locator('#splitter');
      const before = Number(await splitter.getAttribute('aria-valuenow'));
      const side = (await splitter.getAttribute('aria-orientation')) === 'vertical';
      await splitter.focus();
      await splitter.press(side ? 'ArrowRight' : 'ArrowDown');
      assert.equal(Number(await splitter.getAttribute('aria-valuenow')), before + 5);
      await splitter.press(side ? 'ArrowLeft' : 'ArrowUp');
    });

    it(`4 · ${size}: a run whose command exited 1 reads as failed in the list`, async () => {
      await wb.page.setViewportSize({ width, height });
      const run = view.locator('.vlist-row[data-kind="run"]', { hasText: 'the build broke' }).first();
      await run.waitFor();
      assert.equal(await run.locator('.c3').getAttribute('data-outcome'), 'failed');
      assert.equal(await text(run.locator('.c3')), 'failed');
      assert.equal(await run.locator('.c3 .codicon-error').count(), 1);
      assert.equal(await run.locator('.c3').getAttribute('title'), 'run failed: 1 of 1 call failed');
      // The successful runs do not.
      assert.equal(
        await text(view.locator('.vlist-row[data-kind="run"]', { hasText: 'ERROR here' }).first().locator('.c3')),
        'completed',
      );
      assert.doesNotMatch(await text(view.locator('#id-outcome')), /recorded status/);
    });

    it(`5 · ${size}: names, streams and handles are whole; a run's tooltip is its command`, async () => {
      await wb.page.setViewportSize({ width, height });
      await layoutSettled(wb.page, view);
      const run = view.locator('.vlist-row[data-kind="run"]', { hasText: 'the build broke' }).first();
      const title = (await run.locator('.c1').getAttribute('title')) ?? '';
      assert.ok(title.includes(`node -e "process.stderr.write('boom: the build broke\\n'); process.exit(1)"`), title);
      // Every stream name and every handle shown whole (no ellipsis), at this size.
      // Measured to the subpixel (scrollWidth is rounded, and an ellipsis shows for 0.4 px too many): the text's own
      // extent (a Range is not clipped by its cell) against the cell's content box.
      // In the compact column (a panel under 500 px: here the side bar and the chat take the rest) the status is its
      // icon and a long tool name may be cut; the streams and handles still are whole everywhere.
      const compact = (await view.locator('#split').getAttribute('data-layout')) === 'compact';
      const cells = compact
        ? '.vlist-row[data-kind="part"] .c1, .vlist-row[data-kind="call"] .c5, .vlist-row[data-kind="part"] .c5'
        : '.vlist-row[data-kind="call"] .c1, .vlist-row[data-kind="part"] .c1, .vlist-row[data-kind="call"] .c5, .vlist-row[data-kind="part"] .c5, .vlist-row .c3';
      const cut = await view.locator('body').evaluate((_, sel) => {
        const w = globalThis as unknown as PageGlobals & {
          getComputedStyle(e: El): { paddingLeft: string; paddingRight: string };
        };
        const doc = w.document as unknown as PageGlobals['document'] & {
          createRange(): { selectNodeContents(n: El): void; getBoundingClientRect(): Box };
        };
        return [...doc.querySelectorAll(sel)]
          .filter((c) => {
            const box = c.getBoundingClientRect();
            if (box.width === 0) return false;
            const range = doc.createRange();
            range.selectNodeContents(c);
            const st = w.getComputedStyle(c);
            return (
              range.getBoundingClientRect().width >
              box.width - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) + 0.25
            );
          })
          .map((c) => c.textContent);
      }, cells);
      assert.deepEqual(cut, []);
      const streams = (await view.locator('.vlist-row[data-kind="part"] .c1').allTextContents()).map((s) => s.trim());
      assert.ok(streams.includes('stdout') && streams.includes('stderr'), streams.join(', '));
      await wb.screenshot(`second-pass-5-columns-${width}x${height}`);
      await setTheme(wb, view, 'Default Dark Modern');
      await wb.screenshot(`second-pass-5-columns-${width}x${height}-dark`);
      await setTheme(wb, view, 'Default Light Modern');
    });

    it(`8 · ${size}: Compare does not squeeze the panel`, async () => {
      await wb.page.setViewportSize({ width, height });
      await showFailedStderr();
      await view.locator('#window[data-start="0"]').waitFor();
      const panelBefore = (await wb.page.locator(INSPECTOR_FRAME).boundingBox())!.width;
      await view.locator('#compare-with').click();
      await view.locator('#action-result', { hasText: 'Marked bytes' }).waitFor();
      await view.locator('#compare-with').click();
      await wb.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
      await workbenchSettled(wb.page);
      const frame = wb.page.locator(INSPECTOR_FRAME);
      if (await frame.isVisible()) {
        // Beside: the panel keeps at least 700 px.
        const w = (await frame.boundingBox())!.width;
        assert.ok(w >= 700, `the panel was squeezed from ${panelBefore} to ${w} px`);
      } else {
        // A tab of the panel's group: the panel is the tab beside it, and comes back at its width.
        await wb.page.locator('.tabs-container .tab', { hasText: 'Evidence Inspector' }).click();
        await view.locator('#splitter').waitFor({ timeout: 30_000 });
        const w = (await wb.page.locator(INSPECTOR_FRAME).boundingBox())!.width;
        assert.ok(Math.abs(w - panelBefore) <= 2, `the panel is ${w} px, was ${panelBefore} px`);
      }
      await wb.screenshot(`second-pass-8-compare-${width}x${height}`);
      await wb.runCommand('View: Close All Editors');
      await wb.runCommand('Bounded Evidence: Open Inspector');
      await view.locator('#splitter').waitFor();
    });

    it(`10 · ${size}: a run label longer than 60 characters is found by the text filter; a bad range is said once`, async () => {
      await wb.page.setViewportSize({ width, height });
      await view.locator('#filter-text input').fill('to be found by text');
      await view.locator('#list-summary', { hasText: /^1 of 3 calls$/ }).waitFor({ timeout: 30_000 });
      await view.locator('#filter-text input').fill('');
      await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
      await showFailedStderr();
      await view.locator('vscode-tab-header', { hasText: 'Byte range' }).click();
      await view.locator('#bytes-start input').fill('0');
      await view.locator('#bytes-end input').fill('999999');
      await view.locator('#bytes-end input').press('Enter');
      const error = view.locator('#window-error');
      await error.waitFor({ state: 'visible' });
      assert.doesNotMatch(await text(error), /invalid message/);
      assert.equal(await view.getByText(await text(error)).count(), 1, 'the error is said once');
      // The Lines form follows the window on screen (it kept stale values after a link or a byte window).
      await view.locator('vscode-tab-header', { hasText: 'Lines' }).click();
      await view.locator('#lines-from input').fill('1');
      await view.locator('#lines-count input').fill('200');
      await view.locator('vscode-tab-header', { hasText: 'Byte range' }).click();
      await view.locator('#bytes-start input').fill('0');
      await view.locator('#bytes-end input').fill('10');
      await view.locator('#bytes-end input').press('Enter');
      await view.locator('#window[data-start="0"][data-end="10"]').waitFor();
      assert.deepEqual(
        [await view.locator('#lines-from input').inputValue(), await view.locator('#lines-count input').inputValue()],
        ['1', '1'],
      );
    });
  }

  it('4 · the Runs view says the failed run failed, with the error icon', async () => {
    await wb.page.setViewportSize({ width: 1400, height: 900 });
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    const rows = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list .monaco-list-row');
    const run = rows.filter({ hasText: 'the build broke' });
    await run.waitFor({ timeout: 30_000 });
    assert.match(await text(run.locator('.label-description')), /^failed · 1 call · /);
    assert.equal(await run.locator('.codicon-error').count(), 1);
    assert.match(
      await text(rows.filter({ hasText: 'ERROR here' }).locator('.label-description')),
      /^completed · 1 call · /,
    );
    await wb.screenshot('second-pass-4-runs-view');
  });
});
