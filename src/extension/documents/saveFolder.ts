/** Never the workspace: evidence is not written into a repository unasked (docs/contracts.md, "Export"). */
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

export async function rememberSaveFolder(state: vscode.Memento, target: vscode.Uri): Promise<void> {
  if (target.scheme === 'file') await state.update(lastFolderKey, path.dirname(target.fsPath));
}
