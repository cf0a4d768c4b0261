/**
 * Where this workspace's evidence lives: the extension's workspace storage (`storageUri`),
 * or its global storage when no folder is open, never the user's folders. The layout and
 * the tenant derivation are the core's (`layoutAt`, `tenantFor`), shared with the MCP
 * server, which opens the same folder from outside. A window VS Code gave a `-<n>` storage
 * folder because another window holds the workspace's lock uses the shared one
 * (`sharedWorkspaceStorage`, docs/contracts.md §2.6).
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { layoutAt, sharedWorkspaceStorage, type StorageLayout } from '../core/index.js';

/** The layout of this extension's storage for the open workspace (or the global one). */
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
