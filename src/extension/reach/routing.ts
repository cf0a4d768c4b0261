/** What routing needs of the editor besides init's table (docs/architecture.md §2.4). */
import * as vscode from 'vscode';
import type { EvidenceSettings } from '../settings.js';

export type RoutingSettings = Pick<EvidenceSettings, 'recordOtherToolResults' | 'largeResultBytes'>;

/**
 * VS Code's file watcher misses a file in a folder it did not watch yet, but lists hooks again when `chat.useHooks`
 * changes (docs/architecture.md §5.1). The user's own value is put back exactly; a user who turned hooks off is left
 * alone.
 */
export async function relistHookFiles(): Promise<void> {
  const chat = vscode.workspace.getConfiguration('chat');
  const value = chat.inspect<boolean>('useHooks')?.globalValue;
  if (value === false) return;
  try {
    await chat.update('useHooks', false, vscode.ConfigurationTarget.Global);
  } finally {
    await chat.update('useHooks', value, vscode.ConfigurationTarget.Global);
  }
}
