/** Verify Artifact and Open Artifact in Editor: a handle as argument, or a pick among recent outputs. */
import * as vscode from 'vscode';
import { EvidenceError } from '../../core/index.js';
import { locate, pageUri, parseHandleDocumentUri } from '../documents/artifactDocument.js';
import type { ArtifactPosition } from '../ids.js';
import { asOutputPage } from '../documents/outputGutter.js';
import { errorMessage } from '../log.js';
import { formatBytes } from '../../shared/bytes.js';
import type { EvidenceServices } from '../services.js';
import type { CommandDeps } from './deps.js';

const PICKER_RUNS = 20;

export async function pickHandle(services: EvidenceServices, title: string): Promise<string | undefined> {
  const items: (vscode.QuickPickItem & { handle: string })[] = [];
  // The newest runs from the catalog: a full listing would stat every run's log to show twenty of them.
  for (const run of await services.reads.queryRuns({ limit: PICKER_RUNS })) {
    for (const call of await services.reads.report(run.runId).catch(() => [])) {
      if (call.handle && call.readable)
        items.push({
          label: call.handle,
          description: `${call.tool} · ${formatBytes(call.resultBytes)}`,
          detail: run.label,
          handle: call.handle,
        });
      for (const a of call.attachments) {
        if (a.readable)
          items.push({
            label: a.handle,
            description: `${call.tool} ${a.name} · ${formatBytes(a.sizeBytes)}`,
            detail: run.label,
            handle: a.handle,
          });
      }
    }
  }
  if (items.length === 0) {
    return await vscode.window.showInputBox({ title, prompt: 'A handle (res_… or out_…)', ignoreFocusOut: true });
  }
  return (
    await vscode.window.showQuickPick(items, {
      title,
      placeHolder: 'Pick a recorded output',
      ignoreFocusOut: true,
      matchOnDescription: true,
      matchOnDetail: true,
    })
  )?.handle;
}

/** The editor's output, else a pick. */
export async function paletteHandle(deps: CommandDeps, title: string): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  const open = editor ? parseHandleDocumentUri(editor.document.uri)?.handle : undefined;
  return open ?? (await pickHandle(await deps.host.get(), title));
}

export interface VerifyResult {
  readonly handle: string;
  readonly ok: boolean;
  readonly sha256?: string;
  readonly byteCount?: number;
  readonly error?: string;
}

function handleArg(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const h = (arg as { handle?: unknown } | undefined)?.handle;
  return typeof h === 'string' ? h : undefined;
}

export async function verifyArtifact(deps: CommandDeps, arg?: unknown): Promise<VerifyResult | undefined> {
  const services = await deps.host.get();
  const handle = handleArg(arg) ?? (await pickHandle(services, 'Bounded Evidence: Verify Artifact'));
  if (!handle) return undefined;
  let result: VerifyResult;
  try {
    const src = await services.reads.openHandle(handle);
    const ok = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Verifying ${handle} (${formatBytes(src.byteCount)})` },
      () => src.verify(),
    );
    result = { handle, ok, sha256: src.sha256, byteCount: src.byteCount };
  } catch (e) {
    result = { handle, ok: false, error: e instanceof EvidenceError ? e.message : 'the output could not be read' };
    if (!(e instanceof EvidenceError)) deps.log.error(`verify ${handle}`, e);
  }
  deps.log.info(`verify ${handle}: ${result.ok ? 'ok' : (result.error ?? 'MISMATCH')}`);
  if (result.ok)
    void vscode.window.showInformationMessage(
      `Bounded Evidence: ${handle} verified: all ${result.byteCount} bytes match sha256 ${result.sha256}.`,
    );
  else if (result.error) void vscode.window.showErrorMessage(`Bounded Evidence: ${handle}: ${result.error}.`);
  else
    void vscode.window.showErrorMessage(
      `Bounded Evidence: ${handle} does NOT match its recorded sha256 ${result.sha256}: the stored bytes changed.`,
    );
  return result;
}

export interface OpenArtifactResult {
  readonly uri: string;
  readonly line: number;
  readonly character: number;
}

export async function openArtifact(deps: CommandDeps, arg?: unknown): Promise<OpenArtifactResult | undefined> {
  const services = await deps.host.get();
  const pos = (typeof arg === 'object' && arg !== null ? arg : {}) as Partial<ArtifactPosition>;
  const handle = handleArg(arg) ?? (await pickHandle(services, 'Bounded Evidence: Open Artifact in Editor'));
  if (!handle) return undefined;
  let at;
  let uri: vscode.Uri;
  try {
    const src = await services.reads.openHandle(handle);
    at = await locate(src, {
      ...(typeof pos.line === 'number' ? { line: pos.line } : {}),
      ...(typeof pos.byteOffset === 'number' ? { byteOffset: pos.byteOffset } : {}),
    });
    uri = await pageUri(src, at.page);
  } catch (e) {
    void vscode.window.showErrorMessage(
      `Bounded Evidence: ${handle}: ${e instanceof EvidenceError ? e.message : 'the output could not be read'}.`,
    );
    if (!(e instanceof EvidenceError)) deps.log.error(`open ${handle}`, e);
    return undefined;
  }
  try {
    // The output language first, so the page never shows page line numbers.
    const doc = await asOutputPage(await vscode.workspace.openTextDocument(uri));
    const position = new vscode.Position(at.line, at.character);
    await vscode.window.showTextDocument(doc, { preview: true, selection: new vscode.Range(position, position) });
  } catch (e) {
    deps.log.error(`open ${uri.toString()}`, e);
    void vscode.window.showErrorMessage(`Bounded Evidence: the document could not be opened: ${errorMessage(e)}`);
  }
  return { uri: uri.toString(), line: at.line, character: at.character };
}
