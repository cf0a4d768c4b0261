/**
 * The MCP server: the same tools, schemas and texts over the same storage and tenant as the editor, so a handle
 * minted on either side reads on the other. It never imports the editor (lint enforces it). stdout is the protocol;
 * the log is stderr.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type CallToolResult,
  type ListToolsResult,
  type Transport,
} from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { LocalWorkspace, openEvidenceStores, readThrough } from '../core/index.js';
import { openTeamStores } from './teams.js';
import { guardToolArguments } from './guard.js';
import { splitByEra } from './stdioEras.js';
import { stdioScreen } from './stdioScreen.js';
import { packageDeclarations, MCP_TOOL_NAMES } from '../node/packageJson.js';
import { parseCommandLine, USAGE, type EvidenceMcpOptions } from './options.js';
import { resolveSettings, type DeclaredSettings } from '../node/resolveSettings.js';
import { openStorage, type OpenedStorage } from '../node/openStorage.js';
import { annotationsOf, EvidenceTools } from './tools.js';

export type { EvidenceMcpOptions } from './options.js';

export const SERVER_INSTRUCTIONS =
  'evidence_runCommand and evidence_readFile keep the complete output of a ' +
  'command or file and answer with a bounded observation (previews, sizes, a ' +
  'handle per large output) instead of the whole text. ' +
  ('Never re-run a command to see more: pass its handle to read_tool_output ' +
    'for exact lines, bytes or regex matches, and use evidence_search to find a ' +
    'line in every output recorded so far.');

/**
 * Fixed for the process's life (they come from the bundled package.json); `private`, since a server answers one
 * person's agents.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 600_000, cacheScope: 'private' },
  'server/discover': { ttlMs: 600_000, cacheScope: 'private' },
} as const;

const CLOSE_GRACE_MS = 5_000;

/**
 * The stores are opened once; the SDK asks `newServer` per connection or request and decides the revision, so both
 * revisions run the same handlers.
 */
export interface EvidenceMcpServer {
  /** HTTP passes a cancellation the call's SDK server never sees through `signal`. */
  newServer(options?: { signal?: AbortSignal }): Server;
  serve(transport?: Transport, onerror?: (error: Error) => void): { handle: StdioServerHandle; closed: Promise<void> };
  readonly storage: OpenedStorage;
  readonly settings: DeclaredSettings;
  /** Aborts calls in flight (killing their commands) and waits for their runs to finish. */
  close(): Promise<void>;
}

/** The only log a stdio server has. */
function stderrLog(line: string): void {
  process.stderr.write(`[bounded-evidence mcp] ${line}\n`);
}

