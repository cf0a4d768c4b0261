/**
 * The Evidence Inspector in a real workbench, driven like a person: a run recorded by
 * "Run Command and Capture", exact sizes/handles/digests in the list, pattern, line and
 * byte windows, excerpts read back from the clipboard, chat, verify, keyboard, state
 * across hiding and reloading, malicious output, 10,000 calls, and screenshots in each
 * theme kind. One workbench for the whole file (each costs ≈10 s to start).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { RunStore } from '../../src/core/index.js';
import { findFile, type Workbench } from '../harness/workbench.js';
import { closeWorkbench, openWorkbench } from './session.js';
import { frameOf, themeShown, until } from './settle.js';

/** Browser globals used inside `evaluate` callbacks (they run in the page, not in Node). */
declare const document: { body: { dataset: Record<string, string | undefined> } };
declare const navigator: { clipboard: { readText(): Promise<string>; writeText(t: string): Promise<void> } };

const fixtures = path.join(__dirname, 'fixtures', 'workspace');
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** Figures printed at the end (the closing note quotes them). */
const figures: Record<string, string> = {};

/** The bytes the fixture prints, computed here independently of the extension. */
const bigLog = execFileSync(process.execPath, [path.join(fixtures, 'big-log.js')], {
  maxBuffer: 64 * 1024 * 1024,
  stdio: ['ignore', 'pipe', 'ignore'],
});
const bigLogText = bigLog.toString('utf8');
const errorLineIndex = bigLogText.split('\n').findIndex((l) => l.includes('error TS2345'));

