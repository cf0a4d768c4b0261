/** Export Output…: a whole output streamed through verified reads to a file, its provenance beside it. */
import * as vscode from 'vscode';
import type { RunStoreApi } from '../../core/index.js';
import { formatBytes } from '../../shared/bytes.js';
import { writeWindow, type WrittenWindow } from '../documents/saveExcerpt.js';
import { defaultSaveUri, rememberSaveFolder } from '../documents/saveFolder.js';
import { paletteHandle } from './artifactCommands.js';
import type { CommandDeps } from './deps.js';

export type ExportResult = WrittenWindow;

/** The writer Save Excerpt As… shares. */
async function exportOutput(store: RunStoreApi, handle: string, target: string): Promise<ExportResult> {
  const src = await store.openHandle(handle);
  return await writeWindow(src, 0, src.byteCount, target, {
    handle: src.handle,
    name: src.name,
    exportedBy: 'Bounded Evidence (Export Output)',
  });
}

/** No argument (the palette): the output open in the editor, else one picked among recent calls. */
export async function exportOutputCommand(
  deps: CommandDeps,
  arg?: { handle?: unknown; path?: unknown },
): Promise<ExportResult | undefined> {
  const handle =
    typeof arg?.handle === 'string'
      ? arg.handle
      : arg === undefined
        ? await paletteHandle(deps, 'Bounded Evidence: Export Output…')
        : undefined;
  if (!handle) return undefined;
  const store = (await deps.host.get().catch(() => undefined))?.reads;
  if (!store) return undefined;
  let target = typeof arg?.path === 'string' ? arg.path : undefined;
  if (!target) {
    const uri = await vscode.window.showSaveDialog({
      title: `Export ${handle}`,
      saveLabel: 'Export',
      defaultUri: defaultSaveUri(deps.globalState, `${handle}.txt`),
    });
    if (!uri) return undefined;
    await rememberSaveFolder(deps.globalState, uri);
    target = uri.fsPath;
  }
  const where = target;
  try {
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Exporting ${handle}` },
      () => exportOutput(store, handle, where),
    );
    void vscode.window.showInformationMessage(
      `Bounded Evidence: exported ${formatBytes(r.byteCount)} ` +
        `(sha256 ${r.sha256.slice(0, 12)}…) with its provenance beside it.`,
    );
    return r;
  } catch (e) {
    deps.log.error(`export ${handle}`, e);
    void vscode.window.showErrorMessage(
      `Bounded Evidence: the export failed: ${e instanceof Error ? e.message : String(e)}`,
    );
    return undefined;
  }
}
