/**
 * The MCP server as VS Code sees it (docs/architecture.md §2.4): `contributes.mcpServerDefinitionProviders` declares the provider and
 * `vscode.lm.registerMcpServerDefinitionProvider` (stable API since 1.101) serves one
 * definition: `cli mcp` on this workspace's storage, folder and tenant, started with the
 * editor's own Node, so every MCP-speaking harness in the editor finds the evidence tools.
 */
import * as vscode from 'vscode';
import type { EvidenceServices } from '../services.js';
import type { CliEnvironment } from './terminalEnvironment.js';

/** The provider id (package.json `contributes.mcpServerDefinitionProviders[].id`). */
export const MCP_PROVIDER_ID = 'bounded-evidence.mcp';

/** The server definition for these services. */
export function mcpDefinition(env: CliEnvironment, services: Pick<EvidenceServices, 'layout' | 'folder'>, version: string): vscode.McpStdioServerDefinition {
  const args = [env.cliScript, 'mcp', '--storage', env.storage, ...(services.folder ? ['--workspace', services.folder] : []), '--tenant', services.layout.tenant];
  const def = new vscode.McpStdioServerDefinition('Bounded Evidence', process.execPath, args, env.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}, version);
  if (services.folder) def.cwd = vscode.Uri.file(services.folder);
  return def;
}

/** Registers the provider; the definition follows the services (a settings change reopens them). */
export function registerMcpProvider(
  context: vscode.ExtensionContext,
  env: Promise<CliEnvironment>,
  services: () => Promise<EvidenceServices>,
  onDidChangeServices: vscode.Event<unknown>,
): void {
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(changed, onDidChangeServices(() => changed.fire()));
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');
  context.subscriptions.push(vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: async () => [mcpDefinition(await env, await services(), version)],
  }));
}
