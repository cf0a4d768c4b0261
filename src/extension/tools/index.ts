/** A unit test compares the names with package.json. */
import * as vscode from 'vscode';
import { toolsOffered } from '../../core/index.js';
import { EditorToolHooks } from './editorHooks.js';
import { EvidenceLanguageModelTool, type ToolDeps } from './evidenceTool.js';

export type { ToolDeps } from './evidenceTool.js';

export function registerTools(context: vscode.ExtensionContext, deps: ToolDeps): void {
  for (const tool of toolsOffered('lm')) {
    context.subscriptions.push(
      vscode.lm.registerTool(tool.name, new EvidenceLanguageModelTool(tool, deps, EditorToolHooks[tool.name])),
    );
  }
}
