/** No module-level state: the store is recreated when settings change. */
import type * as vscode from 'vscode';
import type { RunStoreApi } from '../../core/index.js';

export interface InspectorDeps {
  /** Called on every request, so a store recreated after a settings change is picked up. */
  runs(): RunStoreApi | undefined | Promise<RunStoreApi | undefined>;
  log: vscode.LogOutputChannel;
  onDidChangeStore?: vscode.Event<void>;
  /** In this process or another. */
  onDidStore?: vscode.Event<void>;
}
