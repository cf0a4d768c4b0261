/**
 * The SDK skips a line that is not JSON without a word and only logs a non-JSON-RPC message, so the client would wait
 * forever; this screen answers those lines itself (docs/contracts.md §4, "Protocol edges").
 */
import { Transform, type TransformCallback } from 'node:stream';
import { nestedDeeperThan, tooDeep } from './guard.js';

interface ErrorAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

function screenLine(line: string): ErrorAnswer | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } };
  }
  if (Array.isArray(value))
    return invalid(null, 'a batch (a JSON array) is not accepted: send one JSON-RPC object per line');
  if (typeof value !== 'object' || value === null) return invalid(null, 'a message is a JSON-RPC object');
  const m = value as { jsonrpc?: unknown; id?: unknown };
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
  if (m.jsonrpc !== '2.0') return invalid(id, 'a message needs "jsonrpc": "2.0"');
  if (nestedDeeperThan(value)) return tooDeep(m.id);
  return undefined;
}

function invalid(id: string | number | null, why: string): ErrorAnswer {
  return { jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${why}` } };
}

/** A line over `maxLine` bytes is passed on unread, so the transport's own limit still ends the server. */
export function stdioScreen(
  answer: (line: string) => void,
  log: (message: string) => void,
  maxLine: number,
): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let raw = false;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
      let from = 0;
      for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
        const piece = chunk.subarray(from, nl + 1);
        from = nl + 1;
        if (raw) {
          raw = false;
          this.push(piece);
          continue;
        }
        const line = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingBytes = 0;
        const refusal = screenLine(line.toString('utf8').replace(/\r?\n$/, ''));
        if (refusal === undefined) this.push(line);
        else {
          log(
            `protocol error: ${refusal.error.message} (a line of ${line.length} bytes, answered ${refusal.error.code})`,
          );
          answer(`${JSON.stringify(refusal)}\n`);
        }
      }
      const rest = chunk.subarray(from);
      if (raw) this.push(rest);
      else if (rest.length > 0) {
        pending.push(rest);
        pendingBytes += rest.length;
        if (pendingBytes > maxLine) {
          raw = true;
          this.push(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
        }
      }
      done();
    },
    flush(done: TransformCallback): void {
      if (pendingBytes > 0) this.push(Buffer.concat(pending));
      done();
    },
  });
}
