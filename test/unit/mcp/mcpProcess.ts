/** A real MCP server process (node --import tsx src/mcp/main.ts) driven by raw JSON-RPC lines, for the process-level tests. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..', '..');

/** Starts the server and sends raw JSON-RPC lines; returns the process and a reader of its replies. */
export function startServer(
  storageDir: string,
  ws: string,
  extra: readonly string[] = [],
): {
  proc: ChildProcessWithoutNullStreams;
  send: (msg: unknown) => void;
  reply: (id: number) => Promise<Record<string, unknown>>;
  stderr: () => string;
  /** Replies with `id: null` (answers to lines that named no usable id), in order. */
  nullReplies: () => Record<string, unknown>[];
} {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO, 'src', 'mcp', 'main.ts'), '--storage', storageDir, '--workspace', ws, ...extra],
    { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  const got = new Map<number, Record<string, unknown>>();
  const nulls: Record<string, unknown>[] = [];
  proc.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      const m = JSON.parse(line) as Record<string, unknown>;
      if (m.id === null) nulls.push(m);
      if (typeof m.id === 'number') {
        got.set(m.id, m);
        waiting.get(m.id)?.(m);
      }
    }
  });
  proc.stderr.on('data', (b: Buffer) => {
    err += b.toString();
  });
  return {
    proc,
    send: (msg) => proc.stdin.write(`${JSON.stringify(msg)}\n`),
    reply: (id) =>
      new Promise((resolve) => {
        const m = got.get(id);
        if (m) resolve(m);
        else waiting.set(id, resolve);
      }),
    stderr: () => err,
    nullReplies: () => nulls,
  };
}

/** The MCP handshake. */
export async function handshake(s: ReturnType<typeof startServer>): Promise<void> {
  s.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'kill-test', version: '1' } },
  });
  await s.reply(0);
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}
