/**
 * Streamable HTTP, stateless on both revisions, so clients need no session (docs/contracts.md §4.2). Only this
 * machine may reach it, checked in order before anything else is read: 127.0.0.1 only; a loopback `Host` and
 * `Origin`, against DNS rebinding; a bearer token made at each start and written to a 0600 file, against other local
 * users.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, DEFAULT_MAX_REQUEST_BODY_SIZE, type Server } from '@modelcontextprotocol/server';
import { removeMcpHttpInfo, writeMcpHttpInfo } from '../core/index.js';
import { nestedDeeperThan, refuseNonObjectArguments, tooDeep } from './guard.js';

export interface EvidenceHttpServer {
  readonly url: string;
  /** 64 hex digits. */
  readonly token: string;
  readonly infoFile: string;
  /** Removes the info file only if it is still this start's. */
  close(): Promise<void>;
}

/** The shape the SDK's own HTTP refusals have. */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

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

/** Compared in constant time. */
function bearerMatches(header: string | undefined, token: Buffer): boolean {
  const m = /^bearer +([0-9a-f]{64})$/i.exec(header ?? '');
  if (!m) return false;
  return timingSafeEqual(Buffer.from(m[1]!, 'utf8'), token);
}

interface ServerSource {
  newServer(options?: { signal?: AbortSignal }): Server;
}

type RequestId = string | number;

/**
 * On 2025-11-25 a `notifications/cancelled` comes in its own POST, answered by a fresh SDK server that never saw the
 * call, so the cancellation is passed to the call here.
 */
class CallsInFlight {
  private readonly calls = new Map<string, AbortController>();

  private static key(req: IncomingMessage, id: RequestId): string {
    const session = req.headers['mcp-session-id'];
    return JSON.stringify([typeof session === 'string' ? session : '', id]);
  }

  start(req: IncomingMessage, res: ServerResponse, id: RequestId): AbortSignal {
    const key = CallsInFlight.key(req, id);
    const ac = new AbortController();
    this.calls.set(key, ac);
    res.once('close', () => {
      if (this.calls.get(key) === ac) this.calls.delete(key);
    });
    return ac.signal;
  }

  cancel(req: IncomingMessage, id: RequestId): void {
    this.calls.get(CallsInFlight.key(req, id))?.abort();
  }
}

function callIdOf(message: unknown, method: 'tools/call' | 'notifications/cancelled'): RequestId | undefined {
  const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } } | null;
  if (m?.method !== method) return undefined;
  const id = method === 'tools/call' ? m.id : m.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** 0: a free port. Rejects with a sentence when the port cannot be had. */
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
      // Before the SDK's checks, which recurse: a deeply nested body overflowed the stack.
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
  // Its reader and writer are one module: src/core/storageLayout.ts.
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
