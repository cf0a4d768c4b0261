/**
 * How long a newcomer's `npm start` shows an empty editor area.
 *
 * Each round runs scripts/start.ts exactly as `npm start` does, on a fresh state folder
 * (what a first start after a clone sees: the extension just installed, no profile), opens
 * the printed URL in real Chromium and records, in the page's own clock (ms since the
 * navigation started; a script added before the page's own observes the DOM, so nothing
 * depends on polling):
 *   - reference: the workbench's first contentful paint (the browser's paint timing);
 *   - the workbench shell in the DOM (`.monaco-workbench`);
 *   - the first editor tab, and which one it is;
 *   - the walkthrough's title and the README's preview on screen;
 *   - VS Code's own marks for the extension host (`code/willLoadExtensions`, `code/didLoadExtensions`).
 * Then Ctrl-C ends the start command. Printed: medians over `BENCH_FIRST_EDITOR_RUNS` rounds
 * (default 3) and each figure's ratio to the first paint of the same round.
 *
 * Environment: BENCH_FIRST_EDITOR_RUNS, BENCH_VIEWPORT (default 1400x900), BENCH_FIRST_EDITOR_MARKS=1
 * (also print VS Code's performance marks of each round: where the time goes), BENCH_FIRST_EDITOR_KEEP=1
 * (keep each round's state folder, e.g. for the extension host's log), BENCH_FIRST_EDITOR_SCREENSHOT=<path prefix>
 * (a screenshot of each round once the figures are in: what a person sees).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/harness/browser.js';
import { freePort, makeRunDir } from '../test/harness/server.js';
import { repoRoot } from '../test/harness/tools.js';
import { median, report } from './util.js';

const RUNS = Number(process.env.BENCH_FIRST_EDITOR_RUNS ?? 3);
const [WIDTH, HEIGHT] = (process.env.BENCH_VIEWPORT ?? '1400x900').split('x').map(Number) as [number, number];
/** The walkthrough's title (package.json `contributes.walkthroughs[0].title`). */
const WALKTHROUGH_TITLE = 'Get Started with Bounded Evidence';

/** What one round saw, in ms since navigation start (undefined: never within the wait). */
interface Round {
  firstPaint?: number;
  shell?: number;
  firstTab?: number;
  firstTabLabel?: string;
  walkthrough?: number;
  readme?: number;
  willLoadExtensions?: number;
  didLoadExtensions?: number;
}

/**
 * Runs in the page before its own scripts: notes the first time each thing is on screen.
 * (A string, so that the bundler-free tsx run does not have to serialise a function with helpers.)
 */
const OBSERVER = `(() => {
  const seen = (window.__beSeen = {});
  const note = (k, extra) => { if (!(k in seen)) { seen[k] = performance.now(); if (extra) seen[k + 'Label'] = extra; } };
  const visible = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const check = () => {
    if (document.querySelector('.monaco-workbench')) note('shell');
    const tab = document.querySelector('.editor-group-container .tabs-container .tab');
    if (visible(tab)) note('firstTab', tab.getAttribute('aria-label') || tab.textContent);
    // The walkthrough's own page (its title an h2; the Welcome page lists it with an h3).
    const wt = [...document.querySelectorAll('.gettingStartedContainer h2.category-title')]
      .find((h) => visible(h) && h.textContent.includes(${JSON.stringify(WALKTHROUGH_TITLE)}));
    if (wt) note('walkthrough');
    // The README opens as the markdown preview, a webview over the editor area.
    const readmeTab = [...document.querySelectorAll('.tabs-container .tab')].find((t) => /README/.test(t.getAttribute('aria-label') || ''));
    if (readmeTab && visible(document.querySelector('iframe.webview.ready'))) note('readme');
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class', 'style'] });
})();`;

