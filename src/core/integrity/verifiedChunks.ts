/**
 * Verified-chunk cache (docs/contracts.md §1.1, §2.10): a repeated search skips re-hashing chunks of an unchanged
 * file, "unchanged" as git's index means it (device, inode, size, mtime, ctime). A writer that keeps size, mtime and
 * ctime is out of scope; Verify never consults this cache.
 */
import { manifestDigest, type Manifest } from './manifest.js';
import type { VerifiedMarks } from './verifiedMarks.js';
import { Lru } from '../lru.js';

const MAX_FILES = 256;
const MAX_BITS_BYTES = 2 * 1024 * 1024;
/**
 * Hashing under 1 MiB costs less than the marks file's I/O, and many small outputs would push the large ones' marks
 * out.
 */
const MIN_MARKED_CHUNKS = 16;
/**
 * A change within the timestamp tick would leave the identity unchanged (git's "racy" entries; docs/contracts.md
 * §1.1).
 */
const RACY_MS = 1_000;

export const verifiedChunkStats = { hashed: 0, skipped: 0, marksUsed: 0 };

/** A whole file is held as its chunk count, so it costs no bits. */
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

export function lookupVerified(identity: string, m: Manifest): Uint8Array | undefined {
  const key = keyOf(identity, m);
  const entry = entries.get(key);
  if (entry === undefined) return undefined;
  return typeof entry === 'number' ? allSetOf(entry) : entry;
}

/** On a miss asks the marks on disk, and remembers a hit here. */
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
 * Marks on disk too when the file is whole, large enough and settled (or this process wrote it); awaited so a
 * search's reply follows its mark.
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
  // `add` returns at once for a key it already holds.
  await marks.add(key);
}

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
 * The manifest was built from the very bytes written, as git's index records a file it checked out (docs/contracts.md
 * §1.1).
 */
export function rememberWritten(identity: string, m: Manifest, marks?: VerifiedMarks): Promise<void> {
  return rememberKey(keyOf(identity, m), identity, chunksOf(m), chunksOf(m), marks, true);
}

/** For a capture that kept its tables on disk. */
export function rememberWrittenDigest(
  identity: string,
  manifestDigest: string,
  chunks: number,
  marks?: VerifiedMarks,
): Promise<void> {
  return rememberKey(`${identity}|${manifestDigest}`, identity, chunks, chunks, marks, true);
}

export function verifiedChunkMemory(): { files: number; bitsBytes: number } {
  return { files: entries.size, bitsBytes: entries.totalWeight };
}

/** The artifact store trusts a sidecar by it without hashing again (docs/contracts.md §1.1). */
export async function verifiedWhole(identity: string, m: Manifest, marks: VerifiedMarks | undefined): Promise<boolean> {
  const bits = await lookupVerifiedOrMarked(identity, m, marks);
  return bits !== undefined && isWhole(m, bits);
}

export function rememberVerifiedWhole(identity: string, m: Manifest, marks?: VerifiedMarks): Promise<void> {
  return rememberVerified(identity, m, allSet(m), marks);
}

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
