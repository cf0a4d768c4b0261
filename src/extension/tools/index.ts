/** Registers the four evidence tools (names declared once in ids.ts and package.json). */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
import type { ToolDeps } from './callRun.js';
import { InvokeToolTool } from './invokeToolTool.js';
import { ReadFileTool } from './readFileTool.js';
import { ReadToolOutputTool } from './readToolOutputTool.js';
import { RunCommandTool } from './runCommandTool.js';

export type { ToolDeps } from './callRun.js';

/** Registers every evidence tool with `vscode.lm`. */
export function registerTools(context: vscode.ExtensionContext, deps: ToolDeps): void {
  context.subscriptions.push(
    vscode.lm.registerTool(Ids.tools.runCommand, new RunCommandTool(deps)),
    vscode.lm.registerTool(Ids.tools.readFile, new ReadFileTool(deps)),
    vscode.lm.registerTool(Ids.tools.readToolOutput, new ReadToolOutputTool(deps)),
    vscode.lm.registerTool(Ids.tools.invokeTool, new InvokeToolTool(deps)),
  );
}
