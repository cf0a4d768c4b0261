/** Open Inspector belongs to the inspector. */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
import { openArtifact, verifyArtifact } from './artifactCommands.js';
import type { CommandDeps } from './deps.js';
import { importFile } from './importFile.js';
import { copyMcpConfigCommand } from './mcpConfig.js';
import { runCommandAndCapture } from './runCommandAndCapture.js';
import { saveExcerptAsCommand, saveExcerptCommand } from '../documents/saveExcerpt.js';
import { clearAllCommand, pruneCommand, setS3CredentialsCommand } from './storageCommands.js';

export type { CommandDeps } from './deps.js';

/** Logged, then rethrown: the workbench shows it, a programmatic caller sees it. */
function guarded<T>(
  deps: CommandDeps,
  title: string,
  fn: (deps: CommandDeps, arg?: unknown) => Promise<T>,
): (arg?: unknown) => Promise<T> {
  return async (arg?: unknown) => {
    try {
      return await fn(deps, arg);
    } catch (e) {
      if (e instanceof vscode.CancellationError) throw e;
      deps.log.error(`${title} failed`, e);
      throw e;
    }
  };
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const c = Ids.commands;
  const table: [string, string, (deps: CommandDeps, arg?: unknown) => Promise<unknown>][] = [
    [c.runCommandAndCapture, 'Run Command and Capture', runCommandAndCapture],
    [c.importFile, 'Import File as Evidence', importFile],
    [c.verifyArtifact, 'Verify Artifact', verifyArtifact],
    [c.openArtifact, 'Open Artifact in Editor', openArtifact],
    [c.pruneStorage, 'Prune Storage', pruneCommand],
    [c.clearAll, 'Clear All Evidence', clearAllCommand],
    [c.setS3Credentials, 'Set S3 Credentials', setS3CredentialsCommand],
    [c.copyMcpConfig, 'Copy MCP Server Configuration', copyMcpConfigCommand],
    [saveExcerptAsCommand, 'Save Excerpt As…', saveExcerptCommand],
  ];
  for (const [id, title, fn] of table)
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded(deps, title, fn)));
}
