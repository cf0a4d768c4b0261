/**
 * Self-checking lines for append-only files that several processes write (the verified
 * marks, docs/contracts.md §1.1): each line
 * is `"\n" + payload + "\t" + crc32(payload) as 8 hex`, written by one `write` on an
 * O_APPEND descriptor. The leading newline ends a line a crashed writer left torn, so the
 * next line is always whole; the checksum makes a torn or altered line detectable. The
 * payload must not contain a newline; the last tab splits it from the checksum.
 */
import { crc32 } from 'node:zlib';

const NEWLINE = Buffer.from('\n');

/** One line as written: leading newline, payload, tab, checksum. */
export function frameLine(payload: Buffer): Buffer {
  return Buffer.concat([NEWLINE, payload, Buffer.from(`\t${hex8(crc32(payload))}`, 'latin1')]);
}

/** The payload of `buf[start, end)` (a line without its newline), or undefined when its checksum fails. */
export function unframeLine(buf: Buffer, start: number, end: number): Buffer | undefined {
  if (end - start < 10 || buf[end - 9] !== 9) return undefined;
  const payload = buf.subarray(start, end - 9);
  return hex8(crc32(payload)) === buf.toString('latin1', end - 8, end) ? payload : undefined;
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
