/**
 * The Pattern tab on binary content: it once said "Binary content is not
 * searched" while Search all outputs found matches in the same bytes. A command writes a
 * known needle at a known byte offset among bytes that are not UTF-8; Find lists the match
 * by its byte offset and shows the hex dump around it with the matched row marked, at
 * 900×700 and 1920×1080.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import type { Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

/** 5,000 bytes of 0xff, the needle at byte 5,000, then 3,000 zero bytes: 8,006 bytes, not UTF-8. */
const NEEDLE_AT = 5000;
const command = `node -e "process.stdout.write(Buffer.concat([Buffer.alloc(${NEEDLE_AT}, 255), Buffer.from('NEEDLE'), Buffer.alloc(3000, 0)]))"`;

describe('Inspector: the Pattern tab finds in binary content', function () {
  this.timeout(300_000);
  let wb: Workbench;
  let view: FrameLocator;
  const errors: string[] = [];
  before(async () => {
    wb = await openWorkbench({ label: 'binary', colorTheme: 'Default Dark Modern' });
    view = wb.webview();
    wb.page.on('pageerror', (e) => errors.push(e.message));
    await wb.capture(command);
    await view.locator('#detail-outcome', { hasText: 'exit 0' }).waitFor({ timeout: 60_000 });
  });
  after(() => closeWorkbench(wb));
  afterEach(() => {
    assert.deepEqual(errors.splice(0), [], 'uncaught errors in the page');
  });

  for (const [width, height] of [
    [900, 700],
    [1920, 1080],
  ] as const) {
    it(`${width}×${height}: Find lists the match by byte offset and marks its row in the hex dump`, async () => {
      await wb.page.setViewportSize({ width, height });
      await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: 'stdout' }).first().click();
      await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
      await view.locator('vscode-tab-header', { hasText: 'Pattern' }).click();
      await view.locator('#pattern input').fill('NEEDLE');
      await view.locator('#pattern input').press('Enter');
      const hit = view.locator('#window .wline[aria-current="true"]');
      await hit.waitFor({ timeout: 30_000 });
      // The hit is drawn as soon as it is found; the count follows when the whole output has been searched.
      await view.locator('#match-info', { hasText: /^\s*Match 1 of 1\s*$/ }).waitFor({ timeout: 30_000 });
      assert.equal((await view.locator('.match .ln').allTextContents()).join('|'), 'byte 5,000');
      // 16-byte rows from 4,928 (a row boundary 64 bytes or fewer before the match) to 5,184.
      assert.match(
        (await view.locator('#window-position').textContent()) ?? '',
        /^bytes \[4928, 5184\) · 256 bytes · of 8,006 bytes, 1 line · hex dump$/,
      );
      // The marked row is the one holding byte 5,000 (row 0x1380): eight 0xff bytes, then N E E D L E and two zeros;
      // screen readers hear its label first.
      assert.equal(
        (await hit.textContent())?.trim(),
        'Matched byte 5,000: 00001380  ff ff ff ff ff ff ff ff  4e 45 45 44 4c 45 00 00  |........NEEDLE..|',
      );
      await wb.screenshot(`inspector-binary-pattern-${width}x${height}`);
    });
  }
});
