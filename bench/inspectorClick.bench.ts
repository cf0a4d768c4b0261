/**
 * Click to text in the Evidence Inspector, through the real host: a
 * served workbench captures a 100 MB output (`BENCH_CLICK_MB`, default 100), the panel
 * shows it, and each figure is the page's own clock from the click (Fetch bytes, Fetch
 * lines, Find / the next page of matches) to the frame after the text is in the DOM
 * (`data-last-fetch-ms`, `data-last-find-ms`, set by webview/detail/windowPane.ts and
 * matchList.ts). Windows are at random offsets, so no read-ahead serves them. The
 * reference, in the same run and workbench: VS Code's own editor opening a 16 KiB
 * read-only file (Quick Open, Enter to its first line drawn, timed in the page). Pages of matches are timed two ways: Next at a
 * page's end (the page reads the next page ahead) and Previous at a page's start (never
 * read ahead: one request). Medians; the load average is printed beside
 * them (the figures are only comparable on an idle machine). Needs the test tools and
 * `node esbuild.js` first.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { Workbench } from '../test/harness/workbench.js';
import { median } from './util.js';

const MB = Number(process.env.BENCH_CLICK_MB ?? 100);
const CLICKS = Number(process.env.BENCH_CLICK_RUNS ?? 11);
/** One line in 5,000 has "ERROR": a sparse pattern, several pages of matches. */
const lineOf = (i: number): string =>
  `${String(i).padStart(9, '0')} build step ${i % 5000 === 4999 ? 'ERROR something broke' : 'ok'} ${'x'.repeat(48)}\n`;

/** A rough pseudo-random sequence (the same every run). */
function* offsets(limit: number): Generator<number> {
  let x = 12345;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    yield Math.floor((x / 2 ** 31) * limit);
  }
}

