/**
 * Entry point. `activate` only wires features together; each feature registers
 * itself through a `registerX(context, deps)` function.
 */
import * as vscode from 'vscode';
import { registerInspector } from './inspector/inspectorPanel.js';

/** Wires the extension's features. */
export function activate(context: vscode.ExtensionContext): void {
  registerInspector(context);
}

/** Nothing to do: every registration lives in `context.subscriptions`. */
export function deactivate(): void {}