describe('Evidence Inspector in a real workbench', function () {
  this.timeout(240_000);
  let wb: Workbench;
  let view: FrameLocator;
  let handle = '';
  /** Script elements of the webview document before any output is shown (VS Code adds its own). */
  let baselineScripts = -1;

  /** Text of an element in the webview. */
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();
  /** Evaluates in the webview's own document. */
  const inPage = <T>(fn: () => T | Promise<T>): Promise<T> => view.locator('body').evaluate(fn);
  /** The page's debounced `setState` has run (what a hidden or reloaded page comes back with). */
  const stateSaved = (): Promise<void> => view.locator('body:not([data-state-pending])').waitFor();
  /** Lines of the window, as rendered (text of each line, no gutter). */
  const windowLines = (): Promise<string[]> => view.locator('#window .wline .tx').allTextContents();
  const workbenchClipboard = (): Promise<string> => wb.page.evaluate(() => navigator.clipboard.readText());

  const capture = (command: string): Promise<void> => wb.capture(command);

  /** Clicks a tab of the fetch form. */
  async function tab(name: 'Byte range' | 'Lines' | 'Pattern'): Promise<void> {
    await view.locator('vscode-tab-header', { hasText: name }).click();
  }

  /** Types into a vscode-textfield (its input lives in a shadow root, which locators pierce). */
  async function type(id: string, value: string): Promise<void> {
    const input = view.locator(`#${id} input`);
    await input.fill(value);
  }

  /** Selects the captured log's stdout by its handle (filter, click, clear the filter). */
  async function selectBigLog(): Promise<void> {
    await type('filter-text', handle);
    await view.locator('#list-summary', { hasText: /^1 of \d+ calls$/ }).waitFor();
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: handle }).click();
    await view.locator('#id-handle', { hasText: handle }).waitFor();
    await type('filter-text', '');
  }

  /** Fetches a byte window from the form and waits for it to be on screen; returns the in-page round trip (ms). */
  async function fetchBytes(start: number, end: number): Promise<number> {
    await tab('Byte range');
    const before = await inPage(() => document.body.dataset.fetchSeq ?? '0');
    await type('bytes-start', String(start));
    await type('bytes-end', String(end));
    await view.locator('#fetch-bytes').click();
    await view.locator(`body:not([data-fetch-seq="${before}"])`).waitFor();
    await view.locator(`#window[data-start="${start}"][data-end="${end}"]`).waitFor();
    return Number(await inPage(() => document.body.dataset.lastFetchMs));
  }

  before(async () => {
    wb = await openWorkbench({ label: 'inspector', workspaceTemplate: fixtures, colorTheme: 'Default Dark Modern' });
    view = wb.webview();
  });
  after(async () => {
    console.log(`    figures: ${JSON.stringify(figures, null, 2)}`);
    await closeWorkbench(wb);
  });

  it('opens from the command palette and shows its heading', async () => {
    await wb.runCommand('Bounded Evidence: Open Inspector');
    const heading = view.locator('h1');
    await heading.waitFor({ timeout: 30_000 });
    assert.equal(await text(heading), 'Evidence Inspector');
    baselineScripts = await inPage(
      () => (globalThis as unknown as { document: { scripts: { length: number } } }).document.scripts.length,
    );
    assert.ok(baselineScripts >= 1);
    await wb.screenshot('inspector-opened');
  });

  it('lists a captured multi-megabyte log with its exact byte count, handle and sha256', async () => {
    await capture('node big-log.js');
    // The command opens the inspector on the run's stdout.
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 60_000 });
    handle = await text(view.locator('#id-handle'));
    assert.match(handle, /^out_[a-z2-7]{26}$/);
    assert.equal(await text(view.locator('#id-sha')), sha(bigLog));
    assert.equal(
      await text(view.locator('#id-size')),
      `${bigLog.length.toLocaleString('en-US')} bytes (${(bigLog.length / 1048576).toFixed(1)} MiB)`,
    );
    assert.equal(await text(view.locator('#id-lines')), (60_000).toLocaleString('en-US'));
    // The selected row in the list says the same.
    const row = view.locator('.vlist-row.selected');
    assert.equal(await text(row.locator('.c1')), 'stdout');
    // The human size in the cell, the exact count in its tooltip (the detail says both).
    assert.equal(await text(row.locator('.c4')), `${(bigLog.length / 1048576).toFixed(1)} MiB`);
    assert.equal(await row.locator('.c4').getAttribute('title'), `${bigLog.length.toLocaleString('en-US')} bytes`);
    assert.equal(await text(row.locator('.c5')), handle);
    assert.equal(await text(row.locator('.sha')), sha(bigLog).slice(0, 12));
    assert.equal(await row.locator('.sha').getAttribute('title'), sha(bigLog));
    assert.equal(await text(row.locator('.c7')), 'blob');
    // Its call row and the stderr sibling are there too.
    await view.locator('.vlist-row[data-kind="part"] .c1', { hasText: 'stderr' }).first().waitFor();
    // The preview the model saw: head and tail with their byte ranges, and the gap.
    const gap = await text(view.locator('#preview-gap'));
    const m = /bytes \[(\d+), (\d+)\) omitted/.exec(gap);
    assert.ok(m, gap);
    const [h, t] = [Number(m[1]), Number(m[2])];
    const headLines = await view.locator('#preview-head .wline .tx').allTextContents();
    assert.equal(headLines.join('\n'), bigLog.subarray(0, h).toString('utf8').replace(/\n$/, ''));
    const tailLines = await view.locator('#preview-tail .wline .tx').allTextContents();
    assert.equal(tailLines.join('\n'), bigLog.subarray(t).toString('utf8').replace(/\n$/, ''));
    // Error first (docs/contracts.md §2.13): above the head, the error line the model saw first, marked, with its
    // line number and the byte offset of its match (the TypeScript rule matches from the line's start).
    const errorLine = bigLogText.split('\n')[errorLineIndex]!;
    const errorAt = Buffer.byteLength(bigLogText.split('\n').slice(0, errorLineIndex).join('\n')) + 1;
    assert.equal(
      await text(view.locator('#preview-errors .error-line')),
      `line ${errorLineIndex + 1}, byte ${errorAt}: ${errorLine}`,
    );
    assert.equal(await text(view.locator('#preview-errors mark')), errorLine);
    assert.equal(await text(view.locator('#preview-errors-label')), 'Error lines the model saw first · 1 of 1');
    await wb.screenshot('inspector-captured-log');
  });

  it('finds the error line by pattern, with its line number', async () => {
    await tab('Pattern');
    await type('pattern', 'error TS\\d+');
    await view.locator('#find').click();
    await view.locator('#match-info', { hasText: 'Match 1 of 1' }).waitFor();
    const match = view.locator('.match[aria-selected="true"]');
    assert.equal(await text(match.locator('.ln')), `line ${(errorLineIndex + 1).toLocaleString('en-US')}`);
    assert.equal(await text(match.locator('.tx')), bigLogText.split('\n')[errorLineIndex]);
    // The window around it marks the hit line, with the exact byte position in the header.
    await view.locator('#window .wline.hit').waitFor();
    assert.equal(await text(view.locator('#window .wline.hit .ln')), String(errorLineIndex + 1));
    const errStart =
      Buffer.byteLength(
        bigLogText
          .split('\n')
          .slice(0, errorLineIndex - 3)
          .join('\n'),
      ) + 1;
    assert.match(await text(view.locator('#window-position')), new RegExp(`^bytes \\[${errStart}, \\d+\\)`));
    // A bad regular expression is answered inline.
    await type('pattern', '(unclosed');
    await view.locator('#find').click();
    await view.locator('#window-error:not(:empty)').waitFor();
    assert.ok((await text(view.locator('#window-error'))).length > 0);
    // The same line by line number, in the Lines tab.
    await tab('Lines');
    await type('lines-from', String(errorLineIndex + 1));
    await type('lines-count', '1');
    await view.locator('#fetch-lines').click();
    await view
      .locator('#window-position', { hasText: `line ${(errorLineIndex + 1).toLocaleString('en-US')} ` })
      .waitFor();
    assert.deepEqual(await windowLines(), [bigLogText.split('\n')[errorLineIndex]]);
    // Paging moves by the window's size.
    await view.locator('#page-next').click();
    await view
      .locator('#window-position', { hasText: `line ${(errorLineIndex + 2).toLocaleString('en-US')} ` })
      .waitFor();
    assert.deepEqual(await windowLines(), [bigLogText.split('\n')[errorLineIndex + 1]]);
  });

  it('fetches a byte range exactly, and measures the 16 KiB round trip', async () => {
    const start = 1_000_000;
    const end = start + 16_384;
    await fetchBytes(start, end);
    const expected = bigLog.subarray(start, end).toString('utf8').split('\n');
    if (expected[expected.length - 1] === '') expected.pop();
    assert.deepEqual(await windowLines(), expected);
    assert.match(
      await text(view.locator('#window-position')),
      new RegExp(`^bytes \\[${start}, ${end}\\) · 16,384 bytes · lines `),
    );
    // Next page: the following 16 KiB, moved to whole characters (ASCII here: exactly).
    await view.locator('#page-next').click();
    await view.locator(`#window[data-start="${end}"][data-end="${end + 16_384}"]`).waitFor();
    const times: number[] = [];
    const replies: number[] = [];
    for (let i = 1; i <= 9; i++) {
      times.push(await fetchBytes(start + i * 65_536, start + i * 65_536 + 16_384));
      replies.push(Number(await inPage(() => document.body.dataset.lastReplyMs)));
    }
    figures.fetch16KiBReplyMedianMs = median(replies).toFixed(1);
    figures.fetch16KiBMedianMs = median(times).toFixed(1);
    figures.fetch16KiBLastRenderMs = String(await inPage(() => document.body.dataset.lastRenderMs));
    figures.fetch16KiBAllMs = times.map((t) => t.toFixed(0)).join(', ');
    figures.fetch16KiBLoadAverage = (await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
    // Reading on with Next: the next window was read ahead while this one was on screen (a
    // person reads before pressing Next: here until it has arrived), so no round trip is waited for. Exact bytes every time.
    const nexts: number[] = [];
    let at = Number(await view.locator('#window').getAttribute('data-end'));
    for (let i = 0; i < 7; i++) {
      await view.locator('body[data-read-ahead="ready"]').waitFor();
      const before = await inPage(() => document.body.dataset.fetchSeq ?? '0');
      await view.locator('#page-next').click();
      await view.locator(`body:not([data-fetch-seq="${before}"])`).waitFor();
      await view.locator(`#window[data-start="${at}"][data-end="${at + 16_384}"]`).waitFor();
      const want = bigLog
        .subarray(at, at + 16_384)
        .toString('utf8')
        .split('\n');
      if (want[want.length - 1] === '') want.pop();
      assert.deepEqual(await windowLines(), want);
      assert.equal(await inPage(() => document.body.dataset.lastFetchReadAhead), 'true');
      nexts.push(Number(await inPage(() => document.body.dataset.lastFetchMs)));
      at += 16_384;
    }
    figures.next16KiBReadAheadMedianMs = `${median(nexts).toFixed(1)} (${nexts.map((t) => t.toFixed(0)).join(', ')})`;
    assert.ok(median(times) < 1000, `median ${median(times)} ms`);
  });

  it('shows a cut character and an oversized window as inline errors, never a blank panel', async () => {
    await fetchBytesExpectError(0, 65_537, 'a window may cover at most 65536 bytes');
    const size = bigLog.length.toLocaleString('en-US');
    await fetchBytesExpectError(
      bigLog.length - 1,
      bigLog.length + 5,
      `byte ${(bigLog.length + 5).toLocaleString('en-US')} is past the end: the output holds ${size} bytes`,
    );
    async function fetchBytesExpectError(start: number, end: number, message: string): Promise<void> {
      await type('bytes-start', String(start));
      await type('bytes-end', String(end));
      await view.locator('#fetch-bytes').click();
      await view.locator('#window-error', { hasText: message }).waitFor();
      assert.ok((await text(view.locator('#window-position'))).endsWith('not shown'));
      assert.ok(await view.locator('#detail-title').isVisible());
    }
  });

  /** The Markdown excerpt the panel must produce for bytes [start, end) of the log. */
  function expectedExcerpt(start: number, end: number, firstLine: number, lines: number): string {
    const bytes = bigLog.subarray(start, end);
    const body = bytes.toString('utf8');
    return [
      '```text',
      `${body.endsWith('\n') ? body : `${body}\n`}\`\`\``,
      '',
      'Evidence excerpt (exact text):',
      `- handle: \`${handle}\``,
      `- range: bytes [${start}, ${end}), ${lines === 1 ? `line ${firstLine + 1}` : `lines ${firstLine + 1}–${firstLine + lines}`}`,
      `- excerpt: ${end - start} bytes, sha256 ${sha(bytes)}`,
      `- artifact: ${bigLog.length} bytes, sha256 ${sha(bigLog)}`,
      // A browser workbench cannot open its own scheme (code-oss://): the link is the served
      // workbench's callback URL for it (vscode.env.asExternalUri), checked by `openLinkOf`.
      '- open: <LINK>',
      '',
    ].join('\n');
  }
  /** The excerpt with its open: link replaced by LINK, and that link (which must lead to `code-oss://…/open?handle=…&bytes=start-end` through this workbench). */
  function openLinkOf(excerpt: string, start: number, end: number): { excerpt: string; link: string } {
    const m = /^- open: <(.+)>$/m.exec(excerpt);
    assert.ok(m, excerpt);
    const link = new URL(m[1]!);
    assert.equal(link.origin, new URL(wb.page.url()).origin, `the link is this workbench's own address: ${m[1]}`);
    const p = link.searchParams;
    assert.deepEqual(
      [
        link.pathname.replace(/^\/[^/]+\/callback$/, '/callback'),
        p.get('vscode-scheme'),
        p.get('vscode-authority'),
        p.get('vscode-path'),
        p.get('vscode-query'),
      ],
      ['/callback', 'code-oss', 'bounded-evidence.bounded-evidence', '/open', `handle=${handle}&bytes=${start}-${end}`],
      m[1],
    );
    return { excerpt: excerpt.replace(m[0], '- open: <LINK>'), link: m[1]! };
  }
  const errStart = (): number => Buffer.byteLength(bigLogText.split('\n').slice(0, errorLineIndex).join('\n')) + 1;
  const errEnd = (): number => errStart() + Buffer.byteLength(bigLogText.split('\n')[errorLineIndex]!) + 1;

  it('copies an excerpt with its provenance to the clipboard', async () => {
    await fetchBytes(errStart(), errEnd());
    await wb.page.evaluate(() => navigator.clipboard.writeText('(empty)'));
    await view.locator('#copy-excerpt').click();
    await view.locator('#action-result', { hasText: 'copied with its provenance' }).waitFor();
    assert.equal(
      await view.getByText(/copied with its provenance/).count(),
      1,
      'the result is said once, beside the buttons',
    );
    const copied = openLinkOf(await workbenchClipboard(), errStart(), errEnd());
    assert.equal(copied.excerpt, expectedExcerpt(errStart(), errEnd(), errorLineIndex, 1));
  });

  it('sends the excerpt to the chat input without sending it (or says it copied instead)', async () => {
    await wb.page.evaluate(() => navigator.clipboard.writeText('(empty)'));
    await view.locator('#send-to-chat').click();
    const result = view.locator('#action-result');
    await result.locator('text=/chat input|clipboard/').waitFor();
    const said = await text(result);
    const expected = expectedExcerpt(errStart(), errEnd(), errorLineIndex, 1);
    if (said.startsWith('Excerpt placed in the chat input')) {
      figures.sendToChat = 'chat input';
      // Monaco renders the visible part of the input; wrapped pieces of a line are adjacent.
      const input = wb.page
        .locator('.part.auxiliarybar .monaco-editor .view-lines', { hasText: 'error TS2345' })
        .first();
      await input.waitFor({ timeout: 30_000 });
      const shown = ((await input.textContent()) ?? '').replace(/\u00a0/g, ' ');
      for (const line of ['```text', 'error TS2345', 'Evidence excerpt (exact text):', `- handle: \`${handle}\``])
        assert.ok(shown.includes(line), `chat input lacks ${line}: ${shown.slice(0, 400)}`);
      // Not sent: the chat sends, and clears its input, inside the command the result above waited for.
      assert.ok(((await input.textContent()) ?? '').replace(/\u00a0/g, ' ').includes('Evidence excerpt'));
    } else {
      figures.sendToChat = 'clipboard fallback';
      assert.equal(said, 'Chat input is not available here: the excerpt was copied to the clipboard instead.');
      assert.equal(openLinkOf(await workbenchClipboard(), errStart(), errEnd()).excerpt, expected);
    }
  });

  it('verifies every byte and opens the artifact in the editor', async () => {
    await view.locator('#verify').click();
    await view.locator('#verdict.ok').waitFor({ timeout: 60_000 });
    assert.match(
      await text(view.locator('#verdict')),
      new RegExp(
        `^Verified: all ${bigLog.length.toLocaleString('en-US')} bytes match sha256 ${sha(bigLog).slice(0, 12)}… \\(\\d+ ms\\)\\.$`,
      ),
    );
    assert.equal(await view.locator('#verdict').getAttribute('title'), `sha256 ${sha(bigLog)}`);
    await view.locator('#open-editor').click();
    // The tab names the output and its lines in the log's terms, with the header's page number.
    await wb.page
      .locator('.tabs-container .tab', { hasText: new RegExp(`${handle} lines \\d+–\\d+ \\(page \\d+ of \\d+\\)`) })
      .first()
      .waitFor({ timeout: 30_000 });
    // Its gutter counts output lines: the editor's own numbers are off, and the number drawn
    // before each line is that line's number in the output (the text beside it is that line).
    const editor = wb.page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line').first().waitFor();
    // (A string: the page's DOM types are not this suite's, and tsx would add helpers the page lacks.)
    const rowsShown = `(() => {
      const ed = document.querySelector('.editor-instance .monaco-editor');
      const out = [];
      for (const line of ed ? Array.from(ed.querySelectorAll('.view-line')) : []) {
        let n = '';
        for (const el of Array.from(line.querySelectorAll('span'))) {
          const c = getComputedStyle(el, '::before').content;
          if (c && c !== 'none' && c !== 'normal') { n = c.replace(/^"|"$/g, '').replace(/\\u00a0|\u00a0/g, ' ').trim(); break; }
        }
        out.push({ top: parseFloat(line.style.top || '0'), n, text: (line.textContent || '').replace(/\u00a0/g, ' ') });
      }
      return out.sort((a, b) => a.top - b.top).map(({ n, text }) => ({ n, text }));
    })()`;
    // Numbered once the editor has drawn its line numbers; asserted below either way.
    await until(wb.page, `${rowsShown}.some((r) => r.n)`, 'line numbers drawn').catch(() => undefined);
    const shown = (await wb.page.evaluate(rowsShown)) as { n: string; text: string }[];
    const numbered = shown.filter((r) => r.n);
    assert.ok(numbered.length >= 5, JSON.stringify(shown.slice(0, 5)));
    const outputLines = bigLogText.split('\n');
    for (const r of numbered)
      assert.equal(r.text, outputLines[Number(r.n.replace(/,/g, '')) - 1], `the line numbered ${r.n}`);
    assert.equal(await editor.locator('.margin .line-numbers').count(), 0, "the editor's own line numbers are off");
    // The status bar says the cursor's line in output terms too (its "Ln" counts page lines).
    const statusItem = wb.page.locator('.statusbar-item', { hasText: /^Output line [\d,]+$/ });
    await statusItem.waitFor({ timeout: 10_000 });
    const cursorN = (await text(statusItem)).replace('Output line ', '');
    assert.ok(
      numbered.some((r) => r.n === cursorN),
      `the cursor's output line ${cursorN} is on screen`,
    );
    await wb.screenshot('inspector-open-in-editor-gutter');
    // Back to the inspector for what follows.
    await wb.page.locator('.tabs-container .tab', { hasText: 'Evidence Inspector' }).click();
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
  });

  it('is usable from the keyboard: arrows move the selection, Enter opens, c copies the digest', async () => {
    const list = view.locator('#calls');
    await list.focus();
    await list.press('Home');
    assert.equal(await list.getAttribute('aria-activedescendant'), 'row-0');
    assert.equal(await view.locator('#row-0').getAttribute('aria-level'), '1');
    await list.press('ArrowDown');
    await view.locator('#detail-title', { hasText: 'evidence_runCommand result' }).waitFor();
    assert.equal(await view.locator('#row-1').getAttribute('aria-selected'), 'true');
    await list.press('ArrowDown');
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
    assert.equal(await list.getAttribute('aria-activedescendant'), 'row-2');
    // The row's accessible name is its visible text (label in name): name, size, handle, storage state.
    assert.equal(await view.locator('#row-2').getAttribute('aria-label'), null);
    assert.match(
      await text(view.locator('#row-2')),
      new RegExp(`^stdout${(bigLog.length / 1048576).toFixed(1)} MiB${handle}.*blob`),
    );
    await list.press('c');
    await view.locator('#status', { hasText: 'Copied the sha256.' }).waitFor();
    assert.equal(await workbenchClipboard(), sha(bigLog));
    await list.press('ArrowLeft');
    assert.equal(await list.getAttribute('aria-activedescendant'), 'row-1');
    await list.press('ArrowRight');
    await list.press('Enter');
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor();
    // Every control has an accessible name.
    const unnamed = await view
      .locator('vscode-button')
      .evaluateAll((els) => els.filter((e) => !(e.textContent ?? '').trim()).length);
    assert.equal(unnamed, 0);
    const fields = await view
      .locator('vscode-textfield, vscode-single-select')
      .evaluateAll((els) => els.filter((e) => !e.getAttribute('label')).length);
    assert.equal(fields, 0);
    // A button is reachable and pressed with the keyboard.
    await view.locator('#verify').focus();
    await wb.page.keyboard.press('Enter');
    await view.locator('#verdict.ok').waitFor();
  });

  it('keeps selection, filters and the window when hidden and shown again', async () => {
    await selectBigLog();
    await tab('Pattern');
    await type('pattern', 'error TS\\d+');
    await view.locator('#find').click();
    await view.locator('#window .wline.hit').waitFor();
    await type('filter-text', 'evidence_runCommand');
    await view.locator('#list-summary', { hasText: '1 of 1 calls' }).waitFor();
    const position = await text(view.locator('#window-position'));
    await stateSaved();
    await wb.runCommand('File: New Untitled Text File');
    await wb.page.locator('.tabs-container .tab.active', { hasText: 'Untitled' }).waitFor();
    await wb.page.locator('.tabs-container .tab', { hasText: 'Evidence Inspector' }).click();
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 30_000 });
    await view.locator('#window .wline.hit').waitFor();
    assert.equal(await text(view.locator('#window-position')), position);
    assert.equal(
      await view.locator('#filter-text').evaluate((e) => (e as unknown as { value: string }).value),
      'evidence_runCommand',
    );
    assert.equal(
      await view.locator('#pattern').evaluate((e) => (e as unknown as { value: string }).value),
      'error TS\\d+',
    );
    await type('filter-text', '');
  });

  it('shows malicious output as inert text: no script runs, no element is injected', async () => {
    await capture('node evil.js');
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 60_000 });
    await view.locator('#window .wline', { hasText: 'nul:' }).waitFor({ timeout: 30_000 });
    const lines = await windowLines();
    assert.deepEqual(lines, [
      '<script>window.__pwned = "script"; document.body.dataset.pwned = "script"</script>',
      "<img src=x onerror=\"window.__pwned = 'img'; document.body.dataset.pwned = 'img'\">",
      '<svg onload="window.__pwned = \'svg\'"></svg><iframe src="javascript:parent.__pwned=\'iframe\'"></iframe>',
      '<a href="javascript:window.__pwned=\'link\'" id="evil-link">click me</a> [md](javascript:alert(1))',
      'red ANSI then bold green osc link cleared?',
      'bidi: user⟨U+202E RLO⟩gnp.exe⟨U+202C PDF⟩ and ⟨U+2067 RLI⟩isolate⟨U+2069 PDI⟩ zero⟨U+200B ZWSP⟩width',
      'nul: a␀b bell ␇ del ␡ end',
    ]);
    assert.equal(await text(view.locator('#window .a-fg1')), 'red ANSI');
    assert.equal(await text(view.locator('#window .a-fg2.a-b')), 'bold green');
    const probe = await inPage(() => {
      const g = globalThis as unknown as {
        __pwned?: unknown;
        document: {
          body: { dataset: Record<string, string | undefined> };
          querySelectorAll(s: string): { length: number };
        };
      };
      const d = g.document;
      return {
        pwned: g.__pwned ?? null,
        dataset: d.body.dataset.pwned ?? null,
        scripts: (d as unknown as { scripts: { length: number } }).scripts.length,
        injected: d.querySelectorAll('img, svg, iframe, a, #evil-link, [onerror], [onload]').length,
        csp: d.body.dataset.cspViolations ?? null,
      };
    });
    assert.deepEqual(probe, { pwned: null, dataset: null, scripts: baselineScripts, injected: 0, csp: '0' });
    assert.equal(await wb.page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned ?? null), null);
    await wb.screenshot('inspector-malicious-output');
  });

  it('looks native in light, dark and high-contrast themes (screenshots)', async () => {
    await wb.runCommand('View: Close Primary Side Bar');
    await wb.runCommand('View: Toggle Secondary Side Bar Visibility');
    // The captured log, with the error line found by pattern.
    await selectBigLog();
    await tab('Pattern');
    await type('pattern', 'error TS\\d+');
    await view.locator('#find').click();
    await view.locator('#window .wline.hit').waitFor();
    // Show the window and the actions, with the match highlighted.
    await view.locator('.actions').scrollIntoViewIfNeeded();
    const settings = path.join(wb.workspaceDir, '.vscode', 'settings.json');
    const shots: string[] = [];
    for (const [name, theme, kind] of [
      ['light', 'Default Light Modern', 'vscode-light'],
      ['high-contrast', 'Default High Contrast', 'vscode-high-contrast'],
      ['high-contrast-light', 'Default High Contrast Light', 'vscode-high-contrast-light'],
      ['dark', 'Default Dark Modern', 'vscode-dark'],
    ] as const) {
      writeFileSync(settings, JSON.stringify({ 'workbench.colorTheme': theme }, null, 2));
      await view.locator(`body[data-vscode-theme-kind="${kind}"]`).waitFor({ timeout: 30_000 });
      await themeShown(wb.page, view, theme);
      shots.push(await wb.screenshot(`inspector-theme-${name}`));
    }
    figures.screenshots = shots.join(', ');
  });

  it('is restored after a window reload with its selection and window (serializer)', async () => {
    const title = await text(view.locator('#detail-title'));
    const position = await text(view.locator('#window-position'));
    await stateSaved();
    await wb.runCommand('Developer: Reload Window');
    await wb.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await view.locator('h1', { hasText: 'Evidence Inspector' }).waitFor({ timeout: 60_000 });
    await view.locator('#detail-title', { hasText: title }).waitFor({ timeout: 60_000 });
    // The saved window is fetched again: the hit line, or (failing the test) an inline error.
    await view.locator('#window .wline.hit, #window-error:not(:empty)').first().waitFor({ timeout: 30_000 });
    assert.equal(await text(view.locator('#window-error')), '');
    // The position line is written with the window; under load the restored selection may be
    // shown twice (state, then the page that holds its row): wait for the settled text.
    await view.locator('#window-position', { hasText: position }).waitFor({ timeout: 30_000 });
    assert.equal(await text(view.locator('#window-position')), position);
    assert.equal(
      await view.locator('#pattern').evaluate((e) => (e as unknown as { value: string }).value),
      'error TS\\d+',
    );
  });

  /** Calls seeded below: 100 runs of 100 calls; call `i` is in run `batch ⌊i/100⌋` and reads `src/file-<i>.ts`. */
  const seeded = 10_000;
  const stored = seeded + 2;
  const count = (n: number): string => n.toLocaleString('en-US');
  /** The visible call rows: their index in the list's order and their arguments, as rendered. */
  const visibleCalls = (): Promise<{ index: number; args: string; tool: string }[]> =>
    view.locator('.vlist-row[data-kind="call"]:not([hidden])').evaluateAll((els) =>
      els.map((e) => ({
        index: Number((e as unknown as { dataset: { call: string } }).dataset.call),
        args: e.querySelector('.c8')?.textContent ?? '',
        tool: e.querySelector('.c1')?.textContent ?? '',
      })),
    );
  /** Waits until the list has drawn its rows for scroll position `top` (a row on screen covers it). */
  async function waitForRowsAt(top: number): Promise<void> {
    await until(
      await frameOf(view),
      `[...document.querySelectorAll('#calls .vlist-row:not([hidden])')].some((r) => {
        const m = /translateY\\(([\\d.]+)px\\)/.exec(r.style.transform);
        return m !== null && Number(m[1]) <= ${top} && ${top} < Number(m[1]) + r.offsetHeight;
      })`,
      `rows drawn at scroll position ${top}`,
      60_000,
    );
  }
  /** Waits until no row on screen is still loading. */
  const settled = (): Promise<void> =>
    view
      .locator('#calls:not([aria-busy="true"])')
      .waitFor({ timeout: 60_000 })
      .then(() =>
        view
          .locator('.vlist-row[data-kind="pending"]:not([hidden])')
          .first()
          .waitFor({ state: 'detached', timeout: 60_000 })
          .catch(async () => {
            assert.equal(
              await view.locator('.vlist-row[data-kind="pending"]:not([hidden])').count(),
              0,
              'rows still loading on screen',
            );
          }),
      );

  it('lists 10,000 recorded calls in host pages: first rows from the first page, later pages fetched on scroll with the right rows', async () => {
    // Seed through the core's own RunStore, over the workspace's run logs.
    const logFile = findFile(
      wb.server.runDir,
      (f) => f.endsWith('.jsonl') && f.includes('bounded-evidence') && f.includes(`${path.sep}logs${path.sep}`),
    );
    assert.ok(logFile, 'no run log in the workspace storage');
    const tenantDir = path.dirname(logFile);
    const store = await RunStore.open({ logsDir: path.dirname(tenantDir), tenant: path.basename(tenantDir) });
    const t0 = Date.now();
    for (let j = 0; j < seeded / 100; j++) {
      const run = await store.startRun({ label: `batch ${j}` });
      for (let k = 0; k < 100; k++) {
        const i = j * 100 + k;
        const result = i % 100 === 0 ? `large ${i}\n`.repeat(600) : `result ${i}\n`.repeat(1 + (i % 40));
        await run.recordResult(i % 3 === 0 ? 'grep' : 'read_file', { path: `src/file-${i}.ts` }, result);
      }
      await run.finish();
    }
    figures.seed10kCallsMs = String(Date.now() - t0);

    await wb.runCommand('View: Close All Editors');
    await view
      .locator('h1')
      .waitFor({ state: 'detached', timeout: 30_000 })
      .catch(() => undefined);
    const t1 = Date.now();
    await wb.runCommand('Bounded Evidence: Open Inspector');
    await view
      .locator('#list-summary', { hasText: `${count(stored)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });
    await view.locator('.vlist-row[data-kind="call"]').first().waitFor();
    figures.firstRows10kWallMsFromCommand = String(Date.now() - t1);
    const t = await inPage(() => ({ ...document.body.dataset }));
    figures.firstRows10kInPageMs = `first page asked at ${t.pageAskedMs}, answered ${t.firstPageMs}, first rows ${t.firstRowsMs} (ms since the page started): ${(Number(t.firstPageMs) - Number(t.pageAskedMs)).toFixed(1)} ms for the host's page`;
    assert.equal(t.callCount, String(stored));
    // One page held, and only the visible rows exist.
    assert.equal(t.pagesHeld, '1');
    const rowsInDom = await view.locator('.vlist-row:not([hidden])').count();
    assert.ok(rowsInDom > 5 && rowsInDom < 120, `${rowsInDom} rows in the DOM`);
    // The newest call first: index k is call 9,999 − k.
    const first = await visibleCalls();
    assert.ok(first.length >= 5);
    for (const c of first) assert.equal(c.args, `{"path":"src/file-${seeded - 1 - c.index}.ts"}`);

    // Scroll far: the pages there are fetched and hold exactly the calls of their positions.
    const list = view.locator('#calls');
    for (const at of [0.5, 0.93]) {
      const top = await list.evaluate((el, f) => {
        const vp = el as unknown as { scrollTop: number; scrollHeight: number; clientHeight: number };
        vp.scrollTop = f * (vp.scrollHeight - vp.clientHeight);
        return vp.scrollTop;
      }, at);
      // The list draws on the frame after the scroll event, then asks for the pages it lacks: wait for rows
      // drawn at this position (rows under the viewport's top), then for their pages.
      await waitForRowsAt(top);
      await settled();
      const rows = await visibleCalls();
      assert.ok(rows.length >= 3, `no call rows at ${at}`);
      assert.ok(
        rows.every((c) => c.index > 1000),
        `rows at ${at}: ${rows.map((c) => c.index).join(',')}`,
      );
      for (const c of rows) assert.equal(c.args, `{"path":"src/file-${seeded - 1 - c.index}.ts"}`, `row ${c.index}`);
    }
    const held = Number(await inPage(() => document.body.dataset.pagesHeld ?? '0'));
    assert.ok(held >= 1 && held < 20, `${held} pages held`);

    // End: the oldest call, the captured big log (its page is fetched when it comes into view).
    await list.focus();
    await list.press('Home');
    await settled();
    const t2 = Date.now();
    await list.press('End');
    await settled();
    await view
      .locator('.vlist-row[data-kind="call"]:not([hidden])', { hasText: 'evidence_runCommand' })
      .last()
      .waitFor({ timeout: 60_000 });
    figures.endOf10kMs = String(Date.now() - t2);
    // Scroll through the whole list in 60 frames and time the frames.
    // (No named functions inside evaluate: the test runner's transpiler would wrap them in a helper the page lacks.)
    const frames = await list.evaluate(async (el) => {
      const vp = el as unknown as { scrollTop: number; scrollHeight: number; clientHeight: number };
      const g = globalThis as unknown as { requestAnimationFrame(f: (t: number) => void): void };
      const out: number[] = [];
      let prev = await new Promise<number>((r) => g.requestAnimationFrame(r));
      for (let k = 0; k <= 60; k++) {
        vp.scrollTop = (k / 60) * (vp.scrollHeight - vp.clientHeight);
        const now = await new Promise<number>((r) => g.requestAnimationFrame(r));
        out.push(now - prev);
        prev = now;
      }
      return out;
    });
    figures.scroll10kFrameMs = `median ${median(frames).toFixed(1)}, max ${Math.max(...frames).toFixed(1)}; slowest list render ${await inPage(() => document.body.dataset.listRenderMaxMs)} ms`;
    // Frame times are a figure of this machine and its load (printed, not asserted; a loaded machine's were many
    // times a quiet one's): what is asserted is what the list shows at the end of the scroll, the oldest call.
    await settled();
    await view
      .locator('.vlist-row[data-kind="call"]:not([hidden])', { hasText: 'evidence_runCommand' })
      .last()
      .waitFor({ timeout: 60_000 });
    await wb.screenshot('inspector-10000-calls');
  });

  it('filters 10,000 calls on the host with exact totals, and finds a run among 100 by typing', async () => {
    // Tool: every third call is grep.
    const grep = Array.from({ length: seeded }, (_, i) => i).filter((i) => i % 3 === 0).length;
    // The tool picker: typing finds the tool among those the host listed.
    await view.locator('#filter-tool input').fill('gr');
    await view.locator('#filter-tool-options [role="option"]', { hasText: 'grep' }).click();
    await view
      .locator('#list-summary', { hasText: `${count(grep)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });
    await settled();
    for (const c of await visibleCalls()) assert.equal(c.tool, 'grep');
    // Text (run labels "batch 7", "batch 70" … "batch 79") and tool together.
    await type('filter-text', 'batch 7');
    const batch7 = Array.from({ length: seeded }, (_, i) => i).filter(
      (i) => i % 3 === 0 && [7, ...Array.from({ length: 10 }, (_, d) => 70 + d)].includes(Math.floor(i / 100)),
    ).length;
    await view
      .locator('#list-summary', { hasText: `${count(batch7)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });
    await type('filter-text', '');
    await view.locator('#filter-tool input').fill('');
    await view
      .locator('#list-summary', { hasText: `${count(stored)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });

    // The run picker: no element per run; typing asks the host.
    assert.equal(await view.locator('#filter-run vscode-option, #filter-run-options [role="option"]').count(), 0);
    await view.locator('#filter-run input').fill('batch 42');
    const option = view.locator('#filter-run-options [role="option"]', { hasText: 'batch 42' });
    await option.waitFor({ timeout: 30_000 });
    assert.deepEqual(
      (await view.locator('#filter-run-options [role="option"]').allTextContents()).map((s) => s.replace(/ · .*/, '')),
      ['All runs', 'batch 42'],
    );
    await option.click();
    await view.locator('#list-summary', { hasText: `100 of ${count(stored)} calls` }).waitFor({ timeout: 60_000 });
    await settled();
    const rows = await visibleCalls();
    assert.deepEqual(
      rows.slice(0, 3).map((c) => c.args),
      [4299, 4298, 4297].map((i) => `{"path":"src/file-${i}.ts"}`),
    );
    // Emptying the field shows every run again.
    await view.locator('#filter-run input').fill('');
    await view
      .locator('#list-summary', { hasText: `${count(stored)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });
    // Focus alone opens no list (tabbing through, or focus coming back from the palette); a click or ArrowDown does.
    await view.locator('#filter-text input').focus();
    await view.locator('#filter-text input').press('Escape');
    await view.locator('#filter-run input').focus();
    // Nothing asked for the list: it stays closed (an asked list is marked at once, before its search).
    assert.equal(await view.locator('.picker:has(#filter-run-options)').getAttribute('data-asking'), null);
    assert.ok(await view.locator('#filter-run-options').isHidden(), 'the run list stays closed on focus');
    await view.locator('#filter-run input').press('ArrowDown');
    await view.locator('#filter-run-options [role="option"]', { hasText: 'All runs' }).waitFor({ timeout: 30_000 });
    await view.locator('#filter-run input').press('Escape');
    await view.locator('#filter-run-options').waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('reveals a linked call far down the list: its page fetched, the row drawn, selected, focused and on screen; a filter that hides it says so, Clear filters brings it', async () => {
    // The call at position 9,099 newest first is call 900 of the seed (a large result: it has a handle).
    const logFile = findFile(
      wb.server.runDir,
      (f) => f.endsWith('.jsonl') && f.includes('bounded-evidence') && f.includes(`${path.sep}logs${path.sep}`),
    );
    const tenantDir = path.dirname(logFile!);
    const store = await RunStore.open({ logsDir: path.dirname(tenantDir), tenant: path.basename(tenantDir) });
    const far = (await store.queryCalls({ offset: 9099, limit: 1 })).rows[0]!;
    assert.equal(far.tool, 'grep');
    const farHandle = far.handle!;
    assert.match(farHandle, /^res_/);
    const openLink = async (): Promise<void> => {
      await wb.runCommand('Bounded Evidence: Open Evidence Link…');
      const input = wb.page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await input.fill(`${farHandle}:1-3`);
      await input.press('Enter');
    };
    /** The row of call `index`: drawn, selected, inside the list's visible box, the list focused and pointing at it. */
    const revealed = async (index: number): Promise<void> => {
      const row = view.locator(`.vlist-row[data-kind="call"][data-call="${index}"]:not([hidden])`);
      await row.waitFor({ timeout: 60_000 });
      await view
        .locator(`.vlist-row[data-kind="call"][data-call="${index}"][aria-selected="true"]`)
        .waitFor({ timeout: 30_000 });
      await view.locator('#id-handle', { hasText: farHandle }).waitFor({ timeout: 30_000 });
      const seen = await row.evaluate((el) => {
        const d = globalThis as unknown as {
          document: {
            activeElement: { id: string } | null;
            querySelector(s: string): {
              getBoundingClientRect(): { top: number; bottom: number };
              getAttribute(a: string): string | null;
            };
          };
        };
        const vp = d.document.querySelector('#calls');
        const b = (
          el as unknown as { getBoundingClientRect(): { top: number; bottom: number } }
        ).getBoundingClientRect();
        const box = vp.getBoundingClientRect();
        return {
          inside: b.top >= box.top - 1 && b.bottom <= box.bottom + 1,
          focused: d.document.activeElement?.id,
          active: vp.getAttribute('aria-activedescendant'),
          id: (el as unknown as { id: string }).id,
        };
      });
      assert.deepEqual(seen, { inside: true, focused: 'calls', active: seen.id, id: seen.id });
      assert.equal(await text(row.locator('.c1')), 'grep');
      assert.equal(await text(row.locator('.c8')), '{"path":"src/file-900.ts"}');
    };

    // From the top of the list (only the first page held): the link lands on row 9,099.
    await view.locator('#calls').focus();
    await view.locator('#calls').press('Home');
    await settled();
    assert.equal(await view.locator('.vlist-row[data-call="9099"]').count(), 0);
    const t0 = Date.now();
    await openLink();
    await revealed(9099);
    figures.revealFarCallMs = String(Date.now() - t0);
    await view.locator('#window-position', { hasText: 'Linked lines 1–3' }).waitFor({ timeout: 30_000 });
    assert.equal(await view.locator('#reveal-hidden:not([hidden])').count(), 0);
    // The keyboard goes on from it: ArrowUp is the next newer call of its run.
    await view.locator('#calls').press('ArrowUp');
    await view
      .locator('.vlist-row[data-kind="call"][data-call="9098"][aria-selected="true"]')
      .waitFor({ timeout: 30_000 });

    // A filter that keeps it: its place among grep calls (every third), newest first — calls 903 … 9,999 come before it.
    await view.locator('#filter-tool input').fill('gr');
    await view.locator('#filter-tool-options [role="option"]', { hasText: 'grep' }).click();
    const grep = Array.from({ length: seeded }, (_, i) => i).filter((i) => i % 3 === 0).length;
    await view
      .locator('#list-summary', { hasText: `${count(grep)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });
    await openLink();
    await revealed(Array.from({ length: seeded }, (_, i) => i).filter((i) => i % 3 === 0 && i > 900).length);

    // A filter that hides it: the call opens in the detail, the list says why it is not there.
    await view.locator('#filter-tool input').fill('read');
    await view.locator('#filter-tool-options [role="option"]', { hasText: 'read_file' }).click();
    await view
      .locator('#list-summary', { hasText: `${count(seeded - grep)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });
    await view.locator('#id-handle').waitFor();
    await openLink();
    const notice = view.locator('#reveal-hidden:not([hidden])');
    await notice.waitFor({ timeout: 30_000 });
    assert.equal(await text(notice.locator('.reveal-text')), 'The linked call is hidden by the filter.');
    await view.locator('#id-handle', { hasText: farHandle }).waitFor({ timeout: 30_000 });
    await wb.screenshot('inspector-reveal-hidden-by-filter');
    await view.locator('#reveal-clear').click();
    await view
      .locator('#list-summary', { hasText: `${count(stored)} of ${count(stored)} calls` })
      .waitFor({ timeout: 60_000 });
    assert.equal(await view.locator('#filter-tool input').inputValue(), '');
    await revealed(9099);
    await notice
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(async () => assert.equal(await view.locator('#reveal-hidden:not([hidden])').count(), 0));
    await view.locator('#calls').press('Home');
    await settled();
  });

  it('resizes list columns by dragging and by keyboard, and remembers them after a reload', async () => {
    const head = view.locator('#list-header .col-head[data-col="c1"]');
    const grip = view.locator('#list-header .col-resize[data-col="c1"]');
    const before = (await head.boundingBox())!.width;
    const g = (await grip.boundingBox())!;
    await grip.hover();
    await wb.page.mouse.down();
    await wb.page.mouse.move(g.x + g.width / 2 + 40, g.y + g.height / 2, { steps: 5 });
    await wb.page.mouse.move(g.x + g.width / 2 + 80, g.y + g.height / 2, { steps: 5 });
    await wb.page.mouse.up();
    const after = (await head.boundingBox())!.width;
    assert.ok(Math.abs(after - (before + 80)) <= 2, `width ${before} → ${after}, expected +80`);
    // Rows follow the header.
    const cell = (await view.locator('.vlist-row[data-kind="call"]:not([hidden]) .c1').first().boundingBox())!;
    assert.ok(Math.abs(cell.width - after) <= 2, `row cell ${cell.width} vs header ${after}`);
    // Keyboard: the grip is a focusable separator; each arrow moves its edge 16 px.
    const sizeGrip = view.locator('#list-header .col-resize[data-col="c4"]');
    const size0 = (await view.locator('#list-header .col-head[data-col="c4"]').boundingBox())!.width;
    await sizeGrip.focus();
    await sizeGrip.press('ArrowLeft');
    await sizeGrip.press('ArrowLeft');
    const size1 = (await view.locator('#list-header .col-head[data-col="c4"]').boundingBox())!.width;
    assert.ok(Math.abs(size1 - (size0 - 32)) <= 2, `size column ${size0} → ${size1}`);
    assert.equal(await sizeGrip.getAttribute('aria-valuenow'), String(Math.round(size0 - 32)));
    await stateSaved();
    await wb.runCommand('Developer: Reload Window');
    await wb.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await view.locator('#list-summary', { hasText: `of ${count(stored)} calls` }).waitFor({ timeout: 60_000 });
    const kept = (await view.locator('#list-header .col-head[data-col="c1"]').boundingBox())!.width;
    const keptSize = (await view.locator('#list-header .col-head[data-col="c4"]').boundingBox())!.width;
    assert.ok(
      Math.abs(kept - after) <= 2 && Math.abs(keptSize - size1) <= 2,
      `after reload ${kept}, ${keptSize}; before ${after}, ${size1}`,
    );
    // Double-click puts a column back.
    await view.locator('#list-header .col-resize[data-col="c1"]').dblclick();
    assert.equal(
      await view
        .locator('section.calls')
        .evaluate((el) =>
          (el as unknown as { style: { getPropertyValue(n: string): string } }).style.getPropertyValue('--w-c1'),
        ),
      '',
    );
    assert.ok(Math.abs((await head.boundingBox())!.width - kept) > 2, 'the column kept its dragged width');
    await wb.screenshot('inspector-columns-resized');
  });

  it('lists runs in the Runs view a page at a time, newest first, with "Show more runs…"', async () => {
    // 100 seeded runs and the captured ones: the root lists the newest 100, then "Show more".
    const runsStored = Number(
      /^(\d+) runs/.exec(await text(wb.page.locator('.statusbar-item', { hasText: /\d+ runs · / }).first()))![1],
    );
    assert.ok(runsStored > 100, `${runsStored} runs`);
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    const tree = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list');
    const rows = tree.locator('.monaco-list-row');
    await rows.first().waitFor({ timeout: 30_000 });
    assert.match(await text(rows.first()), /^batch 99(?!\d)/);
    // The tree's own keyboard: End focuses its last row.
    const focused = tree.locator('.monaco-list-row.focused');
    await tree.focus();
    await tree.press('Home');
    await tree.press('End');
    const more = focused.filter({ hasText: 'Show more runs…' });
    await more.waitFor({ timeout: 30_000 });
    assert.match(await text(more), new RegExp(`100 of ${count(runsStored)} runs shown`));
    // The newest 100 are the batches; the runs captured before them are not listed yet.
    assert.equal(await rows.filter({ hasText: /^batch 0(?!\d)/ }).count(), 1);
    assert.equal(await rows.filter({ hasText: /^run: / }).count(), 0);
    await more.click();
    // All runs now (fewer than 200): the last row is the oldest run, a capture made before the batches, not "Show more".
    // The page at the end, where "Show more" was, is drawn again without it once the rest is listed.
    await rows.filter({ hasText: 'Show more runs…' }).waitFor({ state: 'detached', timeout: 30_000 });
    await tree.focus();
    await tree.press('End');
    await focused.filter({ hasText: /^run: / }).waitFor({ timeout: 30_000 });
    assert.match(await text(focused), /^run: /);
    await wb.screenshot('runs-view-paged');
  });
});
