/**
 * The work a person does with evidence, inside a real extension host: exporting an
 * output of any size (100 MB here) streamed with bounded memory and its provenance
 * beside it, and comparing two chosen windows in the diff editor.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync, createReadStream } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as vscode from 'vscode';
import type { ImportFileResult } from '../../src/extension/commands/importFile.js';
import type { ComparedWindows } from '../../src/extension/documents/compareWindows.js';
import type { ExportResult } from '../../src/extension/commands/exportOutput.js';
import { evidenceApi } from './helpers.js';

const MiB = 1024 * 1024;

/** The diff editor that became active (it opens asynchronously). */
async function activeDiff(): Promise<vscode.TabInputTextDiff> {
  let tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  for (let i = 0; i < 100 && !(tab?.input instanceof vscode.TabInputTextDiff); i++) {
    await new Promise((r) => setTimeout(r, 100));
    tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  }
  assert.ok(tab?.input instanceof vscode.TabInputTextDiff, `a diff editor is open (active tab: ${tab?.label})`);
  return tab.input;
}

/** SHA-256 of a file, streamed. */
async function fileSha(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

describe('export and compare outputs', function () {
  this.timeout(300_000);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'be-export-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('exports a 100 MB output streamed, with bounded memory, byte-exact, with its provenance beside it', async () => {
    await evidenceApi();
    // A 100 MiB text file written a mebibyte at a time (every line numbered, so no two MiB are alike).
    const source = path.join(tmp, 'big.log');
    const fd = openSync(source, 'w');
    const hash = createHash('sha256');
    let n = 0;
    for (let m = 0; m < 100; m++) {
      let text = '';
      while (text.length < MiB - 64)
        text += `line ${String(n++).padStart(9, '0')} of the export test, some ordinary log words\n`;
      const buf = Buffer.from(text.padEnd(MiB, '.'));
      hash.update(buf);
      writeSync(fd, buf);
    }
    closeSync(fd);
    const sha = hash.digest('hex');
    const imported = await vscode.commands.executeCommand<ImportFileResult>('boundedEvidence.importFile', {
      path: source,
      openInspector: false,
    });
    assert.equal(imported.byteCount, 100 * MiB);
    assert.equal(imported.sha256, sha);

    const target = path.join(tmp, 'exported.log');
    // Collect the garbage of writing and importing first, so the baseline is what the host really holds.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    const t0 = Date.now();
    const r = await vscode.commands.executeCommand<ExportResult>('boundedEvidence.exportOutput', {
      handle: imported.handle,
      path: target,
    });
    const ms = Date.now() - t0;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log(
      `    export of 100 MiB: ${ms} ms, extension-host RSS grew at most ${((peak - base) / MiB).toFixed(1)} MiB`,
    );
    assert.deepEqual(r, {
      path: target,
      provenancePath: `${target}.provenance.json`,
      byteCount: 100 * MiB,
      sha256: sha,
    });
    assert.equal(statSync(target).size, 100 * MiB);
    assert.equal(await fileSha(target), sha);
    const provenance = JSON.parse(readFileSync(`${target}.provenance.json`, 'utf8')) as Record<string, unknown>;
    assert.equal(provenance.handle, imported.handle);
    assert.equal(provenance.byteCount, 100 * MiB);
    assert.equal(provenance.sha256, sha);
    // Streamed: the host never held the output (100 MiB) whole (the growth is the collector's slack).
    assert.ok(peak - base < 80 * MiB, `RSS grew by ${((peak - base) / MiB).toFixed(1)} MiB`);
  });

  it('compares two chosen windows in the diff editor: exactly the bytes of each window, never the whole outputs', async () => {
    const { writeFileSync } = await import('node:fs');
    // Two outputs of 60,000 numbered lines (1.3 MB, more than a compared window may hold);
    // b differs from a on line 30,000 alone.
    const rowsA = Array.from({ length: 60000 }, (_, i) => `row ${String(i + 1).padStart(6, '0')} of the log\n`);
    const rowsB = rowsA.map((r, i) => (i === 29999 ? 'row 030000 CHANGED\n' : r));
    const [a, b] = [path.join(tmp, 'a.log'), path.join(tmp, 'b.log')];
    writeFileSync(a, rowsA.join(''));
    writeFileSync(b, rowsB.join(''));
    const ia = await vscode.commands.executeCommand<ImportFileResult>('boundedEvidence.importFile', {
      path: a,
      openInspector: false,
    });
    const ib = await vscode.commands.executeCommand<ImportFileResult>('boundedEvidence.importFile', {
      path: b,
      openInspector: false,
    });
    assert.ok(ia.handle && ib.handle, 'both imports have handles');
    const bytesOf = (rows: string[], first: number, last: number): { start: number; end: number; text: string } => {
      const start = Buffer.byteLength(rows.slice(0, first - 1).join(''));
      const text = rows.slice(first - 1, last).join('');
      return { start, end: start + Buffer.byteLength(text), text };
    };
    // Left: lines 29,990–30,010 of a. Right: the same lines of b, given as bytes (as the inspector sends its window).
    const left = bytesOf(rowsA, 29990, 30010);
    const right = bytesOf(rowsB, 29990, 30010);
    const opened = await vscode.commands.executeCommand<ComparedWindows | undefined>('boundedEvidence.compareOutputs', {
      left: { handle: ia.handle, lines: { first: 29990, last: 30010 } },
      right: { handle: ib.handle, bytes: { start: right.start, end: right.end } },
    });
    assert.ok(opened);
    assert.deepEqual(opened.left, {
      handle: ia.handle,
      start: left.start,
      end: left.end,
      label: 'lines 29990–30010',
      uri: `bounded-evidence-window:/${ia.handle}/bytes-${left.start}-${left.end}.txt`,
    });
    assert.deepEqual(opened.right, {
      handle: ib.handle,
      start: right.start,
      end: right.end,
      label: `bytes ${right.start}–${right.end}`,
      uri: `bounded-evidence-window:/${ib.handle}/bytes-${right.start}-${right.end}.txt`,
    });
    const input = await activeDiff();
    assert.equal(input.original.toString(), opened.left.uri);
    assert.equal(input.modified.toString(), opened.right.uri);
    // Exactly those bytes on each side: nothing added, nothing more of the outputs.
    const [docL, docR] = [
      await vscode.workspace.openTextDocument(input.original),
      await vscode.workspace.openTextDocument(input.modified),
    ];
    assert.equal(docL.getText(), left.text);
    assert.equal(docR.getText(), right.text);
    assert.equal(Buffer.byteLength(docR.getText()), right.end - right.start);
    assert.equal(docL.lineAt(10).text, 'row 030000 of the log');
    assert.equal(docR.lineAt(10).text, 'row 030000 CHANGED');
    // A handle alone: its first 256 KiB, exactly.
    const first = await vscode.commands.executeCommand<ComparedWindows>('boundedEvidence.compareOutputs', {
      left: ia.handle,
      right: ib.handle,
    });
    const head = Buffer.from(rowsA.join(''))
      .subarray(0, 256 * 1024)
      .toString();
    assert.equal((await vscode.workspace.openTextDocument(vscode.Uri.parse(first.left.uri))).getText(), head);
    assert.equal(first.left.label, 'bytes 0–262144');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Windows that are too large, past the end, or malformed open nothing.
    const bad: Record<string, unknown>[] = [
      { handle: ia.handle, lines: { first: 1, last: 60000 } },
      { handle: ia.handle, bytes: { start: 0, end: 1024 * 1024 + 1 } },
      { handle: ia.handle, lines: { first: 59999, last: 60001 } },
      { handle: ia.handle, bytes: { start: 10, end: 10 } },
      { handle: ia.handle, bytes: { start: 0 } },
      { handle: 'out_forged_stdout', bytes: { start: 0, end: 1 } },
    ];
    for (const side of bad) {
      const r: ComparedWindows | undefined = await vscode.commands.executeCommand<ComparedWindows | undefined>(
        'boundedEvidence.compareOutputs',
        { left: side, right: ib.handle },
      );
      assert.equal(r, undefined, JSON.stringify(side));
    }
    assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, 0, 'nothing was opened');
    // A forged window address shows one sentence, never bytes.
    const forged = await vscode.workspace.openTextDocument(
      vscode.Uri.parse(`bounded-evidence-window:/${ia.handle}/bytes-0-2000000.txt`),
    );
    assert.equal(
      forged.getText(),
      `bounded-evidence: ${ia.handle}: a compared window may hold at most 1.0 MiB; choose a smaller range`,
    );
  });
});
