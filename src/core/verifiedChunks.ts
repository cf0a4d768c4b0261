/**
 * Verified-chunk cache (docs/contracts.md §1.1, §2.10): which chunks of one exact file
 * were already hashed and matched the manifest, so a repeated search skips re-hashing
 * them while the file is unchanged. The process that wrote a blob marks all its chunks at
 * write time (`rememberWritten`): its manifest was hashed from the bytes as they were
 * written, so even the first search in that process hashes nothing. The cache is this
 * process's memory only: another process hashes on its first search.
 *
 * "Unchanged" is the file identity git's index uses: device, inode, size, mtime and
 * ctime in nanoseconds. Any change of identity (or of manifest) is a miss. What it
 * trusts: a writer who changes bytes yet keeps size, mtime AND ctime is out of scope
 * (ctime cannot be set from user space without changing the clock as root); Verify
 * never consults this cache and still catches such a writer.
 *
 * Bounded memory: at most `MAX_FILES` entries (least recently used dropped), one bit per
 * 64 KiB chunk (a 1 GiB file costs 2 KiB).
 */
import { manifestDigest, type Manifest } from './integrity.js';

const MAX_FILES = 256;

/** Counters a test or bench reads: how many chunks were hashed vs skipped. */
export const verifiedChunkStats = { hashed: 0, skipped: 0 };

const entries = new Map<string, Uint8Array>();
const digests = new WeakMap<Manifest, string>();

function keyOf(identity: string, m: Manifest): string {
  let d = digests.get(m);
  if (d === undefined) { d = manifestDigest(m); digests.set(m, d); }
  return `${identity}|${d}`;
}

/** The bitset of verified chunks for this identity and manifest, or undefined. */
export function lookupVerified(identity: string, m: Manifest): Uint8Array | undefined {
  const key = keyOf(identity, m);
  const bits = entries.get(key);
  if (bits) { entries.delete(key); entries.set(key, bits); }
  return bits;
}

/** Records the chunks verified during one scan, under an identity that held before and after it. */
export function rememberVerified(identity: string, m: Manifest, bits: Uint8Array): void {
  const key = keyOf(identity, m);
  entries.delete(key);
  entries.set(key, bits);
  while (entries.size > MAX_FILES) entries.delete(entries.keys().next().value!);
}

/**
 * Records every chunk of a file this process has just written as verified: the manifest
 * was built from the very bytes written, and `identity` was taken from the written file
 * once in place, the way git's index records a file it checked out (docs/contracts.md §1.1).
 */
export function rememberWritten(identity: string, m: Manifest): void {
  const n = m.chunkDigests.length / 32;
  const bits = new Uint8Array(Math.ceil(n / 8));
  for (let i = 0; i < n; i++) setBit(bits, i);
  rememberVerified(identity, m, bits);
}

/** Forgets everything (tests). */
export function clearVerifiedChunks(): void {
  entries.clear();
  verifiedChunkStats.hashed = 0;
  verifiedChunkStats.skipped = 0;
}

export function isSet(bits: Uint8Array, i: number): boolean { return (bits[i >> 3]! & (1 << (i & 7))) !== 0; }
export function setBit(bits: Uint8Array, i: number): void { bits[i >> 3]! |= 1 << (i & 7); }
