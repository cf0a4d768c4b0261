/**
 * The part every scripted model server here shares: an HTTP server on 127.0.0.1 (port chosen by the system) that
 * collects each request's body and hands it, with the method and path, to the server's own answer function.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer: status, content type and body. */
export interface LoopbackAnswer {
  status: number;
  type: string;
  body: string;
}

export interface Loopback {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  close(): Promise<void>;
}

/** A JSON answer. */
export const json = (status: number, value: unknown): LoopbackAnswer => ({
  status,
  type: 'application/json',
  body: JSON.stringify(value),
});

/** Starts the server; `answer` gets the method, the path and the raw body (a thrown error answers 400 with its text). */
export async function startLoopback(
  answer: (method: string, path: string, body: Buffer) => LoopbackAnswer,
): Promise<Loopback> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      let a: LoopbackAnswer;
      try {
        a = answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://127.0.0.1').pathname, Buffer.concat(chunks));
      } catch (e) {
        a = json(400, { error: { message: String(e) } });
      }
      res.writeHead(a.status, { 'content-type': a.type, 'cache-control': 'no-cache' });
      res.end(a.body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
