/**
 * Copy MCP Server Configuration: puts on the clipboard an `mcpServers` entry that runs
 * the bundled server (dist/mcp.js) over this workspace's storage folder, folder and
 * tenant, so an agent outside the editor reads and adds to the same evidence (a handle
 * minted on either side reads on the other). The tenant is passed explicitly: the
 * server then never has to guess it. No server definition is registered with VS Code
 * itself: inside the editor the same tools already exist as language model tools.
 * When `mcp --http` is running on this storage (its `mcp-http.json`, docs/contracts.md
 * §4.2), a second entry reaches it by URL with that start's bearer token.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runningMcpHttpServer } from '../../core/index.js';
import type { EvidenceServices } from '../services.js';
import type { CommandDeps } from './deps.js';

/** The server's key in the `mcpServers` object. */
const MCP_SERVER_KEY = 'bounded-evidence';

/** The `mcpServers` entry for these services, started from an extension installed at `extensionPath`. */
function mcpServerConfig(
  extensionPath: string,
  services: Pick<EvidenceServices, 'layout' | 'folder'>,
): { mcpServers: Record<string, { command: string; args: string[] }> } {
  // layout.root is `<storage>/evidence`; the server takes the storage folder itself.
  const args = [path.join(extensionPath, 'dist', 'mcp.js'), '--storage', path.dirname(services.layout.root)];
  if (services.folder) args.push('--workspace', services.folder);
  args.push('--tenant', services.layout.tenant);
  return { mcpServers: { [MCP_SERVER_KEY]: { command: 'node', args } } };
}

/** The key of the entry for a running HTTP server. */
const MCP_HTTP_SERVER_KEY = 'bounded-evidence-http';

/** Copies the configuration (pretty JSON) and says so; returns the text copied. */
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
