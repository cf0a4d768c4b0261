/**
 * Never the user's folders; the layout and tenant are the core's, shared with the MCP server. A window VS Code gave a
 * `-<n>` folder uses the shared one (docs/contracts.md §2.6).
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { layoutAt, sharedWorkspaceStorage, type StorageLayout } from '../core/index.js';

export function storageLayout(
  context: Pick<vscode.ExtensionContext, 'storageUri' | 'globalStorageUri'>,
): StorageLayout {
  if (context.storageUri === undefined)
    return layoutAt(context.globalStorageUri.fsPath, context.globalStorageUri.toString(), true);
  const uri = context.storageUri;
  if (uri.scheme !== 'file') return layoutAt(uri.fsPath, uri.toString(), false);
  const shared = sharedWorkspaceStorage(uri.fsPath, existsSync);
  const sharedUri = shared === uri.fsPath ? uri : vscode.Uri.file(shared);
  return layoutAt(sharedUri.fsPath, sharedUri.toString(), false);
}
