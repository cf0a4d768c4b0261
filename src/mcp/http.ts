/**
 * The Streamable HTTP transport (`bounded-evidence mcp --http [PORT]`): the same tools and
 * texts as stdio, for clients that connect by URL and for several agents sharing one
 * server on one store. Stateless on both revisions (the SDK's `createMcpHandler` builds an
 * SDK server per request from `newServer`; the stores are shared), so clients need no
 * session and may come and go.
 *
 * Only this machine may reach it, in this order, before anything else is read:
 * 1. it listens on 127.0.0.1 only;
 * 2. `Host` must name the loopback and `Origin`, when present, a loopback origin (a web
 *    page that rebinds its own name to 127.0.0.1 sends its own name in both: 403);
 * 3. `Authorization: Bearer <token>`, a 32-byte random token made at each start, printed
 *    once on stderr and written with the URL to `<storage>/mcp-http.json` (mode 0600,
 *    removed on a clean exit) for `init` and the editor's Copy MCP Server Configuration
 *    (401 otherwise: another local user or process without the file cannot call a tool).
 * See docs/contracts.md §4.2.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, DEFAULT_MAX_REQUEST_BODY_SIZE, type Server } from '@modelcontextprotocol/server';
import { removeMcpHttpInfo, writeMcpHttpInfo } from '../core/index.js';
import { nestedDeeperThan, refuseNonObjectArguments, tooDeep } from './guard.js';

/** A running HTTP server. */
export interface EvidenceHttpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** The bearer token of this start (64 hex digits). */
  readonly token: string;
  /** Where the URL and token were written. */
  readonly infoFile: string;
  /** Stops listening, ends the requests in flight and removes the info file (if it is still this start's). */
  close(): Promise<void>;
}

/** A JSON-RPC error with no id, the shape the SDK's own HTTP refusals have. */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Reads a request body up to `limit` bytes; undefined past it. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Whether `header` is `Bearer <token>` (the scheme in any case, as HTTP's are), the token compared in constant time.
 */
function bearerMatches(header: string | undefined, token: Buffer): boolean {
  const m = /^bearer +([0-9a-f]{64})$/i.exec(header ?? '');
  if (!m) return false;
  return timingSafeEqual(Buffer.from(m[1]!, 'utf8'), token);
}

/**
 * What serving over HTTP needs of the evidence server (server.ts): a fresh SDK server per request, whose tool calls
 * also end when `signal` aborts.
 */
interface ServerSource {
  newServer(options?: { signal?: AbortSignal }): Server;
}

type RequestId = string | number;

/**
 * The tool calls in flight, by `Mcp-Session-Id` (none, served statelessly) and request id: on 2025-11-25 a
 * `notifications/cancelled` comes in its own POST, answered 202 by a fresh SDK server that never saw the call, so
 * the cancellation is passed to the call here.
 */
class CallsInFlight {
  private readonly calls = new Map<string, AbortController>();

  private static key(req: IncomingMessage, id: RequestId): string {
    const session = req.headers['mcp-session-id'];
    return JSON.stringify([typeof session === 'string' ? session : '', id]);
  }

  /** A call starting: its signal, until the response to it is closed. */
  start(req: IncomingMessage, res: ServerResponse, id: RequestId): AbortSignal {
    const key = CallsInFlight.key(req, id);
    const ac = new AbortController();
    this.calls.set(key, ac);
    res.once('close', () => {
      if (this.calls.get(key) === ac) this.calls.delete(key);
    });
    return ac.signal;
  }

  /** A cancellation of request `id`: its call (if any is in flight) is aborted. */
  cancel(req: IncomingMessage, id: RequestId): void {
    this.calls.get(CallsInFlight.key(req, id))?.abort();
  }
}

/** The request id a `tools/call` request or a `notifications/cancelled` names, else undefined. */
function callIdOf(message: unknown, method: 'tools/call' | 'notifications/cancelled'): RequestId | undefined {
  const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } } | null;
  if (m?.method !== method) return undefined;
  const id = method === 'tools/call' ? m.id : m.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * Serves `mcp` over HTTP on 127.0.0.1:`port` (0: a free port) and writes the info file into
 * `storageDir`; rejects with a sentence when the port cannot be had.
 */
export async function serveHttp(
  mcp: ServerSource,
  options: { readonly port: number; readonly storageDir: string; readonly onerror?: (error: Error) => void },
): Promise<EvidenceHttpServer> {
  const token = randomBytes(32).toString('hex');
  const tokenBytes = Buffer.from(token, 'utf8');
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  const onerror = options.onerror ?? (() => undefined);
  const calls = new CallsInFlight();
  // The signal of the call a request carries, for the SDK server the handler makes for that request.
  const callSignal = new AsyncLocalStorage<AbortSignal>();
  const handler = createMcpHandler(
    () => {
      const signal = callSignal.getStore();
      return mcp.newServer(signal ? { signal } : {});
    },
    { onerror },
  );
  const node = toNodeHandler(handler, { onerror });

  const server: HttpServer = createServer((req, res) => {
    void (async () => {
      // DNS rebinding first: nothing of a request from a foreign page is looked at further.
      if (!validHost(req, res) || !validOrigin(req, res)) return;
      if (!bearerMatches(req.headers.authorization, tokenBytes)) {
        refuse(
          res,
          401,
          'Unauthorized: send the bearer token of this server start (printed at its ' +
            'start, and in mcp-http.json in its storage folder)',
          { 'WWW-Authenticate': 'Bearer' },
        );
        return;
      }
      if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
        refuse(res, 404, 'Not found: the MCP endpoint is /mcp');
        return;
      }
      if (req.method !== 'POST') {
        await node(req, res);
        return;
      }
      const body = await readBody(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
      if (body === undefined) {
        refuse(res, 413, `Payload too large: a request body may have at most ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`, {
          Connection: 'close',
        });
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32700, message: 'Parse error: the body is not JSON' },
            id: null,
          }),
        );
        return;
      }
      // Before the SDK's checks, which recurse: a body nested far deeper than any request overflowed the stack (500).
      if (nestedDeeperThan(parsed)) {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(tooDeep((parsed as { id?: unknown }).id)));
        return;
      }
      // As on stdio: non-object `arguments` get one line, not the SDK's validation dump.
      const refusal = refuseNonObjectArguments(parsed);
      if (refusal) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(refusal));
        return;
      }
      const cancelled = callIdOf(parsed, 'notifications/cancelled');
      if (cancelled !== undefined) calls.cancel(req, cancelled);
      const call = callIdOf(parsed, 'tools/call');
      if (call === undefined) await node(req, res, parsed);
      else await callSignal.run(calls.start(req, res, call), () => node(req, res, parsed));
    })().catch((e: unknown) => {
      onerror(e instanceof Error ? e : new Error(String(e)));
      if (!res.headersSent) refuse(res, 500, 'Internal server error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          e.code === 'EADDRINUSE'
            ? `port ${options.port} on 127.0.0.1 is in use`
            : `cannot listen on 127.0.0.1:${options.port}: ${e.message}`,
        ),
      ),
    );
    server.listen(options.port, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/mcp`;
  // Its reader (Copy MCP Server Configuration) and its writer are one module: src/core/storageLayout.ts.
  const infoFile = await writeMcpHttpInfo(options.storageDir, { url, token, pid: process.pid });

  let closing: Promise<void> | undefined;
  return {
    url,
    token,
    infoFile,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await handler.close();
        await stopped;
        await removeMcpHttpInfo(options.storageDir, token);
      })()),
  };
}
