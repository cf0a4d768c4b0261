/**
 * The streamed writer Export Output and Save Excerpt As… share (docs/contracts.md §3.4, "Export"): verified reads a
 * chunk at a time, the file appears only once complete, and `<file>.provenance.json` says how to check it.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { EvidenceError, type HandleSource, type RunStoreApi } from '../../core/index.js';
import { pickHandle } from '../commands/artifactCommands.js';
import { defaultSaveUri, rememberSaveFolder } from './saveFolder.js';
import type { CommandDeps } from '../commands/deps.js';
import { parseHandleDocumentUri } from './artifactDocument.js';
import { LineIndex } from '../inspector/lineIndex.js';
import { windowProblem, type ExcerptWindow } from './outputWindow.js';
import { formatBytes } from '../../shared/bytes.js';
import { Ids } from '../ids.js';

export const saveExcerptAsCommand = Ids.commands.saveExcerptAs;

export interface WrittenWindow {
  readonly path: string;
  readonly provenancePath: string;
  readonly byteCount: number;
  readonly sha256: string;
}

/** When the window is the whole output its digest must equal the recorded one, or nothing is kept. */
export async function writeWindow(
  src: HandleSource,
  start: number,
  end: number,
  target: string,
  provenance: Record<string, unknown>,
): Promise<WrittenWindow> {
  const tmp = `${target}.partial-${process.pid}`;
  const hash = createHash('sha256');
  const out = createWriteStream(tmp);
  try {
    if (end > start) {
      for await (const chunk of src.stream(start, end)) {
        hash.update(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
      }
    }
    out.end();
    await once(out, 'finish');
    const sha256 = hash.digest('hex');
    if (start === 0 && end === src.byteCount && sha256 !== src.sha256)
      throw new Error(`the exported bytes hash to ${sha256}, not the recorded ${src.sha256}`);
    await rename(tmp, target);
    const provenancePath = `${target}.provenance.json`;
    await writeFile(
      provenancePath,
      JSON.stringify({ ...provenance, byteCount: end - start, sha256, exportedAt: new Date().toISOString() }, null, 2) +
        '\n',
    );
    return { path: target, provenancePath, byteCount: end - start, sha256 };
  } catch (e) {
    out.destroy();
    await rm(tmp, { force: true });
    throw e;
  }
}

/** From the handle's line index instead of streaming every byte before them. */
export async function lineRange(
  src: HandleSource,
  first: number,
  last: number,
): Promise<{ start: number; end: number }> {
  const r = await (await LineIndex.build(src)).linesRange(first - 1, last - first + 1);
  return r ? { start: r.start, end: r.end } : { start: src.byteCount, end: src.byteCount };
}

export function parseWindowText(text: string): ExcerptWindow | undefined {
  const t = text.trim().toLowerCase().replace(/[,_]/g, '').replace(/–/g, '-');
  const bytes = /^bytes?\s*(\d{1,15})\s*-\s*(\d{1,15})$/.exec(t);
  if (bytes) return { bytes: { start: Number(bytes[1]), end: Number(bytes[2]) } };
  const lines = /^(?:lines?\s*)?(\d{1,15})(?:\s*-\s*(\d{1,15}))?$/.exec(t);
  if (lines) return { lines: { first: Number(lines[1]), last: Number(lines[2] ?? lines[1]) } };
  return undefined;
}

export interface SavedExcerpt extends WrittenWindow {
  readonly handle: string;
  readonly start: number;
  readonly end: number;
}

async function saveExcerpt(
  store: RunStoreApi,
  handle: string,
  w: ExcerptWindow,
  target: string,
): Promise<SavedExcerpt> {
  const src = await store.openHandle(handle);
  const problem = windowProblem(src, w);
  if (problem) throw new EvidenceError('invalidArgument', problem);
  const { start, end } = 'bytes' in w ? w.bytes : await lineRange(src, w.lines.first, w.lines.last);
  const lines =
    'lines' in w
      ? { lines: { first: w.lines.first, last: w.lines.last } }
      : !src.binary && end > start
        ? await linesOf(src, start, end)
        : {};
  const written = await writeWindow(src, start, end, target, {
    handle: src.handle,
    name: src.name,
    range: { start, end },
    ...lines,
    artifact: { byteCount: src.byteCount, sha256: src.sha256 },
    exportedBy: 'Bounded Evidence (Save Excerpt As)',
  });
  return { ...written, handle: src.handle, start, end };
}

/** Only when the window starts in the first 64 MiB. */
async function linesOf(
  src: HandleSource,
  start: number,
  end: number,
): Promise<{ lines?: { first: number; last: number } }> {
  if (start > 64 * 1024 * 1024) return {};
  const idx = await LineIndex.build(src);
  const lastByte = (await src.readRange(end - 1, end))[0];
  return { lines: { first: (await idx.lineAt(start)) + 1, last: (await idx.lineAt(end)) + (lastByte === 10 ? 0 : 1) } };
}

/** Asks for what is missing; the handle defaults to the active page's. */
export async function saveExcerptCommand(deps: CommandDeps, arg?: unknown): Promise<SavedExcerpt | undefined> {
  const a = (typeof arg === 'object' && arg !== null ? arg : {}) as {
    handle?: unknown;
    bytes?: unknown;
    lines?: unknown;
    path?: unknown;
  };
  const services = await deps.host.get();
  const active = vscode.window.activeTextEditor
    ? parseHandleDocumentUri(vscode.window.activeTextEditor.document.uri)?.handle
    : undefined;
  const handle =
    typeof a.handle === 'string'
      ? a.handle
      : (active ?? (await pickHandle(services, 'Bounded Evidence: Save Excerpt As…')));
  if (!handle) return undefined;
  let w: ExcerptWindow | undefined;
  const b = a.bytes as { start?: unknown; end?: unknown } | undefined;
  const l = a.lines as { first?: unknown; last?: unknown } | undefined;
  if (typeof b?.start === 'number' && typeof b.end === 'number') w = { bytes: { start: b.start, end: b.end } };
  else if (typeof l?.first === 'number' && typeof l.last === 'number') w = { lines: { first: l.first, last: l.last } };
  else if (a.bytes !== undefined || a.lines !== undefined) {
    void vscode.window.showErrorMessage(
      'Bounded Evidence: Save Excerpt As… takes bytes {start, end} or lines {first, last}.',
    );
    return undefined;
  } else {
    const typed = await vscode.window.showInputBox({
      title: `Save Excerpt of ${handle}`,
      prompt: 'Lines (e.g. "lines 30001-33187") or bytes (e.g. "bytes 0-4096")',
      ignoreFocusOut: true,
      validateInput: (v) => (parseWindowText(v) ? undefined : 'lines FIRST-LAST or bytes START-END'),
    });
    if (typed === undefined) return undefined;
    w = parseWindowText(typed);
  }
  if (!w) return undefined;
  let target = typeof a.path === 'string' ? a.path : undefined;
  if (!target) {
    const name =
      `${handle}.` +
      ('bytes' in w ? `bytes-${w.bytes.start}-${w.bytes.end}` : `lines-${w.lines.first}-${w.lines.last}`) +
      '.txt';
    const uri = await vscode.window.showSaveDialog({
      title: `Save Excerpt of ${handle}`,
      saveLabel: 'Save Excerpt',
      defaultUri: defaultSaveUri(deps.globalState, name),
    });
    if (!uri) return undefined;
    await rememberSaveFolder(deps.globalState, uri);
    target = uri.fsPath;
  }
  const window = w;
  const where = target;
  try {
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Saving an excerpt of ${handle}` },
      () => saveExcerpt(services.reads, handle, window, where),
    );
    void vscode.window.showInformationMessage(
      `Bounded Evidence: saved bytes [${r.start}, ${r.end}) of ${handle} ` +
        `(${formatBytes(r.byteCount)}, sha256 ${r.sha256.slice(0, 12)}…) with its ` +
        `provenance beside it.`,
    );
    return r;
  } catch (e) {
    if (!(e instanceof EvidenceError)) deps.log.error(`save excerpt ${handle}`, e);
    void vscode.window.showErrorMessage(
      `Bounded Evidence: the excerpt was not saved: ${e instanceof Error ? e.message : String(e)}.`,
    );
    return undefined;
  }
}
