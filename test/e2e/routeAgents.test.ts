/**
 * Route Agents Through Evidence… and Stop Routing Agents… as a person uses them, in a real workbench (default
 * layout, 900×700): the quick pick says in one line what routing does, ticks nothing for Copilot with no GitHub
 * sign-in, says which folder rows also write the home folder; the result's undo button runs Stop Routing Agents…,
 * which lists only what is routed and leaves no empty `.github/hooks/`. Screenshots: test-output/e2e/route-*.png.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';

describe('Routing agents from the palette in a real workbench', function () {
  this.timeout(300_000);
  let wb: Workbench;
  const rows = (): ReturnType<Workbench['page']['locator']> =>
    wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  const row = (name: RegExp, scope: string): ReturnType<Workbench['page']['locator']> =>
    rows().filter({ hasText: name }).filter({ hasText: scope });

  before(async () => {
    wb = await openWorkbench({ label: 'route', colorTheme: 'Default Light Modern' });
    await wb.page.setViewportSize({ width: 900, height: 700 });
  });
  after(async () => {
    await closeWorkbench(wb);
  });

  it('9 · the pick says what routing does, ticks no signed-out Copilot, names the home folder; undo stops it', async () => {
    await wb.runCommand('Bounded Evidence: Route Agents Through Evidence…');
    const input = wb.page.locator('.quick-input-widget input.input');
    await rows().first().waitFor({ timeout: 60_000 });
    // One line on what routing does, whole in the title (its text fits its box).
    const title = wb.page.locator('.quick-input-widget .quick-input-title', {
      hasText: "Routed agents' commands keep every byte; their model sees a bounded view",
    });
    await title.waitFor({ timeout: 30_000 });
    assert.ok(await title.evaluate((e) => e.scrollWidth <= e.clientWidth), 'the title is cut');
    // No GitHub sign-in here: Copilot is offered, not ticked.
    const copilot = row(/GitHub Copilot/, 'this folder').first();
    await copilot.waitFor();
    const box = copilot.locator('[role="checkbox"]');
    assert.equal(await box.getAttribute('aria-checked'), 'false');
    // Codex's folder row also writes the home folder (its trust entry), and says so.
    await row(/^Codex/, 'this folder')
      .first()
      .scrollIntoViewIfNeeded();
    assert.match(
      (await row(/^Codex/, 'this folder')
        .first()
        .textContent()) ?? '',
      /this folder · also your home folder/,
    );
    await wb.screenshot('route-9-pick-900x700');
    // Route Copilot for this folder only.
    await input.fill('Copilot');
    await box.click();
    await copilot.locator('[role="checkbox"][aria-checked="true"]').waitFor();
    await input.press('Enter');
    const hooks = path.join(wb.workspaceDir, '.github', 'hooks');
    const file = path.join(hooks, 'bounded-evidence.json');
    const deadline = Date.now() + 30_000;
    while (!existsSync(file) && Date.now() < deadline) await wb.page.waitForTimeout(100);
    assert.ok(existsSync(file), 'the hook file was written');
    // The result's undo is a button (smoke-test mode sends toasts to the notification centre).
    await wb.runCommand('Notifications: Show Notifications');
    const note = wb.page.locator('.notifications-center .notification-list-item', { hasText: /GitHub Copilot/ });
    await note.first().waitFor({ timeout: 30_000 });
    assert.doesNotMatch((await note.first().textContent()) ?? '', /bounded-evidence init --uninstall/);
    await wb.screenshot('route-9-done-900x700');
    await note.first().locator('a.monaco-button, .monaco-button', { hasText: 'Stop Routing Agents…' }).click();
    // Stop Routing lists only what is routed: the one row, ticked.
    await rows().first().waitFor({ timeout: 30_000 });
    assert.equal(await rows().count(), 1);
    assert.match((await rows().first().textContent()) ?? '', /GitHub Copilot.*this folder/);
    await wb.screenshot('route-9-stop-900x700');
    await input.press('Enter');
    // The folders go last, innermost first: wait for `.github` itself.
    const github = path.join(wb.workspaceDir, '.github');
    const gone = Date.now() + 30_000;
    while (existsSync(github) && Date.now() < gone) await wb.page.waitForTimeout(100);
    assert.equal(existsSync(hooks), false, 'an empty .github/hooks/ was left behind');
    assert.equal(existsSync(github), false, 'an empty .github/ was left behind');
    // With nothing routed, Stop Routing says so instead of listing every agent.
    await wb.runCommand('Bounded Evidence: Stop Routing Agents…');
    await wb.runCommand('Notifications: Show Notifications');
    await wb.page
      .locator('.notifications-center .notification-list-item', { hasText: 'no agent is routed here' })
      .first()
      .waitFor({ timeout: 30_000 });
  });
});
