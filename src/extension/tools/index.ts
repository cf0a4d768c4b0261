/**
 * Registers every tool the table offers to the editor (names in the core's table and package.json; a unit test compares
 * them).
 */
import * as vscode from 'vscode';
import { toolsOffered } from '../../core/index.js';
import { EditorToolHooks } from './editorHooks.js';
import { EvidenceLanguageModelTool, type ToolDeps } from './evidenceTool.js';

export type { ToolDeps } from './evidenceTool.js';

/** Registers every evidence tool with `vscode.lm`. */
export function registerTools(context: vscode.ExtensionContext, deps: ToolDeps): void {
  for (const tool of toolsOffered('lm')) {
    context.subscriptions.push(
      vscode.lm.registerTool(tool.name, new EvidenceLanguageModelTool(tool, deps, EditorToolHooks[tool.name])),
    );
  }
}
