/**
 * The inspector's work across outputs, in a real workbench: one pattern searched over
 * every kept output (exact handle, line and byte offset; a hit opens that output at the
 * matched line), and the list filtered by who started a run. One workbench for the file.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import type { Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';
import { layoutSettled } from './settle.js';
import { setTheme } from './theme.js';

/** Browser global used inside an `evaluate` callback (it runs in the page, not in Node). */
declare const performance: { now(): number };
declare const MutationObserver: new (cb: () => void) => {
  observe(el: unknown, opts: Record<string, boolean>): void;
  disconnect(): void;
};

const fixtures = path.join(__dirname, 'fixtures', 'workspace');

/** The stdout the first command prints (the test computes the same bytes). */
const rows = Array.from({ length: 40 }, (_, i) => (i % 10 === 7 ? `NEEDLE row ${i}` : `plain row ${i}`));
const stdout = rows.map((r) => `${r}\n`).join('');

describe('Inspector across outputs and live commands in a real workbench', function () {
  this.timeout(240_000);
  let wb: Workbench;
  let view: FrameLocator;
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();

  /** Starts `command` through the palette's Run Command and Capture (returns once it is submitted). */
  async function start(command: string): Promise<void> {
    await wb.runCommand('Bounded Evidence: Run Command and Capture');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(command);
    await input.press('Enter');
  }

  async function capture(command: string, callsAfter: number): Promise<void> {
    await start(command);
    await view
      .locator('#list-summary', { hasText: new RegExp(`^${callsAfter} of ${callsAfter} calls$`) })
      .waitFor({ timeout: 60_000 });
    await view
      .locator('.vlist-row[data-kind="call"]:not([hidden])', { hasText: 'exit 0' })
      .nth(callsAfter - 1)
      .waitFor({ timeout: 60_000 });
  }

  before(async () => {
    wb = await openWorkbench({ label: 'search', workspaceTemplate: fixtures, colorTheme: 'Default Dark Modern' });
    view = wb.webview();
  });
  after(async () => {
    await closeWorkbench(wb);
  });

  it('searches every output: exact handle, line and byte offset, and a hit opens the output at its line', async () => {
    await capture(
      `node -e "for (let i = 0; i < 40; i++) console.log(i % 10 === 7 ? 'NEEDLE row ' + i : 'plain row ' + i)"`,
      1,
    );
    await capture(`node -e "process.stderr.write('warn\\nNEEDLE in stderr\\n')"`, 2);
    await view.locator('#search-pattern input').fill('NEEDLE');
    await view.locator('#search-pattern input').press('Enter');
    await view.locator('#search-progress', { hasText: /matches? in/ }).waitFor({ timeout: 60_000 });
    assert.equal(await text(view.locator('#search-progress')), '5 matches in 2 of 2 outputs');
    const hits = view.locator('#search-results .search-hit');
    assert.equal(await hits.count(), 5);
    // Newest call first: stderr's line 2 (after "warn\n", byte 5), then stdout's four lines.
    const got = await hits.evaluateAll((els) =>
      els.map((e) => [
        e.getAttribute('data-line'),
        e.getAttribute('data-byte'),
        e.querySelector('.hit-text')!.textContent,
      ]),
    );
    const want = rows.flatMap((r, i) =>
      r.startsWith('NEEDLE') ? [[String(i + 1), String(Buffer.byteLength(stdout.slice(0, stdout.indexOf(r)))), r]] : [],
    );
    assert.deepEqual(got, [['2', '5', 'NEEDLE in stderr'], ...want]);
    const handles = await hits.evaluateAll((els) => els.map((e) => e.getAttribute('data-handle')));
    assert.equal(new Set(handles).size, 2);
    assert.match(await text(hits.nth(0).locator('.hit-where')), /^\S+:2$/);
    await wb.screenshot('search-across-outputs');
    // The same state in the light theme (docs/inspector.md's screenshots come in both).
    await setTheme(wb, view, 'Default Light Modern');
    await wb.screenshot('search-across-outputs-light');
    await setTheme(wb, view, 'Default Dark Modern');

    // The third hit is stdout's second match (line 18): the output opens there, that line marked.
    await hits.nth(2).click();
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 30_000 });
    await view.locator('#window .wline.hit', { hasText: 'NEEDLE row 17' }).waitFor({ timeout: 30_000 });
    assert.equal(await text(view.locator('#window .wline.hit .ln')), '18');
    assert.equal(
      await view
        .locator('#id-handle')
        .textContent()
        .then((t) => (t ?? '').includes(handles[2]!)),
      true,
    );
    // The first hit goes back to stderr at its line 2.
    await hits.nth(0).click();
    await view.locator('#detail-title', { hasText: 'stderr of' }).waitFor({ timeout: 30_000 });
    await view.locator('#window .wline.hit', { hasText: 'NEEDLE in stderr' }).waitFor({ timeout: 30_000 });
    assert.equal(await text(view.locator('#window .wline.hit .ln')), '2');
    // A bad pattern is one sentence, and nothing is listed.
    await view.locator('#search-pattern input').fill('([');
    await view.locator('#search-run').click();
    await view.locator('#search-progress', { hasText: /pattern/i }).waitFor({ timeout: 30_000 });
    assert.equal(await hits.count(), 0);
    assert.ok(await view.locator('#search-cancel').isHidden());
  });

  it('filters the list by who started the run', async () => {
    // Both captures came from the palette's Run Command and Capture: their runs say so (source `command`).
    await view.locator('#filter-source').click();
    const options = await view.locator('#filter-source li, #filter-source .option').allTextContents();
    assert.deepEqual(
      options.map((s) => s.trim()),
      ['Any source', 'Editor commands'],
    );
    await view.locator('#filter-source li, #filter-source .option', { hasText: 'Editor commands' }).first().click();
    await view.locator('#list-summary', { hasText: /^2 of 2 calls$/ }).waitFor();
  });

  it("updates a running command's size and tail while it runs, at most twice a second", async () => {
    // One line every 100 ms until the test drops a stop file: the command runs for as long as the
    // watch below needs, however slow the machine, and its output is known line by line.
    const stopFile = path.join(wb.workspaceDir, 'stop-ticks');
    rmSync(stopFile, { force: true });
    await start(
      `node -e "let i = 0; const t = setInterval(() => { if (require('fs').existsSync('stop-ticks')) { clearInterval(t); return; } console.log('tick ' + i++); }, 100)"`,
    );
    const row = view.locator('.vlist-row[data-kind="call"]:not([hidden])', { hasText: 'running' }).first();
    await row.waitFor({ timeout: 60_000 });
    // The list's size cell says how much so far, before the call ends.
    await row.locator('.c4', { hasText: /so far$/ }).waitFor({ timeout: 30_000 });
    await row.click();
    const sizes = view.locator('#live-sizes');
    await sizes.waitFor({ timeout: 30_000 });
    // Dark now, light at the end of the watch below (the theme does not change what is counted).
    await wb.screenshot('live-running-command');
    await setTheme(wb, view, 'Default Light Modern');
    // Watch the sizes for at least 3 s and until they changed twice (the live box is re-filled on
    // each update: watch it, read its sizes line); the rate is taken over the time watched.
    const watched = await view.locator('#live').evaluate(
      (box) =>
        new Promise<{ seen: string[]; ms: number }>((resolve) => {
          const t0 = performance.now();
          const seen: string[] = [box.querySelector('#live-sizes')?.textContent ?? ''];
          const o = new MutationObserver(() => {
            const t = box.querySelector('#live-sizes')?.textContent ?? '';
            if (seen[seen.length - 1] !== t) seen.push(t);
          });
          o.observe(box, { childList: true, characterData: true, subtree: true });
          // No named functions in here: the test's transpiler would wrap them in a helper the page lacks.
          const poll = setInterval(() => {
            const ms = performance.now() - t0;
            if ((ms >= 3000 && seen.length >= 3) || ms >= 60_000) {
              o.disconnect();
              clearInterval(poll);
              resolve({ seen, ms });
            }
          }, 100);
        }),
    );
    const changes = watched.seen;
    const bytes = changes.map((t) => Number(/stdout ([\d,]+) bytes/.exec(t)![1]!.replace(/,/g, '')));
    assert.ok(bytes.length >= 3, `the size changed only ${bytes.length - 1} times in 60 s: ${changes.join(' | ')}`);
    const allowed = Math.floor((2 * watched.ms) / 1000) + 1;
    assert.ok(bytes.length - 1 <= allowed, `${bytes.length - 1} updates in ${watched.ms} ms (more than two a second)`);
    for (let i = 1; i < bytes.length; i++) assert.ok(bytes[i]! > bytes[i - 1]!, `sizes went ${bytes.join(' → ')}`);
    // The tail is the exact end of what was printed so far: whole "tick N" lines ending at the size.
    const tail = (await view.locator('#live-tail').textContent()) ?? '';
    const lines = tail.split('\n').filter(Boolean);
    const lastTick = Number(/^tick (\d+)$/.exec(lines[lines.length - 1]!)![1]);
    const printed = (n: number): string => Array.from({ length: n }, (_, i) => `tick ${i}\n`).join('');
    assert.ok(
      printed(lastTick + 1).endsWith(tail),
      `tail ${JSON.stringify(tail.slice(-40))} is not the end of the output`,
    );
    await wb.screenshot('live-running-command-light');
    writeFileSync(stopFile, '');
    // When it ends the recorded size replaces the live one: every tick it printed, nothing else.
    await view.locator('#list-summary', { hasText: /^3 of 3 calls$/ }).waitFor();
    // A part row of exactly `ticks` whole lines, more than were seen live (the exact size is its size cell's title).
    const sizesOfParts = (): Promise<number[]> =>
      view
        .locator('.vlist-row[data-kind="part"] .c4')
        .evaluateAll((cells) => cells.map((c) => Number((c.getAttribute('title') ?? '').replace(/[^\d]/g, ''))));
    const tickCounts = new Map<number, number>([[0, 0]]);
    for (let n = 0, total = 0; n < 10_000; n++) tickCounts.set((total += `tick ${n}\n`.length), n + 1);
    let ticks: number | undefined;
    for (let tries = 0; ticks === undefined && tries < 600; tries++) {
      ticks = (await sizesOfParts()).map((b) => tickCounts.get(b)).find((n) => n !== undefined && n > lastTick);
      if (ticks === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(
      ticks !== undefined,
      `no stdout of whole tick lines past tick ${lastTick}: ${(await sizesOfParts()).join(', ')}`,
    );
    assert.ok(await view.locator('#live').isHidden());
    rmSync(stopFile, { force: true });
    await setTheme(wb, view, 'Default Dark Modern');
  });

  it('a search past the time limit says so first, with how far it got', async () => {
    // 9,150,000 bytes of 60-'a' lines: `a.*a.*a.*b` backtracks on every line (slow, not
    // catastrophic), far longer than the 100 ms limit set below.
    await start(`node -e "process.stdout.write(('a'.repeat(60) + '\\n').repeat(150000))"`);
    await view.locator('#list-summary', { hasText: /^4 of 4 calls$/ }).waitFor({ timeout: 60_000 });
    // Newest first: the new call's row, once it has ended.
    await view
      .locator('.vlist-row[data-kind="call"]:not([hidden])')
      .first()
      .filter({ hasText: 'exit 0' })
      .waitFor({ timeout: 60_000 });
    const file = path.join(wb.workspaceDir, '.vscode', 'settings.json');
    const before = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      JSON.stringify({ ...(JSON.parse(before) as object), 'boundedEvidence.searchTimeoutMs': 100 }, null, 2),
    );
    try {
      // The store is reopened with the new limit; searching until it applies.
      const progress = view.locator('#search-progress');
      for (let attempt = 0; ; attempt++) {
        await view.locator('#search-pattern input').fill('a.*a.*a.*b');
        await view.locator('#search-run').click();
        await view.locator('#search-progress', { hasNotText: /^Searching/ }).waitFor({ timeout: 60_000 });
        if ((await text(progress)).startsWith('Stopped') || attempt === 20) break;
        await wb.page.waitForTimeout(500);
      }
      assert.equal(
        await text(progress),
        'Stopped at the time limit (0.1 s) after the newest 0 of 4 calls: 0 matches in 0 of 0 outputs. Narrow by tool or run, or raise boundedEvidence.searchTimeoutMs.',
      );
      assert.equal(
        await progress.evaluate((e) => e.classList.contains('muted')),
        false,
        'a partial answer is not greyed',
      );
      assert.ok(await view.locator('#search-cancel').isHidden());
      await wb.screenshot('search-stopped-at-time-limit');
      // The sentence stays whole and nothing is covered in a small and a large window.
      for (const [width, height] of [
        [900, 700],
        [1920, 1080],
      ] as const) {
        await wb.page.setViewportSize({ width, height });
        await layoutSettled(wb.page, view);
        const fit = await progress.evaluate((e) => {
          const r = e.getBoundingClientRect();
          const run = e.ownerDocument.getElementById('search-run')!.getBoundingClientRect();
          const hit = e.ownerDocument.elementFromPoint(run.left + run.width / 2, run.top + run.height / 2);
          return {
            whole:
              e.scrollWidth <= e.clientWidth + 1 &&
              e.scrollHeight <= e.clientHeight + 1 &&
              r.width > 0 &&
              r.right <= e.ownerDocument.documentElement.clientWidth + 1,
            searchButton: !!hit && (hit.id === 'search-run' || !!hit.closest('#search-run')),
          };
        });
        assert.deepEqual(fit, { whole: true, searchButton: true }, `${width}×${height}`);
        await wb.screenshot(`search-stopped-at-time-limit-${width}x${height}`);
      }
      await wb.page.setViewportSize({ width: 1400, height: 900 });
    } finally {
      writeFileSync(file, before);
    }
  });
});