export async function createEvidenceMcpServer(
  options: EvidenceMcpOptions & { readonly log?: (line: string) => void },
): Promise<EvidenceMcpServer> {
  const log = options.log ?? stderrLog;
  const declarations = packageDeclarations();
  const settings = resolveSettings(declarations, options.settings);
  const storage = await openStorage(options.storageDir, { tenant: options.tenant, global: options.global });
  const local = await LocalWorkspace.open({ root: options.workspaceFolder, denyPatterns: options.denyPatterns });
  const { runs, artifacts } = await openEvidenceStores(
    storage,
    { ...settings, backend: 'filesystem' },
    {
      tools: MCP_TOOL_NAMES,
      // A byte window is refused past maxRangeBytes with docs/contracts.md §1.3's sentence, as in the editor.
      reader: { maxByteWindow: settings.maxRangeBytes, searchTimeoutMs: settings.searchTimeoutMs },
      warn: (message) => log(message),
    },
  );
  // docs/contracts.md §7.2.
  const teams = await openTeamStores(storage, settings, process.env, log);
  const tools = new EvidenceTools({
    runs,
    artifacts,
    local,
    settings,
    log,
    handles: readThrough(runs, teams),
    searchAlso: async () => (await Promise.all(teams.map((t) => t.searchable()))).flat(),
  });
  const progressIntervalMs = options.progressIntervalMs ?? 5_000;
  // The table's schemas are JSON values typed more loosely than the SDK's JSON type.
  const listed: ListToolsResult = {
    tools: declarations.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as unknown as ListToolsResult['tools'][number]['inputSchema'],
      annotations: annotationsOf(t.name),
    })),
  };
  const inFlight = new Set<Promise<unknown>>();
  const servers = new Set<Server>();
  const connections = new Set<StdioServerHandle>();

  // Not per request: HTTP serves each request with a new server.
  const clientsSeen = new Set<string>();
  const noteClient = (info: { name?: unknown; version?: unknown } | undefined, revision: unknown): void => {
    if (typeof info?.name !== 'string' || typeof revision !== 'string') return;
    const line =
      `client ${oneLine(info.name).slice(0, 80)} ` +
      `${typeof info.version === 'string' ? oneLine(info.version).slice(0, 40) : '?'} ` +
      `on protocol ${oneLine(revision).slice(0, 20)}`;
    if (clientsSeen.has(line)) return;
    clientsSeen.add(line);
    log(line);
  };
  const noteEnvelope = (envelope: Record<string, unknown> | undefined): void => {
    noteClient(
      envelope?.['io.modelcontextprotocol/clientInfo'] as { name?: unknown; version?: unknown } | undefined,
      envelope?.['io.modelcontextprotocol/protocolVersion'],
    );
  };

  const newServer = (options: { signal?: AbortSignal } = {}): Server => {
    // Not `McpServer`: it publishes only schemas generated from zod, and these must be package.json's byte for byte.
    const server = new Server(
      { name: 'bounded-evidence', title: 'Bounded Evidence', version: declarations.version },
      { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS, cacheHints: CACHE_HINTS },
    );
    // Over HTTP the initialized notification reaches a fresh server that did not see `initialize`.
    server.oninitialized = () => noteClient(server.getClientVersion(), server.getNegotiatedProtocolVersion());
    server.setRequestHandler('tools/list', (_request, ctx) => {
      noteEnvelope(ctx.mcpReq.envelope);
      return listed;
    });
    server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
      noteEnvelope(ctx.mcpReq.envelope);
      const { name } = request.params;
      // The client prefixes `MCP error -32602: ` itself.
      if (!tools.has(name))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 80)}`);
      const token = ctx.mcpReq._meta?.progressToken;
      let beats = 0;
      // Progress lets a client that resets its timeout on progress wait for a long command.
      const heartbeat =
        token === undefined
          ? undefined
          : setInterval(() => {
              beats++;
              ctx.mcpReq
                .notify({
                  method: 'notifications/progress',
                  params: { progressToken: token, progress: beats, message: `${name} still running` },
                })
                .catch(() => undefined);
            }, progressIntervalMs);
      const signal = options.signal ? AbortSignal.any([ctx.mcpReq.signal, options.signal]) : ctx.mcpReq.signal;
      const call = tools.call(name, request.params.arguments ?? {}, signal);
      inFlight.add(call);
      try {
        const { text, isError } = await call;
        // One text item, never structuredContent nor a resource_link (docs/contracts.md §4.1).
        return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
      } finally {
        inFlight.delete(call);
        if (heartbeat) clearInterval(heartbeat);
      }
    });
    servers.add(server);
    const previous = server.onclose;
    server.onclose = () => {
      servers.delete(server);
      previous?.();
    };
    return server;
  };

  return {
    newServer,
    storage,
    settings,
    serve(transport = new StdioServerTransport(), onerror) {
      let done!: () => void;
      const closed = new Promise<void>((resolve) => {
        done = resolve;
      });
      const wire = guardToolArguments(transport, () => {
        connections.delete(handle);
        done();
      });
      // Each message is served in the revision it asks for (./stdioEras.ts).
      const eras = splitByEra(wire);
      const both = [eras.modern, eras.legacy].map((t) =>
        serveStdio(() => newServer(), { transport: t, ...(onerror ? { onerror } : {}) }),
      );
      const handle: StdioServerHandle = {
        close: async () => {
          await Promise.allSettled(both.map((h) => h.close()));
        },
      };
      connections.add(handle);
      return { handle, closed };
    },
    async close() {
      await Promise.allSettled([...connections].map((c) => c.close()));
      await Promise.allSettled([...servers].map((s) => s.close()));
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      });
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      clearTimeout(timer);
      for (const t of teams) t.close();
    },
  };
}

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
  // The SDK reports protocol faults only to onerror and closes silently on an oversized line: say why, and fail
  // (docs/contracts.md §4).
  let fatal = false;
  const onerror = (e: Error): void => {
    const message = oneLine(e.message);
    if (/ReadBuffer exceeded/.test(message)) {
      fatal = true;
      stderrLog(`closing: a request line exceeded the ${STDIO_DEFAULT_MAX_BUFFER_SIZE}-byte stdio limit (${message})`);
    } else {
      stderrLog(`protocol error: ${message}`);
    }
  };
  const serving =
    `serving ${MCP_TOOL_NAMES.join(', ')}; tenant ${mcp.storage.tenant} ` +
    `(${mcp.storage.tenantSource}), evidence in ${mcp.storage.root}`;
  if (parsed.http) return await serveHttpUntilSignal(mcp, parsed.http.port, parsed.options.storageDir, serving);
  // Lines the SDK would drop or only log get their JSON-RPC answer first (./stdioScreen.ts).
  const screened = process.stdin.pipe(
    stdioScreen((line) => process.stdout.write(line), stderrLog, STDIO_DEFAULT_MAX_BUFFER_SIZE),
  );
  const { closed } = mcp.serve(new StdioServerTransport(screened, process.stdout), onerror);
  stderrLog(serving);
  let closing: Promise<void> | undefined;
  const shutdown = (): void => {
    closing ??= mcp.close();
  };
  process.stdin.once('end', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await closed;
  shutdown();
  await closing;
  return fatal ? 1 : 0;
}

/** The token is printed here, once. */
async function serveHttpUntilSignal(
  mcp: EvidenceMcpServer,
  port: number,
  storageDir: string,
  serving: string,
): Promise<number> {
  let http;
  try {
    // Loaded only here: the HTTP adapter (hono) is not evaluated by a stdio server.
    const { serveHttp } = await import('./http.js');
    http = await serveHttp(mcp, {
      port,
      storageDir,
      onerror: (e) => stderrLog(`protocol error: ${oneLine(e.message)}`),
    });
  } catch (e) {
    stderrLog(`cannot start: ${e instanceof Error ? e.message : String(e)}`);
    await mcp.close();
    return 1;
  }
  stderrLog(`${serving}; over Streamable HTTP at ${http.url}`);
  stderrLog(`bearer token (this start only, also in ${http.infoFile}): ${http.token}`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await http.close();
  await mcp.close();
  return 0;
}

/** stderr is a line log. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
