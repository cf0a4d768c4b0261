/**
 * The MCP server: agents outside the editor reach the same evidence tools, with the
 * same names, schemas and texts, over the same storage and tenant as the editor, so a
 * handle minted on either side reads on the other. It is a separate layer (src/mcp):
 * it imports the core and never the editor (lint enforces it).
 *
 * The low-level `Server` of the SDK is used, not `McpServer`: the latter publishes only
 * schemas it generated from zod, and this server must publish package.json's schemas
 * byte for byte.
 *
 * stdout is the protocol: nothing else may ever be written there; the log is stderr.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LocalWorkspace, openEvidenceStores } from '../core/index.js';
import { extensionManifest, MCP_TOOL_NAMES } from './manifest.js';
import { parseCommandLine, resolveSettings, USAGE, type EvidenceMcpOptions, type McpSettings } from './options.js';
import { openStorage, type McpStorage } from './storage.js';
import { annotationsOf, EvidenceTools } from './tools.js';

export type { EvidenceMcpOptions, McpSettings } from './options.js';

/** How long `close` waits for aborted calls to record their end before giving up. */
const CLOSE_GRACE_MS = 5_000;

/** A server over one workspace's storage, ready to `connect` to a transport. */
export interface EvidenceMcpServer {
  /** The SDK server: `await server.connect(transport)`. */
  readonly server: Server;
  /** Where the evidence is and whose it is. */
  readonly storage: McpStorage;
  /** The limits in force (the editor's defaults unless overridden). */
  readonly settings: McpSettings;
  /** Closes the connection, which aborts calls in flight (killing their commands), and waits for their runs to be finished. */
  close(): Promise<void>;
}

/** Writes one line to stderr (the only log a stdio server has). */
function stderrLog(line: string): void {
  process.stderr.write(`[bounded-evidence mcp] ${line}\n`);
}

/** Opens the storage, the stores and the folder, and builds the server; throws a sentence when it cannot. */
export async function createEvidenceMcpServer(options: EvidenceMcpOptions & { readonly log?: (line: string) => void }): Promise<EvidenceMcpServer> {
  const log = options.log ?? stderrLog;
  const manifest = extensionManifest();
  const settings = resolveSettings(manifest, options.settings);
  const storage = await openStorage(options.storageDir, { tenant: options.tenant, global: options.global });
  const local = await LocalWorkspace.open({ root: options.workspaceFolder, denyPatterns: options.denyPatterns });
  // The core's one way of opening stores; large outputs go to the filesystem blob store under the storage folder.
  const { runs, artifacts } = await openEvidenceStores(storage, { ...settings, backend: 'filesystem' }, {
    tools: MCP_TOOL_NAMES,
    // A byte window is refused past maxRangeBytes with docs/contracts.md §1.3's sentence, as in the editor.
    reader: { maxByteWindow: settings.maxRangeBytes, searchTimeoutMs: settings.searchTimeoutMs },
    warn: (message) => log(message),
  });
  const tools = new EvidenceTools({ runs, artifacts, local, settings, log });
  const progressIntervalMs = options.progressIntervalMs ?? 5_000;

  const server = new Server({ name: 'bounded-evidence', title: 'Bounded Evidence', version: manifest.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: manifest.tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: annotationsOf(t.name) })),
  }));
  const inFlight = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    if (!tools.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 80)}`);
    const token = extra._meta?.progressToken;
    let beats = 0;
    // A command may run for minutes: progress lets a client that resets its timeout on progress wait for it.
    const heartbeat = token === undefined ? undefined : setInterval(() => {
      beats++;
      extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: beats, message: `${name} still running` } }).catch(() => undefined);
    }, progressIntervalMs);
    const call = tools.call(name, request.params.arguments ?? {}, extra.signal);
    inFlight.add(call);
    try {
      const { text, isError } = await call;
      return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
    } finally {
      inFlight.delete(call);
      if (heartbeat) clearInterval(heartbeat);
    }
  });

  return {
    server, storage, settings,
    async close() {
      await server.close();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => { timer = setTimeout(resolve, CLOSE_GRACE_MS); });
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      clearTimeout(timer);
    },
  };
}

/**
 * The command-line entry (dist/mcp.js): parses the flags, serves over stdio until the
 * client disconnects (stdin ends) or a signal arrives, and returns the exit code.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv, process.cwd());
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let mcp: EvidenceMcpServer;
  try {
    mcp = await createEvidenceMcpServer(parsed.options);
  } catch (e) {
    stderrLog(`cannot start: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const closed = new Promise<void>((resolve) => { mcp.server.onclose = resolve; });
  // The SDK reports protocol faults only to onerror and closes silently on an oversized
  // line: say why on stderr, and make that end a failure (docs/contracts.md §4).
  let fatal = false;
  mcp.server.onerror = (e) => {
    const message = oneLine(e instanceof Error ? e.message : String(e));
    if (/ReadBuffer exceeded/.test(message)) {
      fatal = true;
      stderrLog(`closing: a request line exceeded the ${STDIO_DEFAULT_MAX_BUFFER_SIZE}-byte stdio limit (${message})`);
    } else {
      stderrLog(`protocol error: ${message}`);
    }
  };
  const transport = new StdioServerTransport();
  await mcp.server.connect(transport);
  guardToolArguments(transport);
  stderrLog(`serving ${MCP_TOOL_NAMES.join(', ')}; tenant ${mcp.storage.tenant} (${mcp.storage.tenantSource}), evidence in ${mcp.storage.root}`);
  let closing: Promise<void> | undefined;
  const shutdown = (): void => { closing ??= mcp.close(); };
  process.stdin.once('end', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await closed;
  shutdown();
  await closing;
  return fatal ? 1 : 0;
}

/** A message on one line, at most 300 characters (stderr is a line log). */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/**
 * Answers a `tools/call` whose `arguments` is present but not an object with JSON-RPC
 * invalid params and one line, before the SDK's schema check turns it into an internal
 * error carrying a multi-line validation dump (docs/contracts.md §4). Call after
 * `connect`, which installs the handler wrapped here.
 */
export function guardToolArguments(transport: Transport): void {
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { id?: unknown; method?: unknown; params?: { arguments?: unknown } };
    const args = m.params?.arguments;
    if (m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number') && args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      void transport.send({ jsonrpc: '2.0', id: m.id, error: { code: ErrorCode.InvalidParams, message: 'arguments must be an object' } }).catch(() => undefined);
      return;
    }
    inner?.(message, extra);
  };
}
