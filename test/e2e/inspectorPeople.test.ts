/**
 * The inspector as a person meets it, in a real workbench: failures that look like
 * failures (exit badge, outcome filter, the notification's "Show stderr", stderr first),
 * a layout that fits 900×700 to 1920×1080 (screenshots), and results shown next to the
 * button that asked for them. One workbench for the whole file.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { INSPECTOR_FRAME, type Workbench } from '../harness/workbench.js';
import { axe } from './axe.js';
import { closeWorkbench, openWorkbench } from './session.js';
import { layoutSettled } from './settle.js';
import { setTheme } from './theme.js';

/** Browser globals used inside `evaluate` callbacks (they run in the page, not in Node). */
declare function getComputedStyle(el: unknown): { color: string; fontWeight: string };

const fixtures = path.join(__dirname, 'fixtures', 'workspace');

describe('Inspector for people in a real workbench', function () {
  this.timeout(240_000);
  let wb: Workbench;
  let view: FrameLocator;
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();

  const capture = (command: string): Promise<void> => wb.capture(command);

  /** Picks an option of a vscode-single-select by its visible label. */
  async function choose(id: string, label: string): Promise<void> {
    await view.locator(`#${id}`).click();
    await view.locator(`#${id} li, #${id} .option`, { hasText: label }).first().click();
  }

  /**
   * Right-clicks a row and picks a context-menu entry with the keyboard, as the menu's own focus moves: the menu
   * takes no mouse click in its first moments.
   */
  async function contextMenu(row: Locator, entry: string): Promise<void> {
    await row.click({ button: 'right' });
    const menu = wb.page.locator('.context-view .monaco-menu');
    await menu.locator('.action-label', { hasText: entry }).waitFor();
    const focused = async (): Promise<string> => (await menu.locator('.focused').allTextContents()).join(' ');
    const items = await menu.locator('.action-label').count();
    for (let i = 0; i <= items && !(await focused()).includes(entry); i++) await wb.page.keyboard.press('ArrowDown');
    assert.ok((await focused()).includes(entry), `the menu's focus never reached ${entry}: ${await focused()}`);
    await wb.page.keyboard.press('Enter');
    await menu.waitFor({ state: 'detached', timeout: 10_000 });
  }

  /**
   * What a person sees of the panel: list rows fully visible, key detail fields cut, and
   * buttons covered by something else (each visible button's centre must hit the button).
   */
  async function measureLayout(): Promise<{
    rows: number;
    cut: string[];
    covered: string[];
    listHeight: number;
    detailHeight: number;
  }> {
    return await view.locator('body').evaluate(() => {
      interface Rect {
        top: number;
        bottom: number;
        left: number;
        right: number;
        width: number;
        height: number;
      }
      interface El {
        getBoundingClientRect(): Rect;
        scrollWidth: number;
        clientWidth: number;
        id: string;
        textContent: string | null;
        contains(o: El | null): boolean;
        closest(s: string): El | null;
        parentElement: El | null;
      }
      const d = globalThis as unknown as {
        document: {
          querySelector(s: string): El | null;
          querySelectorAll(s: string): El[];
          elementFromPoint(x: number, y: number): El | null;
        };
        innerHeight: number;
        innerWidth: number;
        getComputedStyle(e: El): { overflowY: string; overflowX: string };
      };
      const vp = d.document.querySelector('#calls')!.getBoundingClientRect();
      const rows = [...d.document.querySelectorAll('.vlist-row:not([hidden])')].filter((r) => {
        const b = r.getBoundingClientRect();
        return (
          b.top >= vp.top - 0.5 &&
          b.bottom <= vp.bottom + 0.5 &&
          b.bottom <= d.innerHeight + 0.5 &&
          b.bottom - b.top > 20
        );
      }).length;
      const detail = d.document.querySelector('.detail')!.getBoundingClientRect();
      const cut = ['#detail-outcome', '#id-handle', '#id-sha', '#id-size', '#id-outcome'].flatMap((sel) => {
        const el = d.document.querySelector(sel);
        if (!el) return [`${sel} missing`];
        const b = el.getBoundingClientRect();
        return el.scrollWidth > el.clientWidth + 1 || b.right > detail.right + 1
          ? [`${sel} cut: ${el.textContent}`]
          : [];
      });
      // A button scrolled out of its pane is not covered; one in view must be what its centre hits.
      // (No named helpers in here: the page has no bundler helpers to name them.)
      const covered = [
        ...d.document.querySelectorAll('vscode-button, button, vscode-single-select, vscode-textfield'),
      ].flatMap((b) => {
        const r = b.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return [];
        const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
        if (x < 0 || y < 0 || x >= d.innerWidth || y >= d.innerHeight) return [];
        for (let p = b.parentElement; p; p = p.parentElement) {
          const st = d.getComputedStyle(p);
          const pr = p.getBoundingClientRect();
          if (
            /(auto|scroll|hidden)/.test(st.overflowY + st.overflowX) &&
            (x < pr.left || x > pr.right || y < pr.top || y > pr.bottom)
          )
            return [];
        }
        const hit = d.document.elementFromPoint(x, y);
        return hit && (b.contains(hit) || hit === b)
          ? []
          : [
              `${b.id || (b.textContent ?? '').trim().slice(0, 30)} covered by ${hit?.id || (hit?.textContent ?? '').trim().slice(0, 30)}`,
            ];
      });
      return { rows, cut, covered, listHeight: vp.bottom - vp.top, detailHeight: detail.bottom - detail.top };
    });
  }

  before(async () => {
    wb = await openWorkbench({ label: 'people', workspaceTemplate: fixtures, colorTheme: 'Default Light Modern' });
    view = wb.webview();
  });
  after(async () => {
    // The page the panel loads, as served (the closing note quotes it).
    const { statSync } = await import('node:fs');
    const root = path.join(__dirname, '..', '..');
    const sizes = ['dist/webview.js', 'media/inspector.css'].map(
      (f) => `${f} ${statSync(path.join(root, f)).size.toLocaleString('en-US')} bytes`,
    );
    console.log(`    webview bundle: ${sizes.join(', ')}`);
    await closeWorkbench(wb);
  });

  it('shows a command that exited 1 as failed, opens it on stderr, and offers "Show stderr"', async () => {
    await capture(`node -e "process.stderr.write('boom: the build broke\\n'); process.exit(1)"`);
    // stdout is empty, so the inspector opens on stderr, the stream with content.
    await view.locator('#detail-title', { hasText: 'stderr of' }).waitFor({ timeout: 60_000 });
    assert.equal(await text(view.locator('#detail-outcome')), 'exit 1');
    assert.match((await view.locator('#detail-outcome').getAttribute('class')) ?? '', /\boutcome-failed\b/);
    assert.equal(await text(view.locator('#id-outcome')), 'exit 1: the command exited with code 1');
    // The window's lines come in their own reply, after the detail.
    await view.locator('#window .wline .tx').first().waitFor();
    assert.deepEqual(await view.locator('#window .wline .tx').allTextContents(), ['boom: the build broke']);
    // The list row of the call says so too, in the error colour.
    const callRow = view.locator('.vlist-row[data-kind="call"]', { hasText: 'exit 1' });
    await callRow.waitFor();
    assert.equal(await callRow.locator('.c3').getAttribute('data-outcome'), 'failed');
    // Its icon is in the error colour (the words keep the list's colour for contrast) and the words are bold.
    const iconColour = await callRow.locator('.c3 .codicon').evaluate((el) => getComputedStyle(el).color);
    assert.notEqual(iconColour, await view.locator('body').evaluate((el) => getComputedStyle(el).color));
    assert.ok(Number(await callRow.locator('.c3').evaluate((el) => getComputedStyle(el).fontWeight)) >= 600);
    // Select stdout first: the notification's "Show stderr" must bring stderr back.
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stdout' }).first().click();
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
    // The notification names the exit and offers stderr. A headless page has no window
    // focus, so the workbench files it in the notification centre instead of a toast.
    await wb.runCommand('Notifications: Show Notifications');
    const toast = wb.page.locator('.notifications-center .notification-list-item', { hasText: 'the command exited 1' });
    await toast.waitFor({ timeout: 30_000 });
    assert.equal(
      await text(toast.locator('.notification-list-item-message')),
      'Bounded Evidence: the command exited 1 — 22 bytes of stderr.',
    );
    await toast.locator('.monaco-button', { hasText: 'Show stderr' }).click();
    await view.locator('#detail-title', { hasText: 'stderr of' }).waitFor({ timeout: 30_000 });
    await wb.runCommand('Notifications: Clear All Notifications');
    await wb.screenshot('people-failed-exit-1');
  });

  it('shows a command that was not found as exit 127 and filters by outcome', async () => {
    await capture('definitely-not-a-command-xyz');
    await view.locator('#detail-outcome', { hasText: 'exit 127' }).waitFor({ timeout: 60_000 });
    assert.match(await text(view.locator('#id-outcome')), /command not found/);
    await capture('node -e "console.log(42)"');
    await view.locator('#detail-outcome', { hasText: 'exit 0' }).waitFor({ timeout: 60_000 });
    assert.match((await view.locator('#detail-outcome').getAttribute('class')) ?? '', /\boutcome-ok\b/);
    // Failed only: the two failures, not the success.
    await choose('filter-outcome', 'Failed');
    await view.locator('#list-summary', { hasText: /^2 of 3 calls$/ }).waitFor();
    const labels = (await view.locator('.vlist-row[data-kind="call"]:not([hidden]) .c3').allTextContents())
      .map((s) => s.trim())
      .sort();
    assert.deepEqual(labels, ['exit 1', 'exit 127']);
    await choose('filter-outcome', 'Succeeded');
    await view.locator('#list-summary', { hasText: /^1 of 3 calls$/ }).waitFor();
    assert.deepEqual(
      (await view.locator('.vlist-row[data-kind="call"]:not([hidden]) .c3').allTextContents()).map((s) => s.trim()),
      ['exit 0'],
    );
    await choose('filter-outcome', 'Any outcome');
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
  });

  for (const [width, height] of [
    [900, 700],
    [1400, 900],
    [1920, 1080],
  ] as const) {
    it(`fits a ${width}×${height} window: at least five list rows and every key field of the detail whole`, async () => {
      await wb.page.setViewportSize({ width, height });
      // Select the failed call's stderr (it has a handle, a digest and an outcome).
      await view.locator('#filter-text input').fill('the build broke');
      await view.locator('#list-summary', { hasText: /^1 of 3 calls$/ }).waitFor();
      await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stderr' }).first().click();
      await view.locator('#detail-title', { hasText: 'stderr of' }).waitFor();
      await view.locator('#filter-text input').fill('');
      await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
      await layoutSettled(wb.page, view);
      const layout = await view.locator('#split').getAttribute('data-layout');
      const m = await measureLayout();
      const shot = await wb.screenshot(`people-layout-${width}x${height}`);
      console.log(
        `    ${width}×${height}: layout ${layout}, ${m.rows} rows fully visible, list ${Math.round(m.listHeight)} px — ${path.basename(shot)}`,
      );
      assert.ok(m.rows >= 5, `only ${m.rows} list rows visible at ${width}×${height} (layout ${layout})`);
      assert.deepEqual(m.cut, []);
      assert.deepEqual(m.covered, []);
      // The status shows whole on hover (the cell's title) even when its column is narrow.
      const cell = view.locator('.vlist-row[data-kind="call"]:not([hidden]) .c3', { hasText: /exit 1$/ }).first();
      assert.equal(await cell.getAttribute('title'), 'exit 1: the command exited with code 1');
    });
  }

  it('remembers where the splitter was dragged, across hiding the panel', async () => {
    await wb.page.setViewportSize({ width: 1400, height: 900 });
    // The split resets to its new layout's default once it has measured the new size: read after that.
    await layoutSettled(wb.page, view);
    const splitter = view.locator('#splitter');
    await splitter.focus();
    const before = Number(await splitter.getAttribute('aria-valuenow'));
    await splitter.press('ArrowDown');
    await splitter.press('ArrowDown');
    assert.equal(Number(await splitter.getAttribute('aria-valuenow')), before + 10);
    // Drag it with the mouse as well: down by 60 px.
    const box = (await splitter.boundingBox())!;
    const listBefore = (await view.locator('#calls').boundingBox())!.height;
    await splitter.hover();
    await wb.page.mouse.down();
    await wb.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + 60, { steps: 5 });
    await wb.page.mouse.up();
    const listAfter = (await view.locator('#calls').boundingBox())!.height;
    assert.ok(Math.abs(listAfter - listBefore - 60) <= 4, `list grew by ${listAfter - listBefore} px`);
    const kept = await splitter.getAttribute('aria-valuenow');
    // Hide the panel behind another editor and bring it back: the split is as it was.
    await wb.runCommand('File: New Untitled Text File');
    await wb.runCommand('Bounded Evidence: Open Inspector');
    await view.locator('#splitter').waitFor();
    assert.equal(await view.locator('#splitter').getAttribute('aria-valuenow'), kept);
  });

  it("shows Verify's verdict next to the button, on screen, and other results there too", async () => {
    await wb.page.setViewportSize({ width: 1400, height: 900 });
    await view.locator('#filter-text input').fill('the build broke');
    // The filtered list first: a click on the rows still on screen would pick another call's stderr.
    await view.locator('#list-summary', { hasText: /^1 of \d+ calls$/ }).waitFor();
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stderr' }).first().click();
    await view.locator('#detail-title', { hasText: 'stderr of' }).waitFor();
    await view.locator('#window[data-start="0"]').waitFor();
    await view.locator('#verify').click();
    const verdict = view.locator('#verdict.ok');
    await verdict.waitFor({ timeout: 30_000 });
    assert.match(await text(verdict), /^Verified: all 22 bytes match sha256 a6c529396c84… \(\d+ ms\)\.$/);
    assert.equal(
      await verdict.getAttribute('title'),
      'sha256 a6c529396c84ee6c72cdfaa183957ceb0c656dd95c3e650ca4de1b98c9948ec2',
    );
    const [v, b, frameHeight] = [
      (await verdict.boundingBox())!,
      (await view.locator('#verify').boundingBox())!,
      (await wb.page.locator(INSPECTOR_FRAME).boundingBox())!,
    ];
    // Below the row of buttons, within a line of it, and inside the visible panel.
    assert.ok(v.y >= b.y && v.y - (b.y + b.height) < 60, `verdict at ${v.y}, button at ${b.y}`);
    assert.ok(v.y + v.height <= frameHeight.y + frameHeight.height, 'the verdict is below the visible panel');
    await view.locator('#copy-handle').click();
    await view.locator('#action-result', { hasText: 'Copied the handle.' }).waitFor();
    assert.equal(await text(view.locator('#verdict')), '');
    // Said once, where the eye is, and announced from there (a live region), not again in the status line.
    assert.equal(await view.locator('#action-result').getAttribute('role'), 'status');
    assert.equal(await view.getByText('Copied the handle.').count(), 1, 'the result is said once');
    // Escape in the text filter empties it.
    await view.locator('#filter-text input').press('Escape');
    assert.equal(await view.locator('#filter-text input').inputValue(), '');
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
    await wb.screenshot('people-verify-next-to-button');
  });

  it('fetches the omitted middle from its button, and steps through matches with F3 / Shift+F3', async () => {
    const expected = Array.from({ length: 20000 }, (_, i) => `line ${i}\n`).join('');
    await capture(`node -e "for (let i = 0; i < 20000; i++) console.log('line ' + i)"`);
    await view.locator('#detail-outcome', { hasText: 'exit 0' }).waitFor({ timeout: 60_000 });
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
    assert.equal(
      await text(view.locator('#id-size')),
      `${expected.length.toLocaleString('en-US')} bytes (${(expected.length / 1024).toFixed(0)} KiB)`,
    );
    const gap = view.locator('button#preview-gap');
    const m = /bytes \[(\d+), (\d+)\) omitted/.exec(await text(gap));
    assert.ok(m);
    const [headEnd, tailStart] = [Number(m[1]), Number(m[2])];
    // From the start of the line the head cut (all ASCII here: characters are bytes).
    const start = expected.lastIndexOf('\n', headEnd - 1) + 1;
    const end = Math.min(tailStart, start + 65536);
    await gap.click();
    await view.locator(`#window[data-start="${start}"][data-end="${end}"]`).waitFor();
    const lines = await view.locator('#window .wline .tx').allTextContents();
    assert.equal(lines.join('\n'), expected.slice(start, end).replace(/\n$/, ''));
    // Pattern, then F3 and Shift+F3 from the window.
    await view.locator('vscode-tab-header', { hasText: 'Pattern' }).click();
    await view.locator('#pattern input').fill('line 1999\\d');
    await view.locator('#pattern input').press('Enter');
    await view.locator('#match-info', { hasText: 'Match 1 of 10' }).waitFor();
    await view.locator('#window').focus();
    await view.locator('#window').press('F3');
    await view.locator('#match-info', { hasText: 'Match 2 of 10' }).waitFor();
    const current = view.locator('#window .wline[aria-current="true"]');
    await current.locator('.tx', { hasText: 'line 19991' }).waitFor();
    assert.equal(await text(current.locator('.sr-only')), 'Matched line 19992:');
    await view.locator('#window').press('F3');
    await view.locator('#match-info', { hasText: 'Match 3 of 10' }).waitFor();
    await view.locator('#window').press('Shift+F3');
    await view.locator('#match-info', { hasText: 'Match 2 of 10' }).waitFor();
  });

  it('is found without the palette: status-bar item, activity-bar tree with its context menu', async () => {
    await wb.page.setViewportSize({ width: 1400, height: 900 });
    // The status bar says what is stored; clicking it opens the inspector.
    const item = wb.page.locator('.statusbar-item', { hasText: /\d+ runs · / }).first();
    await item.waitFor({ timeout: 30_000 });
    assert.match(await text(item), /^4 runs · \d+(\.\d)? (KiB|MiB)$/);
    await wb.runCommand('View: Close All Editors');
    await wb.page.locator(INSPECTOR_FRAME).waitFor({ state: 'detached' });
    await item.click();
    await view.locator('h1', { hasText: 'Evidence Inspector' }).waitFor({ timeout: 30_000 });
    // The activity-bar view: runs → calls → outputs.
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    const tree = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list');
    const rows = tree.locator('.monaco-list-row');
    await rows.first().waitFor({ timeout: 30_000 });
    assert.equal(await rows.count(), 4);
    // Expand the run of the failed command (its label is the command line) and its call.
    const run = rows.filter({ hasText: 'the build broke' });
    await run.locator('.monaco-tl-twistie').click();
    const call = rows.filter({ hasText: 'exit 1' });
    await call.waitFor();
    // The row's accessible name carries its visible text.
    assert.match((await call.getAttribute('aria-label')) ?? '', /^evidence_runCommand call, exit 1 · /);
    await call.locator('.monaco-tl-twistie').click();
    const stderr = rows.filter({ hasText: /^stderr/ });
    await stderr.waitFor();
    const handle = /out_[a-z2-7]{26}/.exec(await text(stderr))![0];
    await contextMenu(stderr, 'Copy Handle');
    await wb.page.waitForFunction(
      async (h) =>
        (await (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText()) === h,
      handle,
      { timeout: 10_000 },
    );
    // Open in Inspector from the same menu selects it there.
    await contextMenu(stderr, 'Open in Inspector');
    await view.locator('#id-handle', { hasText: handle }).waitFor({ timeout: 30_000 });
    await wb.screenshot('people-tree-view');
  });

  it('imports a file from the Explorer context menu', async () => {
    await wb.page.locator('.activitybar .action-item a[aria-label^="Explorer"]').click();
    const file = wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'evil.js' });
    await file.waitFor();
    await contextMenu(file, 'Import as Evidence');
    await view.locator('#detail-title', { hasText: 'import_file' }).waitFor({ timeout: 60_000 });
    const size = (await import('node:fs')).statSync(path.join(fixtures, 'evil.js')).size;
    assert.equal(
      await text(view.locator('#id-size')),
      // Said once under 1 KiB ("46 bytes", never "46 bytes (46 bytes)").
      size < 1024
        ? `${size.toLocaleString('en-US')} bytes`
        : `${size.toLocaleString('en-US')} bytes (${(size / 1024).toFixed(1)} KiB)`,
    );
  });

  it("runs the walkthrough's demo capture", async () => {
    await wb.runCommand('Welcome: Open Walkthrough...');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill('Get Started with Bounded Evidence');
    await wb.page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Bounded Evidence' })
      .first()
      .waitFor();
    await input.press('Enter');
    const step = wb.page.locator('.getting-started-step', { hasText: 'Capture a build log' });
    await step.waitFor({ timeout: 30_000 });
    await step.click();
    await step.locator('.monaco-button, a', { hasText: 'Capture the Demo Build Log' }).first().click();
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 90_000 });
    await view.locator('#detail-outcome', { hasText: 'exit 1' }).waitFor();
    assert.match(await text(view.locator('#id-lines')), /^60,000$/);
  });

  it('lands in the panel at a linked window: scrolled to, marked and announced (Open Evidence Link… with a pasted link)', async () => {
    await wb.page.setViewportSize({ width: 1400, height: 900 });
    const rows = Array.from({ length: 400 }, (_, i) => `linked row ${i + 1}\n`);
    await capture(`node -e "for (let i = 1; i <= 400; i++) console.log('linked row ' + i)"`);
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 60_000 });
    await view.locator('#id-size', { hasText: rows.join('').length.toLocaleString('en-US') }).waitFor();
    const handle = await text(view.locator('#id-handle'));
    const openLink = async (link: string): Promise<void> => {
      await wb.runCommand('Bounded Evidence: Open Evidence Link…');
      const input = wb.page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await input.fill(link);
      await input.press('Enter');
    };
    // Lines 301–303 of the output, as a chat answer or a person names them.
    await openLink(`${handle}:301-303`);
    await view.locator('#window-position', { hasText: 'Linked lines 301–303' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await view.locator('#window .wline.hit .tx').allTextContents(), [
      'linked row 301',
      'linked row 302',
      'linked row 303',
    ]);
    // Three lines of context on each side, numbered as the output counts them.
    assert.deepEqual(await view.locator('#window .wline .ln').allTextContents(), [
      '298',
      '299',
      '300',
      '301',
      '302',
      '303',
      '304',
      '305',
      '306',
    ]);
    assert.equal(
      await view.locator('#window .wline[aria-current="true"] .sr-only').textContent(),
      'Linked lines 301–303: ',
    );
    const [from, to] = [Buffer.byteLength(rows.slice(0, 297).join('')), Buffer.byteLength(rows.slice(0, 306).join(''))];
    assert.equal(
      await text(view.locator('#window-position')),
      `bytes [${from}, ${to}) · ${to - from} bytes · lines 298–306 · of 5,892 bytes, 400 lines — Linked lines 301–303`,
    );
    // Both forms say the window on screen after a link (the Lines form kept stale values).
    const forms = async (): Promise<string[]> =>
      Promise.all(
        ['#bytes-start', '#bytes-end', '#lines-from', '#lines-count'].map((id) =>
          view.locator(`${id} input`).inputValue(),
        ),
      );
    assert.deepEqual(await forms(), [String(from), String(to), '298', '9']);
    // On screen: the marked rows lie inside the visible panel and inside the window box.
    const onScreen = async (): Promise<boolean> =>
      view.locator('body').evaluate(() => {
        const d = globalThis as unknown as {
          document: {
            querySelectorAll(s: string): { getBoundingClientRect(): { top: number; bottom: number } }[];
            querySelector(s: string): { getBoundingClientRect(): { top: number; bottom: number } };
          };
          innerHeight: number;
        };
        const box = d.document.querySelector('#window').getBoundingClientRect();
        const detail = d.document.querySelector('.detail').getBoundingClientRect();
        return [...d.document.querySelectorAll('#window .wline.hit')].every((r) => {
          const b = r.getBoundingClientRect();
          return (
            b.top >= Math.max(box.top, detail.top) - 1 &&
            b.bottom <= Math.min(box.bottom, detail.bottom, d.innerHeight) + 1
          );
        });
      });
    assert.ok(await onScreen(), 'the linked lines are not on screen');
    await wb.screenshot('people-linked-lines');
    await setTheme(wb, view, 'Default Dark Modern');
    await wb.screenshot('people-linked-lines-dark');
    await setTheme(wb, view, 'Default Light Modern');
    // An excerpt's link (bytes of lines 120–121): the panel shows exactly those bytes, marked.
    const start = Buffer.byteLength(rows.slice(0, 119).join(''));
    const end = start + Buffer.byteLength(rows[119]! + rows[120]!);
    await openLink(`vscode://bounded-evidence.bounded-evidence/open?handle=${handle}&bytes=${start}-${end}`);
    await view.locator(`#window[data-start="${start}"][data-end="${end}"]`).waitFor({ timeout: 30_000 });
    assert.deepEqual(await view.locator('#window .wline.hit .tx').allTextContents(), [
      'linked row 120',
      'linked row 121',
    ]);
    assert.equal(await view.locator('#window .wline').count(), 2);
    assert.match(await text(view.locator('#window-position')), new RegExp(`— Linked bytes \\[${start}, ${end}\\)$`));
    assert.deepEqual(await forms(), [String(start), String(end), '120', '2']);
    assert.ok(await onScreen(), 'the linked bytes are not on screen');
    // A link to a line the output does not have opens nothing and says why.
    await openLink(`${handle}:401`);
    await wb.runCommand('Notifications: Show Notifications');
    await wb.page
      .locator('.notifications-center .notification-list-item', {
        hasText: `${handle} has 400 line(s); line 401 does not exist`,
      })
      .waitFor({ timeout: 30_000 });
    await wb.runCommand('Notifications: Clear All Notifications');
    assert.match(await text(view.locator('#window-position')), /Linked bytes/);
  });

  it('compares two chosen windows from the panel: "Compare with…" on one, then on another, opens the diff on exactly those bytes', async () => {
    // Wide enough for the diff beside the panel (from 1,400 px of panel), as docs/inspector.md shows it.
    await wb.page.setViewportSize({ width: 1920, height: 1080 });
    await wb.runCommand('View: Close Primary Side Bar');
    try {
      await compareFromThePanel();
    } finally {
      await wb.runCommand('View: Toggle Primary Side Bar Visibility');
      await wb.page.setViewportSize({ width: 1400, height: 900 });
      // The diff replaces the panel in its group: bring the panel back for the tests after this one.
      await wb.runCommand('View: Close All Editors');
      await wb.runCommand('Bounded Evidence: Open Inspector');
      await view.locator('#splitter').waitFor();
    }
  });

  async function compareFromThePanel(): Promise<void> {
    const handle = await text(view.locator('#id-handle'));
    // The linked bytes (lines 120–121) are on screen: mark them.
    const [ls, le] = [
      Number(await view.locator('#window').getAttribute('data-start')),
      Number(await view.locator('#window').getAttribute('data-end')),
    ];
    await view.locator('#compare-with').click();
    await view
      .locator('#action-result', { hasText: `Marked bytes [${ls}, ${le}) of ${handle} for comparison` })
      .waitFor();
    assert.equal(await text(view.locator('#compare-with')), 'Compare with marked');
    // Another window: lines 1–2 of the same output.
    await view.locator('vscode-tab-header', { hasText: 'Lines' }).click();
    await view.locator('#lines-from input').fill('1');
    await view.locator('#lines-count input').fill('2');
    await view.locator('#lines-count input').press('Enter');
    await view.locator('#window[data-start="0"]').waitFor();
    const re = Number(await view.locator('#window').getAttribute('data-end'));
    assert.equal(re, Buffer.byteLength('linked row 1\nlinked row 2\n'));
    const panelWidth = (await wb.page.locator(INSPECTOR_FRAME).boundingBox())!.width;
    await view.locator('#compare-with').click();
    const title = `${handle} bytes ${ls}–${le} ↔ ${handle} bytes 0–${re}`;
    if (panelWidth >= 1400) {
      // Wide: beside the panel, which says what opened.
      await view
        .locator('#action-result', {
          hasText: `Comparing ${handle} bytes ${ls}–${le} with ${handle} bytes 0–${re} in the diff editor.`,
        })
        .waitFor({ timeout: 30_000 });
      assert.equal(await view.getByText(/^Comparing /).count(), 1, 'the result is said once');
      assert.equal(await text(view.locator('#compare-with')), 'Compare with…');
    }
    // Narrower: a tab of the panel's group (beside, both halves were squeezed).
    // The diff editor (side by side or inline, as the width allows), each side exactly its window.
    const tab = wb.page.locator('.tabs-container .tab', { hasText: title });
    await tab.waitFor({ timeout: 30_000 });
    const diff = wb.page.locator('.monaco-diff-editor');
    await diff.locator('.view-line', { hasText: 'linked row 2' }).first().waitFor({ timeout: 30_000 });
    await diff.locator('.view-line', { hasText: 'linked row 121' }).first().waitFor({ timeout: 30_000 });
    // (An inline diff repeats removed lines in a view zone: compare the set of lines shown.)
    const shown = [
      ...new Set(
        (await diff.locator('.view-line').allTextContents())
          .map((x) => x.replace(/\u00a0/g, ' ').trim())
          .filter((x) => x !== ''),
      ),
    ].sort();
    assert.deepEqual(shown, ['linked row 1', 'linked row 120', 'linked row 121', 'linked row 2']);
    await wb.screenshot('people-compare-windows');
    await setTheme(wb, view, 'Default Dark Modern');
    await wb.screenshot('people-compare-windows-dark');
    await setTheme(wb, view, 'Default Light Modern');
    // From the palette: pick both outputs, then type each side's window.
    await wb.runCommand('View: Close All Editors');
    await wb.runCommand('Bounded Evidence: Compare Outputs…');
    const input = wb.page.locator('.quick-input-widget input');
    for (const title of ['Compare: the left output', 'Compare: the right output']) {
      await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 30_000 });
      await input.fill(handle);
      await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: handle }).first().waitFor();
      await input.press('Enter');
    }
    for (const [answer, title] of [
      ['lines 5-6', `Compare: the left window, of ${handle}`],
      ['lines 300-301', `Compare: the right window, of ${handle}`],
    ] as const) {
      await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 30_000 });
      await input.fill(answer);
      await input.press('Enter');
    }
    await wb.page
      .locator('.tabs-container .tab', { hasText: `${handle} lines 5–6 ↔ ${handle} lines 300–301` })
      .waitFor({ timeout: 30_000 });
    const typed = wb.page.locator('.monaco-diff-editor');
    await typed.locator('.view-line', { hasText: 'linked row 301' }).first().waitFor({ timeout: 30_000 });
    await typed.locator('.view-line', { hasText: 'linked row 6' }).first().waitFor({ timeout: 30_000 });
    const lines = [
      ...new Set(
        (await typed.locator('.view-line').allTextContents())
          .map((x) => x.replace(/\u00a0/g, ' ').trim())
          .filter((x) => x !== ''),
      ),
    ].sort();
    assert.deepEqual(lines, ['linked row 300', 'linked row 301', 'linked row 5', 'linked row 6']);
  }

  // 200% zoom as a browser applies it: the page's CSS viewport is half the window and
  // devicePixelRatio is 2 (a web workbench has no zoom of its own; the browser's is what
  // a person uses), so a 900×700 window lays out in 450×350 CSS px.
  // 1920×1080 first: the 900×700 case closes the side bars (see below) and nothing after it needs them.
  for (const [width, height] of [
    [1920, 1080],
    [900, 700],
  ] as const) {
    it(`is usable at 200% zoom in a ${width}×${height} window: list rows, nothing covered, key fields whole, axe clean`, async () => {
      await wb.runCommand('Bounded Evidence: Open Inspector');
      await view.locator('#splitter').waitFor();
      // At 200% a 900×700 window is 450×350 CSS px: the side bar and the chat would leave the
      // editor almost nothing, so a person closes them (as here); at 1920×1080 they stay open.
      if (width === 900) {
        await wb.runCommand('View: Close Primary Side Bar');
        await wb.runCommand('View: Hide Secondary Side Bar');
        await wb.page.locator('.part.sidebar').waitFor({ state: 'hidden' });
        await wb.page.locator('.part.auxiliarybar').waitFor({ state: 'hidden' });
      }
      const cdp = await wb.page.context().newCDPSession(wb.page);
      try {
        await wb.page.setViewportSize({ width: width / 2, height: height / 2 });
        await cdp.send('Emulation.setDeviceMetricsOverride', {
          width: width / 2,
          height: height / 2,
          deviceScaleFactor: 2,
          mobile: false,
        });
        await view.locator('#filter-text input').fill('the build broke');
        await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stderr' }).first().click();
        await view.locator('#detail-title', { hasText: 'stderr of' }).waitFor();
        await view.locator('#filter-text input').fill('');
        await view.locator('#list-summary', { hasText: /^\d+ of \d+ calls$/ }).waitFor();
        await layoutSettled(wb.page, view);
        assert.equal(
          await view
            .locator('body')
            .evaluate(() => (globalThis as unknown as { devicePixelRatio: number }).devicePixelRatio),
          2,
        );
        const layout = await view.locator('#split').getAttribute('data-layout');
        const m = await measureLayout();
        const shot = await wb.screenshot(`people-zoom-200-${width}x${height}`);
        console.log(
          `    200% zoom, ${width}×${height}: layout ${layout}, ${m.rows} rows fully visible, list ${Math.round(m.listHeight)} CSS px — ${path.basename(shot)}`,
        );
        // 450×350 CSS px is too short for five rows and a detail: the list gives up rows, never the detail
        // (inspectorThirdPass.test.ts moves the splitter there).
        const least = width === 900 ? 1 : 5;
        assert.ok(
          m.rows >= least,
          `only ${m.rows} list rows visible at 200% zoom in ${width}×${height} (layout ${layout})`,
        );
        assert.ok(m.detailHeight >= 48, `the detail is ${m.detailHeight} px tall`);
        assert.deepEqual(m.cut, []);
        assert.deepEqual(m.covered, []);
        const findings = await axe(wb.page);
        for (const f of findings)
          console.log(`      ${f.impact} ${f.id} ×${f.nodes}: ${f.targets.join(' | ')} — ${f.summary}`);
        assert.deepEqual(
          findings.filter((f) => f.impact === 'serious' || f.impact === 'critical').map((f) => f.id),
          [],
        );
      } finally {
        await cdp.send('Emulation.clearDeviceMetricsOverride').catch(() => undefined);
        await cdp.detach().catch(() => undefined);
        await wb.page.setViewportSize({ width: 1400, height: 900 });
      }
    });
  }
});
