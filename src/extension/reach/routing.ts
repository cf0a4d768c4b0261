/**
 * What routing needs of the editor besides init's table (docs/architecture.md §2.4): the settings the hook
 * command follows, and telling VS Code to list the hook files again. Routing itself is init's
 * (`initAgents.ts` over src/core/reach/agents/): the palette's older routing commands are aliases of it.
 */
import * as vscode from 'vscode';
import type { EvidenceSettings } from '../settings.js';

/** What of the settings routing writes into the hooks: PostToolUse recording and its threshold. */
export type RoutingSettings = Pick<EvidenceSettings, 'recordOtherToolResults' | 'largeResultBytes'>;

/**
 * Makes VS Code list the hook files again now, so routing applies to the agent's very next
 * command (docs/architecture.md §5.1): VS Code finds them through a file watcher that misses a
 * file in a folder it did not watch yet (a new `.github/hooks/`), but lists them again when
 * `chat.useHooks` changes. The user's own value is put back exactly (set false, then back to
 * what it was, `undefined` removing the key again); a user who turned hooks off is left alone.
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
