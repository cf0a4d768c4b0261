/**
 * What the inspector needs from the rest of the extension, passed to `registerInspector`
 * by `activate` (no module-level state: the store is recreated when settings change).
 */
import type * as vscode from 'vscode';
import type { RunStoreApi } from '../../core/index.js';

/** Dependencies of the Evidence Inspector. */
export interface InspectorDeps {
  /**
   * The current run store of this workspace (tenant), or undefined while it is being
   * opened or could not be opened. Called on every request, so a store recreated after
   * a settings change is picked up without re-registering.
   */
  runs(): RunStoreApi | undefined | Promise<RunStoreApi | undefined>;
  /** The extension's one log channel. */
  log: vscode.LogOutputChannel;
  /** Fires after `runs()` starts returning a different store (settings changed, storage cleared). */
  onDidChangeStore?: vscode.Event<void>;
  /** Fires when what is stored changed, in this process or another (the status bar's watch of the store). */
  onDidStore?: vscode.Event<void>;
}
