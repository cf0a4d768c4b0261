/**
 * Root hooks for the end-to-end suite: whenever a test fails, a screenshot of every open workbench (saved under
 * test-output/e2e/failures/) and a few lines of what it shows and logged, printed: CI keeps the log, not the files.
 */
import type { Context } from 'mocha';
import { extensionLogs, type Workbench } from '../harness/workbench.js';
import { openWorkbenches } from './session.js';

/** Mocha root hook plugin. */
export const mochaHooks = {
  async afterEach(this: Context): Promise<void> {
    if (this.currentTest?.state !== 'failed') return;
    for (const wb of openWorkbenches()) {
      try {
        const file = await wb.screenshot(`failures/${wb.label}-${this.currentTest.fullTitle()}`);
        console.log(`    screenshot of the failure: ${file}`);
        console.log((await scene(wb)).map((l) => `      ${l}`).join('\n'));
      } catch {
        /* the page may be gone */
      }
    }
  },
};

/** The tabs, notifications and webviews on screen, and the end of the extension's log. */
async function scene(wb: Workbench): Promise<string[]> {
  const texts = (selector: string): Promise<string[]> =>
    wb.page
      .locator(selector)
      .evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 160)));
  // Evaluated in the page: typed as the little it uses (the suite has no DOM types).
  type Frame = { className: string; src: string; getBoundingClientRect(): { width: number; height: number } };
  const webviews = await wb.page.locator('iframe.webview').evaluateAll((els) =>
    (els as unknown as Frame[]).map((e) => {
      const q = new URL(e.src).searchParams;
      const r = e.getBoundingClientRect();
      return `${e.className} ${q.get('extensionId') ?? '-'} ${q.get('purpose') ?? '-'} ${Math.round(r.width)}×${Math.round(r.height)}`;
    }),
  );
  return [
    `tabs: ${JSON.stringify(await texts('.tabs-container .tab'))}`,
    `notifications: ${JSON.stringify(await texts('.notification-toast .notification-list-item-message'))}`,
    `webviews: ${JSON.stringify(webviews)}`,
    'the extension logged last:',
    ...extensionLogs(wb).flatMap((lines) => lines.slice(-12).map((l) => `  ${l.slice(0, 200)}`)),
  ];
}
