/**
 * Links both ways and Save Excerpt As…, inside a real extension host:
 * `path:line[:col]` in an output's editor page links to the source file only inside the
 * workspace; a handle, a `.tool-artifacts/…` range or an excerpt's `<scheme>://` link (or a
 * browser workbench's `/callback?vscode-…` address for it) opens
 * the inspector panel on the output at the window (the panel marks it: test/e2e), and a
 * forged one opens nothing; a window saved to a file is byte-exact with its provenance beside it.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunCaptureResult } from '../../src/extension/commands/runCommandAndCapture.js';
import { evidenceLinksMarkdown, type OpenedLink } from '../../src/extension/links/evidenceLinks.js';
import type { SavedExcerpt } from '../../src/extension/documents/saveExcerpt.js';
import { excerptLink } from '../../src/extension/inspector/excerpt.js';
import { evidenceApi, invoke, sh, workspaceDir } from './helpers.js';

const openLink = 'boundedEvidence.openEvidenceLink';
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** Runs a command through Run Command and Capture (no inspector) and returns its stdout handle. */
async function capture(command: string): Promise<{ handle: string }> {
  const r = await vscode.commands.executeCommand<RunCaptureResult>('boundedEvidence.runCommandAndCapture', {
    command,
    openInspector: false,
  });
  const out = r.attachments.find((a) => a.name === 'stdout');
  assert.ok(out, 'no stdout attachment');
  return { handle: out.handle };
}

