/**
 * An excerpt's `open:` link followed as a person follows it in the browser workbench:
 * Copy Excerpt in the inspector, paste into an editor, Ctrl+click the link. In a served
 * workbench the link is the workbench's own `/callback?…` address; the browser opens it in
 * a new tab, whose page hands the URI to the open window (localStorage), which gives it to
 * the extension's URI handler. What opens must be the inspector on exactly that call and
 * window. The same link pasted into Open Evidence Link… opens it too.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { INSPECTOR_FRAME, outputDir, type Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

/** Browser globals used inside `evaluate` callbacks (they run in the page, not in Node). */
declare const navigator: { clipboard: { readText(): Promise<string>; writeText(t: string): Promise<void> } };

const fixtures = path.join(__dirname, 'fixtures', 'workspace');
const rows = Array.from({ length: 400 }, (_, i) => `excerpt row ${i + 1}\n`);
const total = Buffer.byteLength(rows.join(''));

describe('Excerpt links followed in a real browser workbench', function () {
  this.timeout(240_000);
  let wb: Workbench;
  let view: FrameLocator;
  let handle = '';
  /** Figures printed at the end (the closing note quotes them). */
  const figures: Record<string, string> = {};
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();

  before(async () => {
    wb = await openWorkbench({ label: 'excerpt-link', workspaceTemplate: fixtures, colorTheme: 'Default Dark Modern' });
    view = wb.webview();
    // The chat beside the editors is not part of this; its room goes to the inspector.
    await wb.runCommand('View: Hide Secondary Side Bar');
    await wb.capture(`node -e "for (let i = 1; i <= 400; i++) console.log('excerpt row ' + i)"`);
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 90_000 });
    await view.locator('#id-size', { hasText: total.toLocaleString('en-US') }).waitFor();
    handle = await text(view.locator('#id-handle'));
  });
  after(async () => {
    console.log(`    figures: ${JSON.stringify(figures, null, 2)}`);
    await closeWorkbench(wb);
  });

  /** Closes every editor (the inspector too); the pasted notes are dropped unsaved. */
  async function closeAllEditors(): Promise<void> {
    await wb.runCommand('View: Close All Editors');
    const dontSave = wb.page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" });
    for (const deadline = Date.now() + 30_000; (await wb.page.locator('.tabs-container .tab').count()) > 0;) {
      if (Date.now() > deadline) throw new Error('editors still open');
      if (await dontSave.isVisible()) await dontSave.click();
      await wb.page.waitForTimeout(200);
    }
    await wb.page.locator(INSPECTOR_FRAME).waitFor({ state: 'detached', timeout: 30_000 });
  }

  /** Opens the inspector on the captured output (by its handle in the text filter). */
  async function showOutput(): Promise<void> {
    await wb.runCommand('Bounded Evidence: Open Inspector');
    await view.locator('#filter-text input').fill(handle);
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: handle }).click();
    await view.locator('#id-handle', { hasText: handle }).waitFor({ timeout: 30_000 });
    await view.locator('#filter-text input').fill('');
  }

  /** Shows lines [from, from + count) in the panel. */
  async function showLines(from: number, count: number): Promise<void> {
    await view.locator('vscode-tab-header', { hasText: 'Lines' }).click();
    await view.locator('#lines-from input').fill(String(from));
    await view.locator('#lines-count input').fill(String(count));
    await view.locator('#fetch-lines').click();
    await view
      .locator('#window-position', { hasText: count === 1 ? `line ${from} ` : `lines ${from}–${from + count - 1} ` })
      .waitFor();
  }

  /** Shows lines [from, from + count) in the panel and copies their excerpt; returns the excerpt. */
  async function copyExcerptOfLines(from: number, count: number): Promise<string> {
    await showLines(from, count);
    await wb.page.evaluate(() => navigator.clipboard.writeText('(empty)'));
    await view.locator('#copy-excerpt').click();
    await view.locator('#action-result', { hasText: 'copied with its provenance' }).waitFor();
    return await wb.page.evaluate(() => navigator.clipboard.readText());
  }

  /** Bytes [start, end) of lines [from, from + count) (1-based). */
  const bytesOf = (from: number, count: number): [number, number] => {
    const start = Buffer.byteLength(rows.slice(0, from - 1).join(''));
    return [start, start + Buffer.byteLength(rows.slice(from - 1, from - 1 + count).join(''))];
  };

  /** The `open:` link of an excerpt. */
  const linkOf = (excerpt: string): string => {
    const m = /^- open: <(.+)>$/m.exec(excerpt);
    assert.ok(m, excerpt);
    return m[1]!;
  };

  /** The inspector shows `handle`'s stdout with exactly bytes [start, end) on screen, marked as the link's window. */
  async function showsLinkedWindow(start: number, end: number, lines: string[]): Promise<void> {
    await view.locator(`#window[data-start="${start}"][data-end="${end}"]`).waitFor({ timeout: 30_000 });
    assert.equal(await text(view.locator('#id-handle')), handle);
    assert.match(await text(view.locator('#detail-title')), /^stdout of /);
    assert.deepEqual(await view.locator('#window .wline.hit .tx').allTextContents(), lines);
    assert.match(
      await text(view.locator('#window-position')),
      new RegExp(`^bytes \\[${start}, ${end}\\) .* — Linked bytes \\[${start}, ${end}\\)$`),
    );
  }

  /** Opens Open Evidence Link… and submits `text` as pasted. */
  async function pasteIntoOpenEvidenceLink(link: string): Promise<void> {
    await wb.runCommand('Bounded Evidence: Open Evidence Link…');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(link);
    await input.press('Enter');
  }

  /** A screenshot of the callback tab, beside the workbench's (test-output/e2e/). */
  const tabShot = (tab: Page, name: string): Promise<Buffer> =>
    tab.screenshot({ path: path.join(outputDir, 'e2e', `${name}.png`) });

  /** Pastes the clipboard into a new untitled editor and Ctrl+clicks the link in it; returns the tab the browser opened. */
  async function pasteAndCtrlClick(link: string, shot?: string): Promise<Page> {
    // Ctrl+Alt+N: File: New Untitled Text File, as the palette shows it in a browser.
    await wb.page.keyboard.press('Control+Alt+N');
    const editor = wb.page.locator('.editor-instance .monaco-editor').first();
    await editor.waitFor();
    await wb.page.locator('.tabs-container .tab.active', { hasText: /Untitled-\d+/ }).waitFor();
    await editor.click();
    await wb.page.keyboard.press('Control+V');
    return await ctrlClick(link, shot);
  }

  /** Ctrl+clicks `link` in the editor on screen; returns the tab the browser opened. */
  async function ctrlClick(link: string, shot?: string): Promise<Page> {
    const line = wb.page.locator('.editor-instance .view-line span', { hasText: link.slice(0, 60) }).first();
    await line.waitFor({ timeout: 30_000 });
    // The editor finds links a moment after the text changes (underlined then): as a person sees it.
    await wb.page.locator('.editor-instance .view-line .detected-link').first().waitFor({ timeout: 30_000 });
    // On the link's first characters (a long line runs past the editor's right edge): "- open: <" then the address.
    const box = (await line.boundingBox())!;
    const charWidth = box.width / ((await line.textContent()) ?? '').length;
    const at = { x: charWidth * 14, y: box.height / 2 };
    const opened = wb.context.waitForEvent('page', { timeout: 30_000 });
    await line.hover({ position: at });
    await wb.page.keyboard.down('Control');
    if (shot) await wb.screenshot(shot);
    await line.click({ position: at, modifiers: ['Control'] });
    await wb.page.keyboard.up('Control');
    // The link's hover ("Follow link") stays under a resting mouse, over the tab bar: moved away, as a person's
    // hand moves on, and gone before anything else is clicked.
    await wb.page.mouse.move(2, (wb.page.viewportSize()?.height ?? 700) - 2);
    await wb.page
      .locator('.editor-container .monaco-hover:visible')
      .first()
      .waitFor({ state: 'detached', timeout: 30_000 })
      .catch(() => {
        throw new Error("the link's hover is still on screen");
      });
    const tab = await opened;
    await tab.waitForLoadState();
    assert.equal(tab.url(), link, 'the browser opened the link as copied');
    // The workbench's own callback page: it hands the link to the window that made it.
    await tab.getByText('You can close this page now.').waitFor();
    return tab;
  }

  for (const [width, height, from] of [
    [1920, 1080, 120],
    [900, 700, 250],
  ] as const) {
    it(`${width}×${height}: Ctrl+click on the link pasted into an editor opens the inspector on exactly that call and window (the new tab's callback page tells the open window)`, async () => {
      await wb.page.setViewportSize({ width, height });
      await showOutput();
      const [start, end] = bytesOf(from, 3);
      const excerpt = await copyExcerptOfLines(from, 3);
      const link = linkOf(excerpt);
      const u = new URL(link);
      assert.equal(u.origin, new URL(wb.page.url()).origin, "the link is this workbench's own address");
      assert.equal(u.searchParams.get('vscode-query'), `handle=${handle}&bytes=${start}-${end}`);

      // Nothing of it on screen any more: every editor closed, the inspector too.
      await closeAllEditors();
      const t0 = Date.now();
      const tab = await pasteAndCtrlClick(link, `excerpt-link-pasted-${width}x${height}`);
      await showsLinkedWindow(start, end, [
        `excerpt row ${from}`,
        `excerpt row ${from + 1}`,
        `excerpt row ${from + 2}`,
      ]);
      figures[`${width}x${height}`] = `${Date.now() - t0} ms from Ctrl+click to the window on screen`;
      await wb.screenshot(`excerpt-link-followed-${width}x${height}`);
      await tabShot(tab, `excerpt-link-callback-tab-${width}x${height}`);
      await tab.close();
    });
  }

  it('followed a second time the callback tells the window nothing (it is single-use); the same address pasted into Open Evidence Link… opens it, a forged one is refused', async () => {
    await wb.page.setViewportSize({ width: 900, height: 700 });
    await showOutput();
    const [start, end] = bytesOf(300, 2);
    const link = linkOf(await copyExcerptOfLines(300, 2));
    await closeAllEditors();
    await (await pasteAndCtrlClick(link)).close();
    await showsLinkedWindow(start, end, ['excerpt row 300', 'excerpt row 301']);
    // The same link again, from the editor it was pasted into: the tab opens, the window is not told.
    await wb.page
      .locator('.tabs-container .tab', { hasText: /Untitled-\d+/ })
      .last()
      .click();
    const again = await ctrlClick(link);
    // The workbench reads a callback within a second of its page writing it; three seconds on,
    // the editor is still in front (a delivered link reveals the inspector, as the first follow did).
    await wb.page.waitForTimeout(3000);
    await again.close();
    assert.match(await text(wb.page.locator('.tabs-container .tab.active')), /Untitled-\d+/);
    figures.secondFollow = "not delivered (VS Code's callback is single-use)";

    // The same address pasted into Open Evidence Link… opens exactly that window (another one on screen first).
    await wb.page.locator('.tabs-container .tab', { hasText: 'Evidence Inspector' }).click();
    // Shown again, the page is built anew from its saved state: the call it showed comes back before its form is used.
    await wb.page.locator('.tabs-container .tab.active', { hasText: 'Evidence Inspector' }).waitFor();
    await view.locator('#id-handle', { hasText: handle }).waitFor({ timeout: 30_000 });
    await showLines(10, 1);
    await pasteIntoOpenEvidenceLink(link);
    await showsLinkedWindow(start, end, ['excerpt row 300', 'excerpt row 301']);
    // A forged one (another route of the same host) opens nothing and says why, once.
    await pasteIntoOpenEvidenceLink(link.replace('/callback?', '/login?'));
    await wb.runCommand('Notifications: Show Notifications');
    const said =
      "Bounded Evidence: this evidence link is not valid: an http(s) link must be the workbench's /callback?vscode-… address an excerpt gives. Nothing was opened.";
    await wb.page
      .locator('.notifications-center .notification-list-item', { hasText: said })
      .waitFor({ timeout: 30_000 });
    await wb.screenshot('excerpt-link-forged-900x700');
    await wb.runCommand('Notifications: Clear All Notifications');
    await view.locator(`#window[data-start="${start}"][data-end="${end}"]`).waitFor();
  });
});