async function main(): Promise<void> {
  const ref = 'reference-16k.txt';
  const wb = await Workbench.open({
    label: 'bench-click',
    colorTheme: 'Default Light Modern',
    workspaceSettings: { 'files.readonlyInclude': { [ref]: true } },
  });
  try {
    writeFileSync(
      path.join(wb.workspaceDir, ref),
      Array.from({ length: 256 }, (_, i) => `${String(i + 1).padStart(4, '0')} ${'r'.repeat(58)}\n`).join(''),
    );
    const view = wb.webview();
    const page = view.locator('body');
    const lines = Math.floor((MB * 1_000_000) / lineOf(0).length);
    // The command writes the output in 1 MB chunks (the same lines as lineOf).
    const script = `const l=(i)=>String(i).padStart(9,'0')+' build step '+(i%5000===4999?'ERROR something broke':'ok')+' '+'x'.repeat(48)+'\\n';let b='';for(let i=0;i<${lines};i++){b+=l(i);if(b.length>1e6){process.stdout.write(b);b=''}}process.stdout.write(b)`;
    writeFileSync(path.join(wb.workspaceDir, 'big.js'), script);
    const t0 = Date.now();
    await wb.capture('node big.js');
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 600_000 });
    const size = Number(
      (/^([\d,]+) bytes/.exec((await view.locator('#id-size').textContent()) ?? '')?.[1] ?? '0').replace(/,/g, ''),
    );
    console.log(
      `captured ${size.toLocaleString('en-US')} bytes (${lines.toLocaleString('en-US')} lines) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    const seq = async (): Promise<string> => (await page.getAttribute('data-fetch-seq')) ?? '0';
    const fill = async (id: string, v: string): Promise<void> => {
      await view.locator(`#${id} input`).fill(v);
    };
    const tab = async (label: string): Promise<void> => {
      await view.locator('vscode-tab-header', { hasText: label }).click();
    };
    const rnd = offsets(size - 20_000);

    // 16 KiB byte windows.
    await tab('Byte range');
    const bytes: number[] = [];
    /** The round trip alone (page → host → page), apart from rendering. */
    const bytesReply: number[] = [];
    const linesReply: number[] = [];
    for (let i = 0; i < CLICKS + 1; i++) {
      const start = rnd.next().value as number;
      const before = await seq();
      await fill('bytes-start', String(start));
      await fill('bytes-end', String(start + 16_384));
      await view.locator('#fetch-bytes').click();
      await view.locator(`body:not([data-fetch-seq="${before}"])`).waitFor();
      if (i > 0) {
        bytes.push(Number(await page.getAttribute('data-last-fetch-ms')));
        bytesReply.push(Number(await page.getAttribute('data-last-reply-ms')));
      }
    }
    // 200-line windows.
    await tab('Lines');
    const lineTimes: number[] = [];
    const lineRnd = offsets(lines - 300);
    for (let i = 0; i < CLICKS + 1; i++) {
      const from = (lineRnd.next().value as number) + 1;
      const before = await seq();
      await fill('lines-from', String(from));
      await fill('lines-count', '200');
      await view.locator('#fetch-lines').click();
      await view.locator(`body:not([data-fetch-seq="${before}"])`).waitFor();
      await view.locator('#window .wline .ln').first().waitFor();
      if (i > 0) {
        lineTimes.push(Number(await page.getAttribute('data-last-fetch-ms')));
        linesReply.push(Number(await page.getAttribute('data-last-reply-ms')));
      }
    }
    // A pattern: the first Find counts every match (a scan of the whole output), then each
    // page of matches (the 51st, 101st, …) with its first match's lines.
    await tab('Pattern');
    const finds: number[] = [];
    const pages: number[] = [];
    const total = Math.floor(lines / 5000);
    for (let i = 0; i < 3; i++) {
      const next = String(Number((await page.getAttribute('data-find-seq')) ?? '0') + 1);
      await fill('pattern', ['ERROR some', 'ERROR something', 'ERROR so'][i]!);
      await view.locator('#find').click();
      await view.locator(`body[data-find-seq="${next}"]`).waitFor({ timeout: 120_000 });
      finds.push(Number(await page.getAttribute('data-last-find-ms')));
    }
    await view.locator('#match-info', { hasText: `of ${total.toLocaleString('en-US')}` }).waitFor();
    /** Waits for the find that `go` starts and for match `want` (0-based) to be the one shown. */
    const pageTurn = async (go: () => Promise<void>, want: number): Promise<number> => {
      const next = String(Number((await page.getAttribute('data-find-seq')) ?? '0') + 1);
      await go();
      await view.locator(`body[data-find-seq="${next}"]`).waitFor({ timeout: 60_000 });
      await view.locator('#match-info', { hasText: `Match ${(want + 1).toLocaleString('en-US')} of` }).waitFor();
      findReply.push(Number(await page.getAttribute('data-last-find-reply-ms')));
      return Number(await page.getAttribute('data-last-find-ms'));
    };
    /** Selects match `i` of the page on screen and waits for its window (not timed: the host is idle before each timed click). */
    const select = async (i: number): Promise<void> => {
      const before = await seq();
      await view.locator('#pattern-matches').evaluate((el, id) => {
        (el.querySelector(`#match-${id}`) as { click(): void } | null)?.click();
      }, i);
      await view.locator('#match-info', { hasText: `Match ${(i + 1).toLocaleString('en-US')} of` }).waitFor();
      await view.locator(`body:not([data-fetch-seq="${before}"])`).waitFor();
    };
    // Next at a page's last match: the next page (the page reads it ahead, so this is the
    // usual way on), and Previous at a page's first match: the page before (never read
    // ahead, so always a request). Twice over, forward then back.
    const pagesBack: number[] = [];
    /** Click to the matches reply, per page turn (Next's then Previous's, in order). */
    const findReply: number[] = [];
    const last = Math.floor((total - 1) / 50);
    for (let round = 0; round < 2; round++) {
      for (let p = 1; p <= last && pages.length < CLICKS; p++) {
        await select(p * 50 - 1);
        pages.push(await pageTurn(() => view.locator('#next-match').click(), p * 50));
      }
      for (let p = last; p >= 1 && pagesBack.length < CLICKS; p--) {
        await select(p * 50);
        pagesBack.push(await pageTurn(() => view.locator('#prev-match').click(), p * 50 - 1));
      }
    }
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    const fmt = (xs: number[]): string =>
      `${median(xs).toFixed(1)} ms median (${xs.map((x) => x.toFixed(0)).join(', ')})`;
    console.log(`load average during the inspector figures: ${load} (2 cores)`);
    console.log(`inspector, 16 KiB byte window, click to text: ${fmt(bytes)}`);
    console.log(`inspector, 200-line window, click to text:    ${fmt(lineTimes)}`);
    console.log(
      `  of which the round trip to the host: bytes ${median(bytesReply).toFixed(1)} ms, lines ${median(linesReply).toFixed(1)} ms median`,
    );
    console.log(`inspector, next page of matches (50 a page, ${total} matches), click to text: ${fmt(pages)}`);
    console.log(`inspector, previous page of matches (not read ahead), click to text: ${fmt(pagesBack)}`);
    console.log(`  of which click to the matches reply: ${findReply.map((x) => x.toFixed(0)).join(', ')}`);
    console.log(`inspector, first Find of a pattern (counts every match in ${MB} MB), click to text: ${fmt(finds)}`);

    // The reference: VS Code's editor opening a 16 KiB read-only file.
    const refTimes: number[] = [];
    for (let i = 0; i < CLICKS + 1; i++) {
      await wb.runCommand('View: Close All Editors');
      await wb.page.keyboard.press('Control+P');
      const input = wb.page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await input.fill(ref);
      await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: ref }).first().waitFor();
      // Timed in the page: Enter's keydown to the frame after the first line is drawn.
      // (A string: tsx would give named helpers a `__name` the page does not have.)
      const timing = wb.page.evaluate(`new Promise((resolve) => {
        let t0 = 0;
        document.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !t0) t0 = performance.now(); }, true);
        const poll = () => {
          const line = document.querySelector('.editor-instance .monaco-editor .view-line');
          // (The editor draws spaces as no-break spaces.)
          if (t0 && line && (line.textContent || '').replace(/\u00a0/g, ' ').includes('0001 rrrr')) { requestAnimationFrame(() => resolve(performance.now() - t0)); return; }
          requestAnimationFrame(poll);
        };
        poll();
      })`) as Promise<number>;
      timing.catch(() => undefined);
      await input.press('Enter');
      const ms = await Promise.race([
        timing,
        new Promise<number>((_, reject) =>
          setTimeout(() => reject(new Error('the reference file did not show within 30 s')), 30_000),
        ),
      ]);
      if (i > 0) refTimes.push(ms);
    }

    console.log(`reference, VS Code opening a 16 KiB read-only file, Enter to text: ${fmt(refTimes)}`);
    console.log(
      `ratios to the reference: bytes ${(median(bytes) / median(refTimes)).toFixed(2)}, lines ${(median(lineTimes) / median(refTimes)).toFixed(2)}, match page ${(median(pages) / median(refTimes)).toFixed(2)}, previous match page ${(median(pagesBack) / median(refTimes)).toFixed(2)}`,
    );
    console.log(
      `load average at the end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await wb.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