/** Every open tab: a link lands in the inspector panel alone (no editor page beside it). */
function openTabs(): { inspector: boolean; active: boolean; others: string[] } {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
  const inspector = tabs.find(
    (t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('boundedEvidence.inspector'),
  );
  return {
    inspector: !!inspector,
    active: !!inspector?.isActive,
    others: tabs.filter((t) => t !== inspector).map((t) => t.label),
  };
}

async function closeAll(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

describe('links both ways and Save Excerpt As', function () {
  this.timeout(180_000);
  const outside = mkdtempSync(path.join(os.tmpdir(), 'be-links-out-'));
  let ws: string;
  before(async () => {
    await evidenceApi();
    ws = workspaceDir();
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    writeFileSync(path.join(ws, 'src', 'app.ts'), 'line one\nline two\nline three\nline four\n');
    writeFileSync(path.join(outside, 'secret.ts'), 'outside\noutside\n');
    symlinkSync(path.join(outside, 'secret.ts'), path.join(ws, 'leak.ts'));
  });
  after(async () => {
    await closeAll();
    rmSync(outside, { recursive: true, force: true });
    rmSync(path.join(ws, 'leak.ts'), { force: true });
  });

  it('links path:line[:col] in an output page to the source file, only inside the workspace', async () => {
    const text = [
      'src/app.ts:3:5 error TS1005',
      './src/app.ts(2,1): warning',
      `${path.join(ws, 'src', 'app.ts')}:4`,
      '../outside/secret.ts:1',
      'src/../src/app.ts:1',
      `${path.join(outside, 'secret.ts')}:2`,
      'leak.ts:1',
      'src/missing.ts:9',
      'at 12:30:45 nothing',
      '',
    ].join('\n');
    const file = path.join(outside, 'lines.txt');
    writeFileSync(file, text);
    const { handle } = await capture(`cat ${sh(file)}`);
    await vscode.commands.executeCommand('boundedEvidence.openArtifact', { handle });
    const doc = vscode.window.activeTextEditor!.document;
    assert.equal(doc.uri.scheme, 'bounded-evidence');
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri);
    const body = links
      .filter((l) => l.range.start.line >= 3)
      .map((l) => [l.range.start.line - 3, l.range.start.character, l.range.end.character, l.target?.toString(true)]);
    const app = vscode.Uri.file(path.join(ws, 'src', 'app.ts'));
    assert.deepEqual(
      body.sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [0, 0, 14, app.with({ fragment: 'L3,5' }).toString(true)],
        [1, 0, 17, app.with({ fragment: 'L2,1' }).toString(true)],
        [2, 0, path.join(ws, 'src', 'app.ts').length + 2, app.with({ fragment: 'L4' }).toString(true)],
      ],
    );
    // Following a link (what a click does) opens the source file at that line and column.
    const first = links.find((l) => l.range.start.line === 3)!;
    await vscode.commands.executeCommand('vscode.open', first.target);
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === app.fsPath);
    await waitFor(() => vscode.window.activeTextEditor?.selection.active.line === 2);
    assert.equal(vscode.window.activeTextEditor!.selection.active.character, 4);
    await closeAll();
  });

  it('opens the inspector at a window from a handle in a chat answer (a command link trusted for our command alone)', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `log line ${i + 1}`).join('\n') + '\n';
    const file = path.join(outside, 'forty.txt');
    writeFileSync(file, lines);
    const { handle } = await capture(`cat ${sh(file)}`);
    const md = evidenceLinksMarkdown(`The failure is at ${handle} line 31, see also ${handle}.`);
    assert.ok(md);
    assert.deepEqual(md.isTrusted, { enabledCommands: [openLink] });
    const targets = [...md.value.matchAll(/\]\((command:[^)]+)\)/g)].map((m) => m[1]!);
    assert.equal(targets.length, 2);
    const m = /^command:([^?]+)\?(.*)$/.exec(targets[0]!)!;
    assert.equal(m[1], openLink);
    const args = JSON.parse(decodeURIComponent(m[2]!)) as unknown[];
    assert.deepEqual(args, [{ handle, line: '31' }]);
    await closeAll();
    const opened = await vscode.commands.executeCommand<OpenedLink>(m[1]!, ...args);
    // The panel is asked to show output line 31 (0-based offset 30) of that handle, and nothing else opens.
    assert.deepEqual(opened, { handle, window: { kind: 'lines', offset: 30, count: 1 } });
    await waitFor(() => openTabs().active);
    assert.deepEqual(openTabs(), { inspector: true, active: true, others: [] });
    // A range of lines is kept whole; one wider than a panel window is cut to its first 1,000 lines.
    const range = await vscode.commands.executeCommand<OpenedLink>(openLink, { handle, line: '12-15' });
    assert.deepEqual(range, { handle, window: { kind: 'lines', offset: 11, count: 4 } });
    await closeAll();
  });

  it("opens an excerpt's vscode:// link as the URI handler does, and a .tool-artifacts range by its artifact", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
    const file = path.join(outside, 'twenty.txt');
    writeFileSync(file, lines);
    const { handle } = await capture(`cat ${sh(file)}`);
    const start = Buffer.byteLength(lines.slice(0, lines.indexOf('row 12')));
    const link = vscode.Uri.parse(excerptLink(handle, start, start + 7, vscode.env.uriScheme));
    await closeAll();
    // What the URI handler receives (this web host cannot deliver an OS link to it): the whole link.
    const viaUri = await vscode.commands.executeCommand<OpenedLink>(openLink, { uri: link.toString() });
    assert.deepEqual(viaUri, { handle, window: { kind: 'bytes', start, end: start + 7 } });
    await waitFor(() => openTabs().active);
    assert.deepEqual(openTabs(), { inspector: true, active: true, others: [] });
    // The link as another build of the editor writes it (Insiders, OSS) opens the same window.
    const insiders = await vscode.commands.executeCommand<OpenedLink>(openLink, {
      uri: excerptLink(handle, start, start + 7, 'vscode-insiders'),
    });
    assert.deepEqual(insiders, viaUri);
    // The browser workbench's callback address for it (what its excerpts carry, and a person pastes) opens the same window.
    const callback = `https://workbench.example/stable-0123/callback?vscode-reqid=7&vscode-scheme=${vscode.env.uriScheme}&vscode-authority=${link.authority}&vscode-path=${encodeURIComponent(link.path)}&vscode-query=${encodeURIComponent(link.query)}`;
    assert.deepEqual(await vscode.commands.executeCommand<OpenedLink>(openLink, { uri: callback }), viaUri);

    // A read kept as an artifact: its .tool-artifacts range opens the same way.
    const big = path.join(ws, 'big-read.txt');
    const bigText = Array.from({ length: 3000 }, (_, i) => `artifact line ${i + 1}`).join('\n') + '\n';
    writeFileSync(big, bigText);
    const observation = await invoke('evidence_readFile', { path: 'big-read.txt' });
    const id = /"artifact_id":"(artifact-[0-9a-f]{64})"/.exec(observation)?.[1];
    assert.ok(id, observation.slice(0, 200));
    const at = Buffer.byteLength(bigText.slice(0, bigText.indexOf('artifact line 2000\n')));
    const md = evidenceLinksMarkdown(`read .tool-artifacts/${id}/bytes/${at}-${at + 10} next`);
    const target = /\]\((command:[^)]+)\)/.exec(md!.value)![1]!;
    const args = JSON.parse(decodeURIComponent(target.slice(target.indexOf('?') + 1))) as unknown[];
    await closeAll();
    const opened = await vscode.commands.executeCommand<OpenedLink>(openLink, ...args);
    assert.ok(opened);
    assert.match(opened.handle, /^res_/);
    assert.deepEqual(opened.window, { kind: 'bytes', start: at, end: at + 10 });
    // Those bytes of that handle are the line the range named.
    const api = await evidenceApi();
    assert.equal((await api.read({ handle: opened.handle, bytes: { start: at, end: at + 10 } })).content, 'artifact l');
    rmSync(big, { force: true });
    await closeAll();
  });

  it('refuses forged, unknown and malformed links and opens nothing', async () => {
    const { handle } = await capture('printf "a\\nb\\n"');
    await closeAll();
    const bad: unknown[] = [
      { handle: 'out_forged000000_stdout', line: '1' },
      { handle: '../../etc/passwd' },
      { handle, line: '3' },
      { handle, bytes: '0-999' },
      { handle, line: '1', bytes: '0-1' },
      { handle, line: '0' },
      { path: `.tool-artifacts/artifact-${'0'.repeat(64)}/bytes/0-4` },
      { path: '.tool-artifacts/../../x/bytes/0-4' },
      {},
      'out_x',
      { uri: `vscode://bounded-evidence.bounded-evidence/open?handle=out_nothere_stdout&line=1` },
      { uri: `vscode://bounded-evidence.bounded-evidence/open?handle=${handle}&line=1&line=2` },
      { uri: `vscode://bounded-evidence.bounded-evidence/open?handle=${handle}&run=1` },
      { uri: `vscode://bounded-evidence.bounded-evidence/exec?handle=${handle}` },
      { uri: `vscode://other.extension/open?handle=${handle}` },
      { uri: `vscode://bounded-evidence.bounded-evidence/open?handle=${handle}`, line: '1' },
      { uri: `file://bounded-evidence.bounded-evidence/open?handle=${handle}` },
      // Callback addresses: another route, another extension, a parameter folded into the link, a forged handle.
      {
        uri: `http://127.0.0.1:1/login?vscode-scheme=vscode&vscode-authority=bounded-evidence.bounded-evidence&vscode-path=%2Fopen&vscode-query=handle%3D${handle}`,
      },
      {
        uri: `http://127.0.0.1:1/callback?vscode-scheme=vscode&vscode-authority=other.extension&vscode-path=%2Fopen&vscode-query=handle%3D${handle}`,
      },
      {
        uri: `http://127.0.0.1:1/callback?vscode-scheme=vscode&vscode-authority=bounded-evidence.bounded-evidence&vscode-path=%2Fopen&vscode-query=handle%3D${handle}&line=1`,
      },
      {
        uri: `http://127.0.0.1:1/callback?vscode-scheme=vscode&vscode-authority=bounded-evidence.bounded-evidence&vscode-path=%2Fopen&vscode-query=handle%3Dout_forged000000_stdout`,
      },
    ];
    for (const arg of bad) {
      const r = await vscode.commands.executeCommand<OpenedLink | undefined>(openLink, arg);
      assert.equal(r, undefined, `opened ${JSON.stringify(arg)}`);
    }
    assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, 0, 'nothing was opened');
    // The good one still opens.
    assert.ok(await vscode.commands.executeCommand<OpenedLink>(openLink, { handle, line: '2' }));
    await closeAll();
  });

  it('names editor pages by handle and line range; the header agrees, its links use the same names, a false name is refused', async () => {
    // 30,000 lines of 20 bytes: several 256 KiB pages, each starting on a whole line.
    const file = path.join(outside, 'paged.txt');
    writeFileSync(
      file,
      Array.from({ length: 30000 }, (_, i) => `paged ${String(i + 1).padStart(13, '0')}`).join('\n') + '\n',
    );
    const { handle } = await capture(`cat ${sh(file)}`);
    await closeAll();
    await vscode.commands.executeCommand('boundedEvidence.goToOutputLine', { handle, line: 20001 });
    const doc = vscode.window.activeTextEditor!.document;
    // 20-byte lines: page 2 starts at byte 262,144 moved to the next whole line, line 13,109 at byte 262,160.
    assert.equal(doc.uri.path, `/${handle}/${handle} lines 13109–26215 (page 2 of 3).txt`);
    const header = doc.lineAt(0).text;
    assert.match(header, / · page 2 of 3 · bytes \[262160, 524300\) of 600000 · lines 13109–26215 of 30000 · /);
    assert.equal(
      doc.lineAt(vscode.window.activeTextEditor!.selection.active.line).text,
      `paged ${String(20001).padStart(13, '0')}`,
    );
    // The header's previous/next links name the neighbours the same way, and open them.
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri);
    const nav = links.filter((l) => l.range.start.line === 1).map((l) => l.target!.path);
    assert.deepEqual(nav, [
      `/${handle}/${handle} lines 1–13108 (page 1 of 3).txt`,
      `/${handle}/${handle} lines 26216–30000 (page 3 of 3).txt`,
    ]);
    const next = await vscode.workspace.openTextDocument(
      links.find((l) => l.range.start.line === 1 && l.target!.path.includes('page 3'))!.target!,
    );
    assert.match(
      next.lineAt(0).text,
      / · page 3 of 3 · bytes \[524300, 600000\) of 600000 · lines 26216–30000 of 30000 · /,
    );
    assert.equal(next.lineAt(3).text, `paged ${String(26216).padStart(13, '0')}`);
    // A name claiming other lines than its page holds is refused (the tab could not lie).
    const forged = await vscode.workspace.openTextDocument(
      vscode.Uri.from({ scheme: 'bounded-evidence', path: `/${handle}/${handle} lines 1–99 (page 2 of 3).txt` }),
    );
    assert.equal(
      forged.getText(),
      `bounded-evidence: this page is named "${handle} lines 13109–26215 (page 2 of 3)", not "${handle} lines 1–99 (page 2 of 3)".`,
    );
    await closeAll();
  });

  it('Save Excerpt As… writes a line or byte window byte-exact, streamed, with its provenance beside it', async () => {
    const text = Array.from({ length: 5000 }, (_, i) => `excerpt line ${i + 1} ✓`).join('\n');
    const file = path.join(outside, 'five-thousand.txt');
    writeFileSync(file, text);
    const all = Buffer.from(text);
    const { handle } = await capture(`cat ${sh(file)}`);
    const target = path.join(outside, 'saved.txt');
    const r = await vscode.commands.executeCommand<SavedExcerpt>('boundedEvidence.saveExcerptAs', {
      handle,
      lines: { first: 3001, last: 3187 },
      path: target,
    });
    const start = Buffer.byteLength(text.slice(0, text.indexOf('excerpt line 3001 ')));
    const end = Buffer.byteLength(text.slice(0, text.indexOf('excerpt line 3188 ')));
    const expected = all.subarray(start, end);
    assert.deepEqual(r, {
      path: target,
      provenancePath: `${target}.provenance.json`,
      byteCount: expected.length,
      sha256: sha(expected),
      handle,
      start,
      end,
    });
    assert.ok(readFileSync(target).equals(expected));
    const p = JSON.parse(readFileSync(`${target}.provenance.json`, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(
      { ...p, exportedAt: undefined },
      {
        handle,
        name: 'stdout',
        range: { start, end },
        lines: { first: 3001, last: 3187 },
        artifact: { byteCount: all.length, sha256: sha(all) },
        exportedBy: 'Bounded Evidence (Save Excerpt As)',
        byteCount: expected.length,
        sha256: sha(expected),
        exportedAt: undefined,
      },
    );
    // The last line has no newline: it ends with the output. A byte window reports the lines it touches.
    const tail = path.join(outside, 'tail.txt');
    const t = await vscode.commands.executeCommand<SavedExcerpt>('boundedEvidence.saveExcerptAs', {
      handle,
      lines: { first: 5000, last: 5000 },
      path: tail,
    });
    assert.equal(readFileSync(tail, 'utf8'), 'excerpt line 5000 ✓');
    assert.equal(t.end, all.length);
    const bytesTarget = path.join(outside, 'bytes.txt');
    await vscode.commands.executeCommand<SavedExcerpt>('boundedEvidence.saveExcerptAs', {
      handle,
      bytes: { start: 10, end: 60 },
      path: bytesTarget,
    });
    assert.ok(readFileSync(bytesTarget).equals(all.subarray(10, 60)));
    assert.deepEqual((JSON.parse(readFileSync(`${bytesTarget}.provenance.json`, 'utf8')) as { lines: unknown }).lines, {
      first: 1,
      last: 4,
    });
    // A window outside the output is refused and writes nothing.
    const none = path.join(outside, 'none.txt');
    for (const bad of [
      { lines: { first: 4000, last: 5001 } },
      { bytes: { start: 0, end: all.length + 1 } },
      { bytes: { start: 5, end: 5 } },
    ]) {
      assert.equal(
        await vscode.commands.executeCommand('boundedEvidence.saveExcerptAs', { handle, ...bad, path: none }),
        undefined,
      );
      assert.equal(existsSync(none) || existsSync(`${none}.provenance.json`), false);
    }
    assert.equal(
      await vscode.commands.executeCommand('boundedEvidence.saveExcerptAs', {
        handle: 'out_forged_stdout',
        bytes: { start: 0, end: 1 },
        path: none,
      }),
      undefined,
    );
    assert.equal(existsSync(none), false);
  });
});

/** Polls until `probe` holds (the workbench applies editor changes asynchronously). */
async function waitFor(probe: () => boolean, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!probe()) {
    if (Date.now() - t0 > ms) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
