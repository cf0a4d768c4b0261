/**
 * Self-checking lines for append-only files several processes write (docs/contracts.md §1.1): the leading newline
 * ends a line a crashed writer left torn, and the crc32 catches a torn or altered one.
 */
import { crc32 } from 'node:zlib';

const NEWLINE = Buffer.from('\n');

export function frameLine(payload: Buffer): Buffer {
  return Buffer.concat([NEWLINE, payload, Buffer.from(`\t${hex8(crc32(payload))}`, 'latin1')]);
}

/** Undefined when its checksum fails. */
export function unframeLine(buf: Buffer, start: number, end: number): Buffer | undefined {
  if (end - start < 10 || buf[end - 9] !== 9) return undefined;
  const payload = buf.subarray(start, end - 9);
  return hex8(crc32(payload)) === buf.toString('latin1', end - 8, end) ? payload : undefined;
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
