/**
 * An `mcpServers` entry over this workspace's storage, so an agent outside the editor shares the same evidence. The
 * tenant is passed explicitly so the server never guesses it. A running `mcp --http` gets a second entry by URL
 * (docs/contracts.md §4.2).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runningMcpHttpServer } from '../../core/index.js';
import type { EvidenceServices } from '../services.js';
import type { CommandDeps } from './deps.js';

const MCP_SERVER_KEY = 'bounded-evidence';

function mcpServerConfig(
  extensionPath: string,
  services: Pick<EvidenceServices, 'layout' | 'folder'>,
): { mcpServers: Record<string, { command: string; args: string[] }> } {
  // The server takes the storage folder itself.
  const args = [path.join(extensionPath, 'dist', 'mcp.js'), '--storage', path.dirname(services.layout.root)];
  if (services.folder) args.push('--workspace', services.folder);
  args.push('--tenant', services.layout.tenant);
  return { mcpServers: { [MCP_SERVER_KEY]: { command: 'node', args } } };
}

const MCP_HTTP_SERVER_KEY = 'bounded-evidence-http';

export async function copyMcpConfigCommand(deps: CommandDeps): Promise<string> {
  const services = await deps.host.get();
  const config: { mcpServers: Record<string, unknown> } = mcpServerConfig(deps.extensionPath, services);
  const http = await runningMcpHttpServer(path.dirname(services.layout.root));
  if (http)
    config.mcpServers[MCP_HTTP_SERVER_KEY] = {
      type: 'http',
      url: http.url,
      headers: { Authorization: `Bearer ${http.token}` },
    };
  const text = JSON.stringify(config, null, 2);
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage(
    'Bounded Evidence: MCP server configuration copied. Add it to your MCP ' +
      'client\'s "mcpServers" (Node.js 20 or later must be on its PATH).',
  );
  return text;
}
