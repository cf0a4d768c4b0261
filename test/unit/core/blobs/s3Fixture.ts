/**
 * A real local S3-compatible server for the tests: s3rver on 127.0.0.1 and a free port,
 * in a temporary directory, plus an optional loopback proxy in front of it that counts
 * the bytes the server sent and can answer 500 on demand (fault tests).
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
// The SDK warns once per process that Node 20 support ends in 2027: noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const S3rver = createRequire(__filename)('s3rver') as S3rverClass;

/** A running s3rver with one bucket. */
export interface S3Server {
  readonly endpoint: string;
  readonly bucket: string;
  close(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1:<free port> with bucket `bucket`. */
export async function startS3Server(bucket = 'evidence'): Promise<S3Server> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const admin = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  admin.destroy();
  return {
    endpoint,
    bucket,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A loopback proxy in front of a server: counts response bytes, fails on demand. */
export interface FaultProxy {
  readonly endpoint: string;
  /** Response bytes (status line excluded, headers + body) sent to clients so far. */
  responseBytes: number;
  /** Response body bytes only. */
  bodyBytes: number;
  /** Requests seen. */
  requests: number;
  /** When set, requests whose method matches answer HTTP 500 (after `afterRequests` more pass). */
  failWith500(method?: string, afterRequests?: number): void;
  /** Back to forwarding every request. */
  heal(): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1:<free port> forwarding to `target` (an http://host:port). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const t = new URL(target);
  let failing: { method?: string; after: number } | undefined;
  const state = {
    endpoint: '',
    responseBytes: 0,
    bodyBytes: 0,
    requests: 0,
    failWith500(method?: string, afterRequests = 0) {
      failing = { method, after: afterRequests };
    },
    heal() {
      failing = undefined;
    },
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    state.requests++;
    if (failing && (!failing.method || failing.method === req.method)) {
      if (failing.after > 0) failing.after--;
      else {
        req.resume();
        const body =
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>';
        res.writeHead(500, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
    }
    const upstream = http.request(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        const headerBytes = Object.entries(up.headers).reduce((n, [k, v]) => n + k.length + 4 + String(v).length, 0);
        state.responseBytes += headerBytes;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.on('data', (d: Buffer) => {
          state.responseBytes += d.length;
          state.bodyBytes += d.length;
        });
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/**
 * An http://127.0.0.1:<port> where nothing listens (a server that is down). The port lies below the ephemeral range:
 * a just-closed ephemeral port can be handed to another test's server, or a connect to it from loopback can pick it
 * as its own source port and connect to itself.
 */
export async function closedEndpoint(): Promise<string> {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const below = Math.min(low ?? 32768, 65536) - 1024;
  for (let tries = 0; below > 0 && tries < 50; tries++) {
    const port = 1024 + Math.floor(Math.random() * below);
    const server = http.createServer();
    // Listening there proves nothing else does; closed, no port-0 server or connect can take it.
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!free) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return `http://127.0.0.1:${port}`;
  }
  throw new Error('no free port below the ephemeral range for a closed endpoint');
}
