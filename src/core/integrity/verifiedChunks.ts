/**
 * Verified-chunk cache (docs/contracts.md §1.1, §2.10): which chunks of one exact file
 * were already hashed and matched the manifest, so a repeated search skips re-hashing
 * them while the file is unchanged. The process that wrote a blob marks all its chunks at
 * write time (`rememberWritten`): its manifest was hashed from the bytes as they were
 * written, so even the first search in that process hashes nothing. A file whose every
 * chunk is verified is also marked on disk (`VerifiedMarks`, verifiedMarks.ts), so the
 * first search in another process finds the mark and hashes nothing either.
 *
 * "Unchanged" is the file identity git's index uses: device, inode, size, mtime and
 * ctime in nanoseconds. Any change of identity (or of manifest) is a miss. What it
 * trusts: a writer who changes bytes yet keeps size, mtime AND ctime is out of scope
 * (ctime cannot be set from user space without changing the clock as root); Verify
 * never consults this cache and still catches such a writer.
 *
 * Bounded memory: at most `MAX_FILES` entries and `MAX_BITS_BYTES` of bits (least recently
 * used dropped first), one bit per 64 KiB chunk while only some chunks are verified; a file
 * verified whole is held as its chunk count, so a large capture costs no bits at all.
 */
import { manifestDigest, type Manifest } from './manifest.js';
import type { VerifiedMarks } from './verifiedMarks.js';
import { Lru } from '../lru.js';

const MAX_FILES = 256;
/** Bytes of partial bitsets held at most (whole files cost none). */
const MAX_BITS_BYTES = 2 * 1024 * 1024;
/**
 * Files of fewer chunks are never marked on disk nor looked up there: hashing under 1 MiB
 * costs less than the marks file's I/O, and `evidence_search` over thousands of small
 * outputs would otherwise push the large ones' marks out of the bounded file.
 */
const MIN_MARKED_CHUNKS = 16;
/**
 * A search marks a file on disk only when its last change (ctime) is at least this old:
 * a change within the file system's timestamp tick of that one would leave the identity
 * unchanged (git's "racy" entries; docs/contracts.md §1.1). The writer's own mark is the
 * accepted race stated there.
 */
const RACY_MS = 1_000;

/** Counters a test or bench reads: how many chunks were hashed vs skipped. */
export const verifiedChunkStats = { hashed: 0, skipped: 0, marksUsed: 0 };

/** Per file: the bitset of verified chunks, or the chunk count when every chunk is verified. */
const entries = new Lru<string, Uint8Array | number>({
  maxEntries: MAX_FILES,
  maxWeight: MAX_BITS_BYTES,
  weigh: (entry) => (typeof entry === 'number' ? 0 : entry.byteLength),
});
const digests = new WeakMap<Manifest, string>();

function keyOf(identity: string, m: Manifest): string {
  let d = digests.get(m);
  if (d === undefined) {
    d = manifestDigest(m);
    digests.set(m, d);
  }
  return `${identity}|${d}`;
}

/** The bitset of verified chunks for this identity and manifest, or undefined. */
export function lookupVerified(identity: string, m: Manifest): Uint8Array | undefined {
  const key = keyOf(identity, m);
  const entry = entries.get(key);
  if (entry === undefined) return undefined;
  return typeof entry === 'number' ? allSetOf(entry) : entry;
}

/**
 * Like `lookupVerified`, and on a miss asks the marks on disk: a file marked there was
 * verified whole by some process, so every chunk counts as verified (and is remembered
 * here, so the next lookup does not ask the disk).
 */
export async function lookupVerifiedOrMarked(
  identity: string,
  m: Manifest,
  marks: VerifiedMarks | undefined,
): Promise<Uint8Array | undefined> {
  const bits = lookupVerified(identity, m);
  if (bits || !marks || chunksOf(m) < MIN_MARKED_CHUNKS || !(await marks.has(keyOf(identity, m)))) return bits;
  entries.set(keyOf(identity, m), chunksOf(m));
  verifiedChunkStats.marksUsed++;
  return allSet(m);
}

/**
 * Records the chunks verified during one scan, under an identity that held before and
 * after it; when every chunk is verified, the file is large enough (`MIN_MARKED_CHUNKS`),
 * the store keeps marks on disk and the file last changed over `RACY_MS` ago (or this
 * process wrote it: `written`), marks it there too (awaited: a search's reply then follows
 * its mark; a failure is swallowed).
 */
