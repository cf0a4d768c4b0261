/**
 * The work a person does with evidence, inside a real extension host: exporting an
 * output of any size (100 MB here) streamed with bounded memory and its provenance
 * beside it, and comparing two outputs in the diff editor by window.
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
import type { ExportResult } from '../../src/extension/evidenceView.js';
import { evidenceApi } from './helpers.js';

const MiB = 1024 * 1024;

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
      while (text.length < MiB - 64) text += `line ${String(n++).padStart(9, '0')} of the export test, some ordinary log words\n`;
      const buf = Buffer.from(text.padEnd(MiB, '.'));
      hash.update(buf);
      writeSync(fd, buf);
    }
    closeSync(fd);
    const sha = hash.digest('hex');
    const imported = await vscode.commands.executeCommand<ImportFileResult>('boundedEvidence.importFile', { path: source, openInspector: false });
    assert.equal(imported.byteCount, 100 * MiB);
    assert.equal(imported.sha256, sha);

    const target = path.join(tmp, 'exported.log');
    // Collect the garbage of writing and importing first, so the baseline is what the host really holds.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);
    const t0 = Date.now();
    const r = await vscode.commands.executeCommand<ExportResult>('boundedEvidence.exportOutput', { handle: imported.handle, path: target });
    const ms = Date.now() - t0;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log(`    export of 100 MiB: ${ms} ms, extension-host RSS grew at most ${((peak - base) / MiB).toFixed(1)} MiB`);
    assert.deepEqual(r, { path: target, provenancePath: `${target}.provenance.json`, byteCount: 100 * MiB, sha256: sha });
    assert.equal(statSync(target).size, 100 * MiB);
    assert.equal(await fileSha(target), sha);
    const provenance = JSON.parse(readFileSync(`${target}.provenance.json`, 'utf8')) as Record<string, unknown>;
    assert.equal(provenance.handle, imported.handle);
    assert.equal(provenance.byteCount, 100 * MiB);
    assert.equal(provenance.sha256, sha);
    // Streamed: the host never held the output (100 MiB) whole (the growth is the collector's slack).
    assert.ok(peak - base < 80 * MiB, `RSS grew by ${((peak - base) / MiB).toFixed(1)} MiB`);
  });

  it('compares two outputs in the diff editor, page 1 of each (a window, never the whole outputs)', async () => {
    const a = path.join(tmp, 'a.log');
    const b = path.join(tmp, 'b.log');
    const { writeFileSync } = await import('node:fs');
    // Large enough to be kept behind a handle (a small import is shown whole and has none).
    const common = 'same line\n'.repeat(3000);
    writeFileSync(a, `alpha\n${common}beta\n`);
    writeFileSync(b, `alpha\n${common}gamma\n`);
    const ia = await vscode.commands.executeCommand<ImportFileResult>('boundedEvidence.importFile', { path: a, openInspector: false });
    const ib = await vscode.commands.executeCommand<ImportFileResult>('boundedEvidence.importFile', { path: b, openInspector: false });
    assert.ok(ia.handle && ib.handle, 'both imports have handles');
    const handles = [ia.handle, ib.handle];
    const opened = await vscode.commands.executeCommand<{ left: string; right: string } | undefined>('boundedEvidence.compareOutputs', { left: handles[0], right: handles[1] });
    assert.deepEqual(opened, { left: `bounded-evidence:/${handles[0]}/page-1.txt`, right: `bounded-evidence:/${handles[1]}/page-1.txt` });
    let tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    for (let i = 0; i < 100 && !(tab?.input instanceof vscode.TabInputTextDiff); i++) {
      await new Promise((r) => setTimeout(r, 100));
      tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    }
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, `a diff editor is open (active tab: ${tab?.label})`);
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.toString(), `bounded-evidence:/${handles[0]}/page-1.txt`);
    assert.equal(input.modified.toString(), `bounded-evidence:/${handles[1]}/page-1.txt`);
    const right = await vscode.workspace.openTextDocument(input.modified);
    assert.equal(right.getText(new vscode.Range(3, 0, right.lineCount, 0)), `alpha\n${common}gamma\n`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
