/**
 * Where this workspace's evidence lives: the extension's workspace storage (`storageUri`),
 * or its global storage when no folder is open, never the user's folders. The layout and
 * the tenant derivation are the core's (`layoutAt`, `tenantFor`), shared with the MCP
 * server, which opens the same folder from outside.
 */
import type * as vscode from 'vscode';
import { layoutAt, type StorageLayout } from '../core/index.js';

/** The layout of this extension's storage for the open workspace (or the global one). */
export function storageLayout(context: Pick<vscode.ExtensionContext, 'storageUri' | 'globalStorageUri'>): StorageLayout {
  const uri = context.storageUri ?? context.globalStorageUri;
  return layoutAt(uri.fsPath, uri.toString(), context.storageUri === undefined);
}