async function waitForUrl(child: ChildProcess): Promise<string> {
  let output = '';
  return await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed within 300 s:\n${output}`)), 300_000);
    const onData = (d: Buffer): void => {
      output += d.toString();
      const m = /Open: (http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`start exited early (${code}):\n${output}`)));
  });
}

async function stopStart(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT'); // start.ts ends the server's process group on Ctrl-C
  await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
}

async function marks(page: Page): Promise<Record<string, number>> {
  return await page.evaluate(() =>
    Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])),
  );
}

async function round(i: number): Promise<Round> {
  const port = await freePort();
  const { runDir, env } = makeRunDir('bench-first');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts', 'start.ts')], {
    cwd: repoRoot,
    env: { ...process.env, BE_PORT: String(port), BE_STATE: path.join(runDir, 'state') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const browser = await launchBrowser(env).catch(async (e: unknown) => {
    await stopStart(child);
    throw e;
  });
  try {
    const url = await waitForUrl(child);
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
    await page.addInitScript(OBSERVER);
    await page.goto(url);
    // Until the README and the walkthrough are both on screen, or 10 s after the first of them
    // (a start that shows only one), or 60 s: a figure left blank.
    await page
      .waitForFunction(
        () => {
          const s = (globalThis as unknown as { __beSeen?: Record<string, number> }).__beSeen;
          if (!s || (s.readme === undefined && s.walkthrough === undefined)) return false;
          return (
            (s.readme !== undefined && s.walkthrough !== undefined) ||
            performance.now() - Math.min(s.readme ?? Infinity, s.walkthrough ?? Infinity) > 10_000
          );
        },
        undefined,
        { timeout: 60_000, polling: 250 },
      )
      .catch(() => undefined);
    if (process.env.BENCH_FIRST_EDITOR_SCREENSHOT) {
      const file = `${process.env.BENCH_FIRST_EDITOR_SCREENSHOT}-${WIDTH}x${HEIGHT}-${i + 1}.png`;
      await page.screenshot({ path: file });
      console.log(`  screenshot ${file}`);
    }
    const seen = await page.evaluate(
      () => (globalThis as unknown as { __beSeen: Record<string, number | string> }).__beSeen,
    );
    const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime);
    const m = await marks(page);
    if (process.env.BENCH_FIRST_EDITOR_MARKS)
      for (const [k, v] of Object.entries(m)
        .filter(([k]) => !/WorkbenchContribution\//.test(k))
        .sort((a, b) => a[1] - b[1]))
        console.log(`  ${(v / 1000).toFixed(2)} s ${k}`);
    const r: Round = {
      firstPaint: paint,
      shell: seen.shell as number | undefined,
      firstTab: seen.firstTab as number | undefined,
      firstTabLabel: seen.firstTabLabel as string | undefined,
      walkthrough: seen.walkthrough as number | undefined,
      readme: seen.readme as number | undefined,
      willLoadExtensions: m['code/willLoadExtensions'],
      didLoadExtensions: m['code/didLoadExtensions'],
    };
    const f = (v: number | undefined): string => (v === undefined ? '—' : `${(v / 1000).toFixed(2)} s`);
    console.log(
      `round ${i + 1}: first paint ${f(r.firstPaint)}, first tab ${f(r.firstTab)} (${r.firstTabLabel ?? 'none'}), walkthrough ${f(r.walkthrough)}, README ${f(r.readme)}, extensions loaded ${f(r.didLoadExtensions)}`,
    );
    return r;
  } finally {
    await browser.close().catch(() => undefined);
    await stopStart(child);
    if (process.env.BENCH_FIRST_EDITOR_KEEP) console.log(`  kept ${runDir}`);
    else rmSync(runDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`npm start on a fresh state, ${WIDTH}×${HEIGHT}, ${RUNS} rounds (ms since navigation start, page clock)`);
  const rounds: Round[] = [];
  for (let i = 0; i < RUNS; i++) rounds.push(await round(i));
  const row = (label: string, key: keyof Round): void => {
    const vs = rounds.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    const ratios = rounds.flatMap((r) =>
      typeof r[key] === 'number' && r.firstPaint ? [(r[key] as number) / r.firstPaint] : [],
    );
    const missing = rounds.length - vs.length;
    report(
      label,
      vs.length
        ? `${(median(vs) / 1000).toFixed(2)} s  (×${median(ratios).toFixed(1)} first paint)${missing ? `, absent in ${missing} of ${rounds.length}` : ''}`
        : `absent in all ${rounds.length}`,
    );
  };
  row('reference: workbench first contentful paint', 'firstPaint');
  row('workbench shell in the DOM', 'shell');
  row('first editor tab (editor area no longer empty)', 'firstTab');
  row('walkthrough title on screen', 'walkthrough');
  row('README preview on screen', 'readme');
  row('VS Code mark code/didLoadExtensions', 'didLoadExtensions');
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
