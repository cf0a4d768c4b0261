import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenArtifactResult, VerifyResult } from '../../src/extension/commands/artifactCommands.js';
import type { ImportFileResult } from '../../src/extension/commands/importFile.js';
import { buildLogCommand, evidenceApi, evidenceStorage, invoke, listRuns, reference, workspaceDir } from './helpers.js';

const cmd = {
  importFile: 'boundedEvidence.importFile',
  verify: 'boundedEvidence.verifyArtifact',
  open: 'boundedEvidence.openArtifact',
} as const;

/** Polls `probe` until it returns true (settings apply asynchronously). */
async function eventually(probe: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!(await probe())) {
    if (Date.now() - t0 > ms) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('boundedEvidence').update(key, value, vscode.ConfigurationTarget.Global);
}

describe('palette commands, driven with arguments', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'be-cmd-'));
  let log: Buffer;
  let logFile: string;
  before(async () => {
    await evidenceApi();
    log = reference(buildLogCommand(40000), workspaceDir()).stdout;
    logFile = path.join(tmp, 'build.log');
    writeFileSync(logFile, log);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('imports a binary file by streaming it; Verify Artifact re-hashes it; the reader reports it as binary', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const file = path.join(tmp, 'blob.bin');
    writeFileSync(file, bytes);
    const r = await vscode.commands.executeCommand<ImportFileResult>(cmd.importFile, {
      path: file,
      openInspector: false,
    });
    assert.equal(r.byteCount, bytes.length);
    assert.equal(r.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(r.binary, true);
    assert.ok(r.handle);
    const { storage, tenant } = await evidenceStorage();
    assert.deepEqual((await listRuns(storage, tenant)).find((x) => x.runId === r.runId)?.source, { kind: 'command' });
    const v = await vscode.commands.executeCommand<VerifyResult>(cmd.verify, { handle: r.handle });
    assert.deepEqual(v, { handle: r.handle, ok: true, sha256: r.sha256, byteCount: bytes.length });
    const read = JSON.parse(await invoke('read_tool_output', { handle: r.handle })) as {
      binary: boolean;
      content: string;
      total_size_bytes: number;
    };
    assert.deepEqual([read.binary, read.content, read.total_size_bytes], [true, '', bytes.length]);
    // In the editor, binary pages are hex dumps with offsets.
    const opened = await vscode.commands.executeCommand<OpenArtifactResult>(cmd.open, {
      handle: r.handle,
      byteOffset: 70_000,
    });
    // The tab's name counts pages from 1, like the header, and names the bytes (a binary output has no lines).
    assert.equal(vscode.Uri.parse(opened.uri).path, `/${r.handle}/${r.handle} bytes 65536–98304 (page 3 of 97).txt`);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(opened.uri));
    assert.match(
      doc.lineAt(0).text,
      /page 3 of 97 · bytes \[65536, 98304\) of 3145745 · sha256 [0-9a-f]{64} · binary, shown as hex/,
    );
    const row = 70_000 - (70_000 % 16);
    const sixteen = [...bytes.subarray(row, row + 16)];
    // `hexdump -C` rows, as the model's byte windows and the inspector show them: two groups of eight, ASCII between bars.
    const hex = (bs: number[]): string => bs.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = sixteen.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    assert.equal(
      doc.lineAt(opened.line).text,
      `${row.toString(16).padStart(8, '0')}  ${hex(sixteen.slice(0, 8))}  ${hex(sixteen.slice(8))}  |${ascii}|`,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("Verify Artifact says why when a handle is not this workspace's", async () => {
    const v = await vscode.commands.executeCommand<VerifyResult>(cmd.verify, { handle: 'res_nope-1' });
    assert.deepEqual(v, { handle: 'res_nope-1', ok: false, error: 'access denied: unknown or expired handle' });
  });

  it('Open Artifact in Editor pages a large output and reveals a line; the header says which bytes and lines', async () => {
    const imported = await vscode.commands.executeCommand<ImportFileResult>(cmd.importFile, {
      path: logFile,
      openInspector: false,
    });
    const handle = imported.handle!;
    const opened = await vscode.commands.executeCommand<OpenArtifactResult>(cmd.open, { handle, line: 20000 });
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(opened.uri));
    const lines = log.toString('utf8').split('\n');
    assert.equal(doc.lineAt(opened.line).text, lines[20000]);
    assert.match(lines[20000]!, /error TS2345/);
    const header = doc.lineAt(0).text;
    const m =
      /page (\d+) of (\d+) · bytes \[(\d+), (\d+)\) of (\d+) · lines (\d+)–(\d+) of (\d+) · sha256 ([0-9a-f]{64})/.exec(
        header,
      );
    assert.ok(m, header);
    const [, page, pages, start, end, total, firstLine, lastLine, totalLines, sha] = m.map(Number) as number[];
    assert.equal(total, log.length);
    assert.equal(totalLines, 40000);
    assert.equal(m[9], imported.sha256);
    assert.ok(page! >= 2 && pages! === Math.ceil(log.length / (256 * 1024)) && sha !== undefined);
    // The body is exactly bytes [start, end) of the output, and starts at the line the header names.
    const body = doc.getText(new vscode.Range(3, 0, doc.lineCount, 0));
    assert.equal(body, log.subarray(start!, end!).toString('utf8'));
    assert.equal(log.subarray(0, start!).toString('utf8').split('\n').length, firstLine);
    assert.ok(vscode.window.activeTextEditor?.document.uri.toString() === opened.uri, 'the page is shown');
    assert.equal(vscode.window.activeTextEditor?.selection.active.line, opened.line);
    // Pages start on whole lines, and the tab's page number is the header's.
    assert.ok(start === 0 || log[start! - 1] === 10, `page starts mid-line at byte ${start}`);
    // The tab names the output and its lines as the log counts them, and the header's page number.
    assert.equal(
      vscode.Uri.parse(opened.uri).path,
      `/${handle}/${handle} lines ${firstLine}–${lastLine} (page ${page} of ${pages}).txt`,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Go to Output Line with a log line number puts the cursor on exactly that line.
    for (const wanted of [1, 20001, 39999]) {
      await vscode.commands.executeCommand('boundedEvidence.goToOutputLine', { handle, line: wanted });
      const editor: vscode.TextEditor = vscode.window.activeTextEditor!;
      assert.equal(editor.document.lineAt(editor.selection.active.line).text, lines[wanted - 1], `line ${wanted}`);
      assert.equal(editor.selection.active.character, 0);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("an output page counts output lines in its gutter: the editor's own numbers off, the output line number drawn before each line, also after scrolling", async () => {
    const imported = await vscode.commands.executeCommand<ImportFileResult>(cmd.importFile, {
      path: logFile,
      openInspector: false,
    });
    const handle = imported.handle!;
    const lines = log.toString('utf8').split('\n');
    type Gutter =
      | {
          uri: string;
          languageId: string;
          lineNumbers: vscode.TextEditorLineNumbersStyle;
          lines: { line: number; text: string }[];
          lastDrawMs: number;
        }
      | undefined;
    const gutter = (): Thenable<Gutter> => vscode.commands.executeCommand<Gutter>('boundedEvidence.outputLineNumbers');
    const opened = await vscode.commands.executeCommand<OpenArtifactResult>(cmd.open, { handle, line: 20000 });
    const editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.uri.toString(), opened.uri);
    const firstLine = Number(/ · lines (\d+)–/.exec(editor.document.lineAt(0).text)![1]);
    assert.ok(firstLine > 1, 'a page past the first: page line and output line differ');
    let g = await gutter();
    assert.ok(g);
    // The editor's own line numbers are off for these pages (contributed configurationDefaults).
    assert.equal(g.languageId, 'bounded-evidence-output');
    assert.equal(g.lineNumbers, vscode.TextEditorLineNumbersStyle.Off);
    assert.equal(editor.options.lineNumbers, vscode.TextEditorLineNumbersStyle.Off);
    const width = (lines.length - 1).toLocaleString('en-US').length;
    const at = (gl: { line: number; text: string }[], docLine: number): string | undefined =>
      gl.find((x) => x.line === docLine)?.text;
    // The revealed line reads 20,001 and is that output line's text.
    assert.equal(at(g.lines, opened.line), (20000 + 1).toLocaleString('en-US'));
    assert.equal(editor.document.lineAt(opened.line).text, lines[20000]);
    assert.ok(
      g.lines.length > 0 && g.lines.length < 1000,
      `only the lines on screen and a margin are decorated (${g.lines.length})`,
    );
    // Scrolled to the page's top: page line 1 (the first after the header) reads the page's first output line.
    editor.revealRange(new vscode.Range(0, 0, 0, 0), vscode.TextEditorRevealType.AtTop);
    await eventually(async () => (await gutter())?.lines.some((x) => x.line === 3) ?? false);
    g = (await gutter())!;
    assert.equal(at(g.lines, 3), firstLine.toLocaleString('en-US'));
    assert.equal(editor.document.lineAt(3).text, lines[firstLine - 1]);
    assert.ok(
      g.lines.every((x) => x.line >= 3),
      'the header has no number',
    );
    // Scrolled to the page's end: still right there (each number is its line's, in output terms).
    const lastDocLine = editor.document.lineCount - 1;
    editor.revealRange(new vscode.Range(lastDocLine, 0, lastDocLine, 0), vscode.TextEditorRevealType.InCenter);
    await eventually(async () => (await gutter())?.lines.some((x) => x.line >= lastDocLine - 1) ?? false);
    g = (await gutter())!;
    for (const x of g.lines)
      assert.equal(x.text, (firstLine + x.line - 3).toLocaleString('en-US'), `document line ${x.line}`);
    const shown = g.lines[g.lines.length - 1]!;
    assert.equal(editor.document.lineAt(shown.line).text, lines[firstLine + shown.line - 3 - 1]);
    assert.ok(width >= shown.text.length);
    console.log(
      `      output gutter: ${g.lines.length} numbers drawn, ${g.lastDrawMs.toFixed(2)} ms in the extension host for the last draw`,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('settings apply without a reload, and handles and artifacts minted before stay valid after the stores reopen', async function () {
    this.timeout(60_000);
    const rel = 'logs/settings-case.log';
    const text = 'line of five thousand bytes\n'.repeat(180);
    await vscode.workspace.fs.writeFile(vscode.Uri.file(path.join(workspaceDir(), rel)), Buffer.from(text));
    const before = await invoke('evidence_readFile', { path: rel });
    assert.match(before, /^Tool result externalized:\n/);
    const artifact = (JSON.parse(before.split('\n')[1]!) as { artifact_id: string }).artifact_id;
    const stdout = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(
      await invoke('evidence_runCommand', { command: buildLogCommand(5000) }),
    )![1]!;
    try {
      // maxInlineBytes 6144 makes the same file come back whole: the stores were rebuilt.
      await setSetting('maxInlineBytes', 6144);
      await eventually(async () => (await invoke('evidence_readFile', { path: rel })) === text);
      await setSetting('maxRangeBytes', 1024);
      await eventually(
        async () =>
          (await invoke('evidence_readFile', { path: `.tool-artifacts/${artifact}/bytes/0-2000` })) ===
          'error: artifact range exceeds 1024 bytes',
      );
      // New stores, same storage: the artifact is a key of the tenant in the blob store (nothing to learn), the handle resolves.
      const range = await invoke('evidence_readFile', { path: `.tool-artifacts/${artifact}/bytes/28-56` });
      assert.equal(JSON.parse(range.split('\n')[1]!).data, text.slice(28, 56));
      const found = JSON.parse(await invoke('read_tool_output', { handle: stdout, pattern: 'error TS' })) as {
        total_matches: number;
      };
      assert.equal(found.total_matches, 1);
    } finally {
      await setSetting('maxInlineBytes', undefined);
      await setSetting('maxRangeBytes', undefined);
    }
    await eventually(async () =>
      (await invoke('evidence_readFile', { path: rel })).startsWith('Tool result externalized:'),
    );
  });
});