export async function rememberVerified(
  identity: string,
  m: Manifest,
  bits: Uint8Array,
  marks?: VerifiedMarks,
  written = false,
): Promise<void> {
  const whole = isWhole(m, bits);
  await rememberKey(keyOf(identity, m), identity, chunksOf(m), whole ? chunksOf(m) : bits, marks, written);
}

async function rememberKey(
  key: string,
  identity: string,
  chunks: number,
  entry: Uint8Array | number,
  marks: VerifiedMarks | undefined,
  written: boolean,
): Promise<void> {
  entries.set(key, entry);
  if (!marks || chunks < MIN_MARKED_CHUNKS || typeof entry !== 'number') return;
  if (!written && !settled(identity)) return;
  // `add` returns at once for a key it already holds: a repeated search writes nothing.
  await marks.add(key);
}

/** True when the identity's ctime (its last field, ns) is over `RACY_MS` in the past. */
function settled(identity: string): boolean {
  const ctimeNs = identity.slice(identity.lastIndexOf(':') + 1);
  return /^\d+$/.test(ctimeNs) && BigInt(Date.now() - RACY_MS) * 1_000_000n > BigInt(ctimeNs);
}

function chunksOf(m: Manifest): number {
  return m.chunkDigests.length / 32;
}

function allSet(m: Manifest): Uint8Array {
  return allSetOf(chunksOf(m));
}

function allSetOf(n: number): Uint8Array {
  const bits = new Uint8Array(Math.ceil(n / 8));
  for (let i = 0; i < n; i++) setBit(bits, i);
  return bits;
}

function isWhole(m: Manifest, bits: Uint8Array): boolean {
  const n = chunksOf(m);
  for (let i = 0; i < n; i++) if (!isSet(bits, i)) return false;
  return true;
}

/**
 * Records every chunk of a file this process has just written as verified, in memory and
 * in the store's marks on disk: the manifest was built from the very bytes written, and
 * `identity` was taken from the written file once in place, the way git's index records a
 * file it checked out (docs/contracts.md §1.1).
 */
export function rememberWritten(identity: string, m: Manifest, marks?: VerifiedMarks): Promise<void> {
  return rememberKey(keyOf(identity, m), identity, chunksOf(m), chunksOf(m), marks, true);
}

/**
 * `rememberWritten` for a file whose manifest is not held in memory (a capture that kept
 * its tables on disk): named by its digest (the sha256 of the serialised manifest) and
 * its number of chunks.
 */
export function rememberWrittenDigest(
  identity: string,
  manifestDigest: string,
  chunks: number,
  marks?: VerifiedMarks,
): Promise<void> {
  return rememberKey(`${identity}|${manifestDigest}`, identity, chunks, chunks, marks, true);
}

/** What the cache holds now (tests): files, and bytes of partial bitsets. */
export function verifiedChunkMemory(): { files: number; bitsBytes: number } {
  return { files: entries.size, bitsBytes: entries.totalWeight };
}

/**
 * True when every chunk of the file with this identity is known verified against this
 * manifest, here or by a mark on disk: a manifest some process trusted and found true of
 * this very file. The artifact store trusts a sidecar by it without hashing the file again
 * (docs/contracts.md §1.1).
 */
export async function verifiedWhole(identity: string, m: Manifest, marks: VerifiedMarks | undefined): Promise<boolean> {
  const bits = await lookupVerifiedOrMarked(identity, m, marks);
  return bits !== undefined && isWhole(m, bits);
}

/** Records a file verified whole (every chunk and its whole sha256) in this process and, once settled, on disk. */
export function rememberVerifiedWhole(identity: string, m: Manifest, marks?: VerifiedMarks): Promise<void> {
  return rememberVerified(identity, m, allSet(m), marks);
}

/** Forgets everything (tests). */
export function clearVerifiedChunks(): void {
  entries.clear();
  verifiedChunkStats.hashed = 0;
  verifiedChunkStats.skipped = 0;
  verifiedChunkStats.marksUsed = 0;
}

export function isSet(bits: Uint8Array, i: number): boolean {
  return (bits[i >> 3]! & (1 << (i & 7))) !== 0;
}
export function setBit(bits: Uint8Array, i: number): void {
  bits[i >> 3]! |= 1 << (i & 7);
}
