import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../harness/browser.js';
import { freePort, makeRunDir } from '../harness/server.js';
import { repoRoot } from '../harness/tools.js';
import { INSPECTOR_FRAME, outputDir, runPaletteCommand } from '../harness/workbench.js';

/**
 * The README's start command is a contract with a newcomer: it must build, install and
 * serve a workbench on loopback with the extension loaded, and Ctrl-C must end it all.
 */
describe('npm start (the README start command)', () => {
  let child: ChildProcess | undefined;
  let browser: Browser | undefined;
  after(async () => {
    await browser?.close().catch(() => undefined);
    // When the test fails midway, stop the command the way a person would (Ctrl-C): it
    // ends the server's process group. A SIGKILL would orphan the detached server.
    if (child?.pid && child.exitCode === null) {
      const gone = new Promise((r) => child!.once('exit', r));
      child.kill('SIGINT');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null)
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
    }
  });

  it('serves a workbench whose palette opens the inspector, and Ctrl-C ends everything', async () => {
    const port = await freePort();
    const { runDir, env } = makeRunDir('start');
    // `npm start` itself: Ctrl-C from a process manager goes to npm's PID alone, not to a terminal's group.
    child = spawn('npm', ['start'], {
      cwd: repoRoot,
      env: { ...process.env, BE_PORT: String(port), BE_STATE: path.join(runDir, 'state') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed within 150 s:\n${output}`)), 150_000);
      const onData = (d: Buffer): void => {
        output += d.toString();
        const m = /Open: (http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      child!.on('exit', (code) => reject(new Error(`start exited early (${code}):\n${output}`)));
    });
    assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?folder=`));

    browser = await launchBrowser(env);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The demo workspace is open: its build script is in the explorer.
    await page
      .locator('.explorer-folders-view .monaco-list-row', { hasText: 'build-log.js' })
      .waitFor({ timeout: 30_000 });
    // A first start: the demo's README opens (not the generic Welcome page) and the extension's
    // walkthrough opens in front of it (src/extension/views/firstStart.ts); the README stays as a tab.
    await page.locator('.tabs-container .tab', { hasText: 'README.md' }).first().waitFor({ timeout: 30_000 });
    await page
      .locator('.gettingStartedContainer h2.category-title', { hasText: 'Get Started with Bounded Evidence' })
      .waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal((await page.locator('.tabs-container .tab.active').textContent())?.trim(), 'Welcome');
    // One Welcome tab (the walkthrough's editor) and the README behind it: no generic Welcome page besides.
    assert.equal(await page.locator('.tabs-container .tab', { hasText: /Welcome/ }).count(), 1);
    assert.equal(await page.locator('.tabs-container .tab', { hasText: 'README.md' }).count(), 1);
    await runPaletteCommand(page, 'Bounded Evidence: Open Inspector');
    const view = page.frameLocator(INSPECTOR_FRAME).frameLocator('iframe#active-frame');
    const heading = view.locator('h1');
    await heading.waitFor({ timeout: 30_000 });
    assert.equal((await heading.textContent())?.trim(), 'Evidence Inspector');

    // "Run Command and Capture" on the demo build script records a run whose stdout
    // (the 4.7 MB log, offloaded to a blob) and stderr are attachments in the inspector.
    await runPaletteCommand(page, 'Bounded Evidence: Run Command and Capture');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('node build-log.js');
    await input.press('Enter');
    // The script exits 1 like a failed build; only its stdout size matters here.
    const expectedStdout = spawnSync(process.execPath, [path.join(repoRoot, 'demo', 'build-log.js')], {
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 << 20,
    }).stdout.length;
    assert.ok(expectedStdout > 4_000_000);
    // The size cell shows the human size; its tooltip holds the exact count.
    const stdoutRow = view
      .locator('.vlist-row[data-kind="part"]', { hasText: 'stdout' })
      .filter({ has: view.locator(`[title^="${expectedStdout.toLocaleString('en-US')} bytes"]`) });
    await stdoutRow.first().waitFor({ timeout: 120_000 });
    assert.match((await stdoutRow.first().textContent()) ?? '', /blob/);
    await view.locator('.vlist-row[data-kind="part"]', { hasText: 'stderr' }).first().waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(outputDir, 'e2e', 'start-command.png') });
    // No Git prompt about the repository around demo/ (by now it would have been shown).
    await runPaletteCommand(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center').waitFor({ timeout: 10_000 });
    // Nor a port forwarding toast ("Your application running on port N is available"): the settings turn it off.
    assert.deepEqual(
      (await page.locator('.notifications-center .notification-list-item-message').allTextContents()).filter((t) =>
        /git repository|running on port|is available/i.test(t),
      ),
      [],
    );
    for (const file of [
      path.join(runDir, 'state', 'server-data', 'data', 'User', 'settings.json'),
      path.join(runDir, 'state', 'user-data', 'User', 'settings.json'),
    ]) {
      const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      assert.equal(written['remote.autoForwardPorts'], false, file);
      assert.equal(written['remote.restoreForwardedPorts'], false, file);
      assert.deepEqual(written['remote.otherPortsAttributes'], { onAutoForward: 'ignore' }, file);
    }

    // SIGINT to npm's PID alone (npm forwards it to the script, which `exec` made the Node process, not a shell).
    const exited = new Promise<void>((r) => child!.on('exit', () => r()));
    child.kill('SIGINT');
    await exited;
    // The server goes too: nothing is left listening on the port once it has shut down.
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      );
      if (!up) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  });
});
