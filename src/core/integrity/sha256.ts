/** The one sha256 helper for bytes held in memory; streams hash where they are read. */
import { createHash } from 'node:crypto';

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
