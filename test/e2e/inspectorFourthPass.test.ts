/**
 * Small things of the inspector in a real workbench in High Contrast Light, VS Code's default layout: the selected
 * fetch tab is marked (2), Home and End move in an open dropdown (4), the gap button's window starts at a line
 * start (6), and Export Output… from the palette asks which output and saves outside the workspace (3).
 * Screenshots go to test-output/e2e/fourth-pass-*.png.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import type { Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

/** Lines of different lengths, so the preview's head is cut inside one. */
const script = "for (let i = 0; i < 5000; i++) console.log('line ' + i + ' ' + 'x'.repeat(i % 37))";
const output = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}\n`);
const lineStarts = new Set<number>();
for (let i = 0, at = 0; i < output.length; at += output[i]!.length, i++) lineStarts.add(at);

/** The few DOM members read in the page (the tests compile without the DOM library). */
interface El {
  readonly value: string;
}
interface Probe {
  readonly style: Record<string, string>;
  append(e: unknown): void;
  remove(): void;
}
interface Win {
  getComputedStyle(e: El): Record<string, string>;
}

describe('Inspector in High Contrast Light: tabs, dropdown keys and the gap in a real workbench', function () {
  this.timeout(300_000);
  let wb: Workbench;
  let view: FrameLocator;

  before(async () => {
    wb = await openWorkbench({ label: 'fourth-pass', colorTheme: 'Default High Contrast Light' });
    view = wb.webview();
    await wb.page.setViewportSize({ width: 900, height: 700 });
    await wb.capture(`node -e "${script}"`);
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 90_000 });
    await view.locator('body.vscode-high-contrast-light').waitFor();
  });
  after(() => closeWorkbench(wb));

  for (const [width, height] of [
    [900, 700],
    [1920, 1080],
  ] as const)
    it(`2 · ${width}×${height}: the selected tab is marked, the others not`, async () => {
      await wb.page.setViewportSize({ width, height });
      // The theme's colour, resolved by the page as the outline's would be.
      const border = await view.locator('#fetch-heading').evaluate((el: unknown) => {
        const w = globalThis as unknown as Win & { document: { createElement(t: string): El & Probe } };
        const probe = w.document.createElement('span');
        probe.style.color = 'var(--vscode-contrastActiveBorder)';
        (el as Probe).append(probe);
        const color = w.getComputedStyle(probe).color;
        probe.remove();
        return color;
      });
      assert.notEqual(border, 'rgba(0, 0, 0, 0)');
      for (const name of ['Lines', 'Pattern', 'Byte range']) {
        await view.locator('vscode-tab-header', { hasText: name }).click();
        await view.locator('vscode-tab-header[active]', { hasText: name }).waitFor();
        const styles = await view.locator('vscode-tab-header').evaluateAll((tabs) =>
          (tabs as unknown as El[]).map((t) => {
            const s = (globalThis as unknown as Win).getComputedStyle(t);
            return { style: s.outlineStyle, color: s.outlineColor };
          }),
        );
        const active = await view
          .locator('vscode-tab-header')
          .evaluateAll((tabs) => tabs.map((t) => t.hasAttribute('active')));
        assert.equal(active.filter(Boolean).length, 1);
        for (const [i, s] of styles.entries()) {
          if (active[i]) {
            // High Contrast Light's contrast border, drawn solid.
            assert.equal(s.style, 'solid', name);
            assert.equal(s.color, border, name);
          } else assert.equal(s.style, 'none', name);
        }
      }
      await wb.screenshot(`fourth-pass-2-${width}x${height}`);
    });

  it('4 · Home and End move to the first and last option of an open dropdown', async () => {
    await wb.page.setViewportSize({ width: 900, height: 700 });
    // At this width the dropdowns are behind Filters.
    await view.locator('#toggle-filters[aria-expanded="false"]').click();
    const outcome = view.locator('#filter-outcome');
    const value = (): Promise<string> => outcome.evaluate((el: unknown) => (el as El).value);
    await outcome.click();
    await outcome.press('End');
    await outcome.press('Enter');
    await view.locator('#list-summary', { hasText: /^0 of 1 calls?$/ }).waitFor();
    assert.equal(await value(), 'running');
    await outcome.click();
    await outcome.press('Home');
    await outcome.press('Enter');
    await view.locator('#list-summary', { hasText: /^1 of 1 calls?$/ }).waitFor();
    assert.equal(await value(), '');
    // The tool picker's list, a listbox of its own.
    const tool = view.locator('#filter-tool');
    await tool.click();
    const options = view.locator('#filter-tool-options [role="option"]');
    await options.nth(1).waitFor();
    await view.locator('#filter-tool input').press('ArrowDown');
    const focused = view.locator('#filter-tool-options [role="option"]:focus');
    await focused.filter({ hasText: 'All tools' }).waitFor();
    await focused.press('End');
    await focused.filter({ hasText: 'evidence_runCommand' }).waitFor();
    await wb.screenshot('fourth-pass-4-900x700');
    await focused.press('Home');
    await focused.filter({ hasText: 'All tools' }).waitFor();
    await focused.press('Escape');
    await view.locator('#toggle-filters[aria-expanded="true"]').click();
  });

  it("6 · the gap button's window starts at a line start", async () => {
    for (const [width, height] of [
      [900, 700],
      [1920, 1080],
    ] as const) {
      await wb.page.setViewportSize({ width, height });
      await view.locator('.vlist-row[data-kind="part"]', { hasText: 'stdout' }).first().click();
      // The gap is read from stdout's preview, not from one still shown from before the click.
      await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
      const label = await view.locator('#preview-gap').textContent();
      const headEnd = Number(/bytes \[(\d+),/.exec(label ?? '')![1]);
      // The head is cut inside a line, so the case is exercised.
      assert.ok(!lineStarts.has(headEnd), `head ends at a line start (${headEnd})`);
      // The part's first window may land before or after the click; the gap's window is told by where it starts.
      const want = Math.max(...[...lineStarts].filter((at) => at < headEnd));
      await view.locator('#preview-gap').click();
      await view
        .locator(`#window[data-start="${want}"]`)
        .waitFor({ timeout: 30_000 })
        .catch(async () => {
          const start = await view.locator('#window').getAttribute('data-start');
          assert.fail(`the window starts at ${start}, not at ${want}, the start of the line cut at ${headEnd}`);
        });
      assert.match((await view.locator('#window .wline .tx').first().textContent()) ?? '', /^line \d+ x*$/);
      await wb.screenshot(`fourth-pass-6-${width}x${height}`);
    }
  });

  it('3 · Export Output… from the palette asks which output and saves outside the workspace, then where last saved', async () => {
    await wb.page.setViewportSize({ width: 900, height: 700 });
    const home = wb.server.env.HOME!;
    mkdirSync(path.join(home, 'Downloads'), { recursive: true });
    mkdirSync(path.join(home, 'exports'), { recursive: true });
    const input = wb.page.locator('.quick-input-widget input');
    const pickStdout = async (): Promise<string> => {
      await wb.runCommand('Bounded Evidence: Export Output…');
      const row = wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'evidence_runCommand stdout' });
      await row.first().waitFor({ timeout: 30_000 });
      const handle = ((await row.first().locator('.label-name').first().textContent()) ?? '').trim();
      assert.match(handle, /^out_[a-z0-9]+$/);
      await row.first().click();
      // VS Code's own save dialog in the browser: a path in the quick input.
      await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: `Export ${handle}` }).waitFor();
      return handle;
    };
    const handle = await pickStdout();
    await wb.page.waitForFunction(
      ([sel, want]) =>
        (globalThis as unknown as { document: { querySelector(s: string): El | null } }).document.querySelector(sel!)
          ?.value === want,
      ['.quick-input-widget input', path.join(home, 'Downloads', `${handle}.txt`)],
    );
    await wb.screenshot('fourth-pass-3-900x700');
    const target = path.join(home, 'exports', 'stdout.txt');
    await input.fill(target);
    // The dialog checks a typed path before it accepts Enter; an Enter before that is ignored, so it is pressed
    // again until the dialog closes.
    for (let tries = 0; ; tries++) {
      await input.press('Enter');
      const closed = await wb.page
        .locator('.quick-input-widget')
        .waitFor({ state: 'hidden', timeout: 5_000 })
        .then(
          () => true,
          () => false,
        );
      if (closed) break;
      assert.ok(tries < 10, 'the save dialog did not accept the path');
    }
    const written = await waitForFile(target);
    assert.equal(written.length, output.join('').length);
    assert.ok(statSync(`${target}.provenance.json`).isFile());
    assert.deepEqual(readdirSync(wb.workspaceDir).sort(), ['.vscode']);
    // The next one opens where this one was saved.
    await pickStdout();
    await wb.page.waitForFunction(
      ([sel, want]) =>
        (globalThis as unknown as { document: { querySelector(s: string): El | null } }).document.querySelector(sel!)
          ?.value === want,
      ['.quick-input-widget input', path.join(home, 'exports', `${handle}.txt`)],
    );
    await input.press('Escape');
  });
});

/** The export is written by the extension host after the dialog closes. */
async function waitForFile(file: string): Promise<Buffer> {
  for (;;) {
    if (existsSync(`${file}.provenance.json`)) return readFileSync(file);
    await new Promise((r) => setTimeout(r, 100));
  }
}
