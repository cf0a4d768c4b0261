/**
 * Where Export Output… and Save Excerpt As… offer to save: the folder last saved into, else Downloads, else home,
 * never the workspace, so evidence is not written into a repository unasked (docs/contracts.md, "Export").
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

const lastFolderKey = 'boundedEvidence.lastSaveFolder';

function isFolder(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

export function defaultSaveUri(state: vscode.Memento, name: string): vscode.Uri {
  const last = state.get<string>(lastFolderKey);
  const downloads = path.join(os.homedir(), 'Downloads');
  const folder = last && isFolder(last) ? last : isFolder(downloads) ? downloads : os.homedir();
  return vscode.Uri.file(path.join(folder, name));
}

/** Kept in the editor's global state, not in any workspace file. */
export async function rememberSaveFolder(state: vscode.Memento, target: vscode.Uri): Promise<void> {
  if (target.scheme === 'file') await state.update(lastFolderKey, path.dirname(target.fsPath));
}
