/**
 * Two windows on one folder (a second browser tab, or a reload while the server keeps the
 * old extension host for its reconnection): VS Code gives the second window's extension host
 * the `-1` workspace storage folder, because the first holds the lock of the workspace's own.
 * The evidence must not seem lost there: both windows read and write one store
 * (docs/contracts.md §2.6, `sharedWorkspaceStorage`).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { runPaletteCommand, type Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

/** The status bar's `N runs · …` item of a window, once it says `runs` runs. */
async function statusSays(page: Page, runs: number): Promise<void> {
  await page
    .locator('.statusbar-item', { hasText: new RegExp(`\\b${runs} runs? · `) })
    .first()
    .waitFor({ timeout: 60_000 });
}

describe('Two windows on one folder share its evidence', function () {
  this.timeout(300_000);
  let wb: Workbench;
  before(async () => {
    wb = await openWorkbench({ label: 'windows' });
  });
  after(() => closeWorkbench(wb));

  it('a run captured in one window is listed in the other, both ways', async () => {
    await wb.capture('echo from the first window');
    await statusSays(wb.page, 1);
    const second = await wb.context.newPage();
    await second.goto(wb.page.url());
    await second.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The case under test happened: the second window's host was given a `-1` folder.
    const storageRoot = path.join(wb.server.runDir, 'user-data', 'User', 'workspaceStorage');
    const suffixed = (): string[] =>
      (existsSync(storageRoot) ? readdirSync(storageRoot) : []).filter((d) => /-1$/.test(d));
    for (let i = 0; i < 120 && suffixed().length === 0; i++) await second.waitForTimeout(500);
    assert.equal(
      suffixed().length,
      1,
      `workspace storage folders: ${existsSync(storageRoot) ? readdirSync(storageRoot).join(', ') : '(none)'}`,
    );
    await statusSays(second, 1);
    // The second window's capture reaches the first (its status bar polls the shared catalog).
    await runPaletteCommand(second, 'Bounded Evidence: Run Command and Capture');
    const input = second.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill('echo from the second window');
    await input.press('Enter');
    await statusSays(second, 2);
    await statusSays(wb.page, 2);
    // Nothing of the evidence went into the `-1` folder.
    const own = path.join(storageRoot, suffixed()[0]!, 'bounded-evidence.bounded-evidence', 'evidence');
    assert.equal(existsSync(own), false, `${own} was created`);
    await second.close();
  });
});
