/**
 * The one sha256 helper of the core for bytes or text held in memory (identities,
 * manifest digests, tenants, profile hashes). Streams hash incrementally where they are
 * read (integrity.ts); nothing else in src computes a digest its own way.
 */
import { createHash } from 'node:crypto';

/** Lowercase hex sha256 of `data` (text is hashed as its UTF-8 bytes). */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
