/**
 * The detail's words for binary content and its errors, in a real workbench at 900×700 (default layout): binary
 * content shows no line count (its newline bytes are not lines), a window past the end says the output's size, and
 * the verdict names a short digest with the whole one on hover. Screenshot: test-output/e2e/detail-words-*.png.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Locator } from 'playwright-core';
import type { Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

/** An ELF-like header, 2,000 newline bytes and 2,000 bytes of 0xff: 4,004 bytes, not UTF-8. */
const command = `node -e "process.stdout.write(Buffer.concat([Buffer.from([127, 69, 76, 70]), Buffer.alloc(2000, 10), Buffer.alloc(2000, 255)]))"`;

describe('Inspector detail words for binary content and errors in a real workbench', function () {
  this.timeout(300_000);
  let wb: Workbench;
  let view: FrameLocator;
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();

  before(async () => {
    wb = await openWorkbench({ label: 'detail-words', colorTheme: 'Default Light Modern' });
    view = wb.webview();
    await wb.page.setViewportSize({ width: 900, height: 700 });
    await wb.capture(command);
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 90_000 });
  });
  after(() => closeWorkbench(wb));

  it('11 · binary content has no "Lines"; past the end gives the size; the verdict shows a short digest', async () => {
    await view.locator('.identity dd', { hasText: '(binary)' }).waitFor();
    assert.equal(await view.locator('#id-lines').count(), 0);
    await view.locator('vscode-tab-header', { hasText: 'Byte range' }).click();
    await view.locator('#bytes-start input').fill('4000');
    await view.locator('#bytes-end input').fill('4100');
    await view.locator('#bytes-end input').press('Enter');
    const error = view.locator('#window-error');
    await error.filter({ hasText: /./ }).waitFor();
    assert.equal(await text(error), 'byte 4,100 is past the end: the output holds 4,004 bytes');
    await view.locator('#verify').click();
    const verdict = view.locator('#verdict.ok');
    await verdict.waitFor({ timeout: 30_000 });
    const sha = (await view.locator('#id-sha').textContent())!.trim();
    assert.match(sha, /^[0-9a-f]{64}$/);
    assert.match(
      await text(verdict),
      new RegExp(`^Verified: all 4,004 bytes match sha256 ${sha.slice(0, 12)}… \\(\\d+ ms\\)\\.$`),
    );
    assert.equal(await verdict.getAttribute('title'), `sha256 ${sha}`);
    await wb.screenshot('detail-words-11-900x700');
  });
});
