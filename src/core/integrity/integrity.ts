/**
 * One verification system for every byte this project stores (artifacts and blobs).
 *
 * At write time a `ManifestBuilder` sees each byte once and records: the whole-content
 * sha256 (the identity), a sha256 per fixed-size chunk (so a range read costs O(range),
 * not O(size)), the number of `\n` bytes per chunk (a sparse line index: line N is found
 * without scanning the file), and whether the whole content is strict UTF-8.
 *
 * At read time `readVerified`/`streamVerified` check the stored size first, read only
 * the chunks that cover the range, hash them, and refuse to return any byte whose chunk
 * differs from the manifest. A changed byte or a changed size is an error, never data.
 */
import { createHash, hash } from 'node:crypto';
import { EvidenceError } from '../errors.js';
import { Utf8Validator } from '../utf8.js';
import { isSet, lookupVerified, rememberVerified, setBit, verifiedChunkStats } from './verifiedChunks.js';
import type { VerifiedMarks } from './verifiedMarks.js';
import type { OpenedFile } from '../files/localFile.js';
import { chunkCount, type Manifest, type ManifestSummary } from './manifest.js';

// The manifest's type and format live in manifest.ts (imported by the caches below without a circle).
export * from './manifest.js';
export type { OpenedFile } from '../files/localFile.js';

/** Chunk size for per-chunk digests: a 4 KiB read hashes at most two 64 KiB chunks. */
export const DEFAULT_CHUNK_SIZE = 64 * 1024;

/** Counts `\n` bytes with Buffer.indexOf (memchr speed). */
export function countNewlines(bytes: Uint8Array): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let n = 0;
  let p = buf.indexOf(10);
  while (p !== -1) {
    n++;
    p = buf.indexOf(10, p + 1);
  }
  return n;
}

/** The per-chunk tables of a run of consecutive chunks: 32 bytes of sha256 and a `\n` count each. */
export interface ChunkTables {
  readonly digests: Uint8Array;
  readonly newlines: Uint32Array;
}

/**
 * Streams bytes into a manifest. Memory is one chunk plus the per-chunk tables, kept as
 * two flat typed arrays (a Buffer and an array slot per chunk cost several times as much
 * and fragmented the heap). A
 * writer that must stay bounded whatever the size hands the tables out as they fill
 * (`drainTables`) and keeps them on disk (verifiedBlobs.ts `putVerifiedStream`); one that
 * needs no tables at all (a preview-only output) passes `tables: false`.
 */
export class ManifestBuilder {
  private readonly whole = createHash('sha256');
  private readonly utf8 = new Utf8Validator();
  private readonly keepTables: boolean;
  private digests = new Uint8Array(0);
  private newlines = new Uint32Array(0);
  /** Chunks in the tables now. */
  private tableChunks = 0;
  /** Chunks handed out by `drainTables`. */
  private drained = 0;
  private newlineTotal = 0;
  private summary: ManifestSummary | undefined;
  private pending: Uint8Array;
  private pendingLength = 0;
  private total = 0;

  constructor(
    readonly chunkSize: number = DEFAULT_CHUNK_SIZE,
    options: { tables?: boolean } = {},
  ) {
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0)
      throw new RangeError('chunk size must be a positive integer');
    this.pending = new Uint8Array(chunkSize);
    this.keepTables = options.tables ?? true;
  }

  /** Bytes seen so far. */
  get byteCount(): number {
    return this.total;
  }

  /** Chunks whose tables are held now (recorded and not yet drained). */
  get heldChunks(): number {
    return this.tableChunks;
  }

  /** Feeds the next bytes, in order. */
  update(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.whole.update(bytes);
    this.utf8.update(bytes);
    this.total += bytes.length;
    let offset = 0;
    // Fill a partial chunk first, then hash whole chunks straight from the input
    // without copying them.
    if (this.pendingLength > 0) {
      const take = Math.min(this.chunkSize - this.pendingLength, bytes.length);
      this.pending.set(bytes.subarray(0, take), this.pendingLength);
      this.pendingLength += take;
      offset = take;
      if (this.pendingLength === this.chunkSize) this.flushPending();
    }
    while (bytes.length - offset >= this.chunkSize) {
      this.addChunk(bytes.subarray(offset, offset + this.chunkSize));
      offset += this.chunkSize;
    }
    if (offset < bytes.length) {
      this.pending.set(bytes.subarray(offset), 0);
      this.pendingLength = bytes.length - offset;
    }
  }

  /**
   * Hands out (copied) the tables of the chunks recorded since the last call and forgets
   * them here; call `end` first to include the last, partial chunk.
   */
  drainTables(): ChunkTables {
    const out = {
      digests: this.digests.slice(0, this.tableChunks * 32),
      newlines: this.newlines.slice(0, this.tableChunks),
    };
    this.drained += this.tableChunks;
    this.tableChunks = 0;
    return out;
  }

  /**
   * Ends the stream (records the last, partial chunk) and returns what it says of the whole (again on a later call).
   */
  end(): ManifestSummary {
    if (this.summary) return this.summary;
    if (this.pendingLength > 0) this.flushPending();
    return (this.summary = {
      byteCount: this.total,
      sha256: this.whole.digest('hex'),
      chunkSize: this.chunkSize,
      utf8: this.utf8.finish(),
      chunks: chunkCount(this.total, this.chunkSize),
      newlines: this.newlineTotal,
    });
  }

  /** Ends the stream and returns the manifest (whose tables must all still be held here). */
  finish(): Manifest {
    if (!this.keepTables || this.drained > 0) throw new Error("the manifest's tables were not kept");
    const s = this.end();
    return {
      byteCount: s.byteCount,
      sha256: s.sha256,
      chunkSize: s.chunkSize,
      // Exact-size copies: a manifest kept (a cache, a registry) must not pin the tables' spare room.
      chunkDigests: this.digests.slice(0, this.tableChunks * 32),
      chunkNewlines: this.newlines.slice(0, this.tableChunks),
      utf8: s.utf8,
    };
  }

  private flushPending(): void {
    this.addChunk(this.pending.subarray(0, this.pendingLength));
    this.pendingLength = 0;
  }

  private addChunk(chunk: Uint8Array): void {
    const n = countNewlines(chunk);
    this.newlineTotal += n;
    if (!this.keepTables) return;
    if (this.tableChunks === this.newlines.length) this.grow();
    // One-shot `hash` skips building a Hash object per chunk.
    this.digests.set(hash('sha256', chunk, 'buffer'), this.tableChunks * 32);
    this.newlines[this.tableChunks] = n;
    this.tableChunks++;
  }

  /** Doubles the tables' room (amortised: a chunk's entry is copied about once). */
  private grow(): void {
    const room = Math.max(64, this.newlines.length * 2);
    const digests = new Uint8Array(room * 32);
    digests.set(this.digests.subarray(0, this.tableChunks * 32));
    const newlines = new Uint32Array(room);
    newlines.set(this.newlines.subarray(0, this.tableChunks));
    this.digests = digests;
    this.newlines = newlines;
  }
}

/** Builds the manifest of bytes held in memory. */
export function manifestOf(bytes: Uint8Array, chunkSize = DEFAULT_CHUNK_SIZE): Manifest {
  const b = new ManifestBuilder(chunkSize);
  b.update(bytes);
  return b.finish();
}

/** Physical, unverified access to stored bytes (a file, a blob, an S3 object). */
export interface RangeSource {
  /** Current stored size, or undefined when the bytes are gone. */
  size(): Promise<number | undefined>;
  /** Bytes `[start, end)` as stored; may return fewer if the store changed underneath. */
  read(start: number, end: number): Promise<Uint8Array>;
  /**
   * Optional: bytes `[start, end)` copied into `target` from index 0; returns how many
   * were read (fewer if the store changed). A long scan then reuses one buffer: a fresh
   * multi-MiB buffer per window costs a page fault per 4 KiB, more than the read itself.
   */
  readInto?(start: number, end: number, target: Uint8Array): Promise<number>;
  /**
   * Optional: the stored file's identity (device, inode, size, mtime and ctime in
   * nanoseconds), or undefined when it has none. Only a local file has one; it keys the
   * verified-chunk cache of `streamVerifiedInto` (docs/contracts.md §1.1).
   */
  identity?(): Promise<string | undefined>;
  /**
   * Optional: the stored bytes as an open local file, or undefined when there is none.
   * Only a local file store has one: a pattern search's worker then reads the file by
   * descriptor itself (docs/contracts.md §2.10). The caller closes it.
   */
  openFile?(): Promise<OpenedFile | undefined>;
  /**
   * Optional: the store's marks of whole verified files on disk (docs/contracts.md §1.1); used with `openFile` only.
   */
  readonly verifiedMarks?: VerifiedMarks;
}

/** Largest span `readVerified` fetches in one physical read while streaming. */
const STREAM_WINDOW = 16 * DEFAULT_CHUNK_SIZE;

/**
 * Returns bytes `[start, end)` after checking the stored size and the digest of every
 * chunk that covers them. Range checks: `0 <= start < end` (else `rangeOrder`), and
 * `end <= byteCount` (else `exceedsStored`, reported after the size check).
 */
export async function readVerified(src: RangeSource, m: Manifest, start: number, end: number): Promise<Uint8Array> {
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start < end))
    throw new EvidenceError('rangeOrder');
  const size = await src.size();
  if (size !== m.byteCount) throw new EvidenceError('digestMismatch');
  if (end > m.byteCount) throw new EvidenceError('exceedsStored');
  const first = Math.floor(start / m.chunkSize);
  const last = Math.floor((end - 1) / m.chunkSize);
  const alignedStart = first * m.chunkSize;
  const alignedEnd = Math.min((last + 1) * m.chunkSize, m.byteCount);
  const data = await src.read(alignedStart, alignedEnd);
  checkChunks(m, first, data, alignedEnd - alignedStart);
  return data.subarray(start - alignedStart, end - alignedStart);
}

/**
 * Yields the verified bytes of `[start, end)` in pieces of about a megabyte, so a
 * gigabyte is scanned in constant memory. The size is checked before the first byte.
 */
export async function* streamVerified(
  src: RangeSource,
  m: Manifest,
  start = 0,
  end = m.byteCount,
): AsyncGenerator<Uint8Array> {
  // The size is checked even for an empty range: a missing or grown file under an
  // empty artifact's name must not verify.
  const size = await src.size();
  if (size !== m.byteCount) throw new EvidenceError('digestMismatch');
  if (start >= end) return;
  if (start < 0 || end > m.byteCount) throw new EvidenceError('exceedsStored');
  let chunk = Math.floor(start / m.chunkSize);
  const window = Math.max(1, Math.floor(STREAM_WINDOW / m.chunkSize));
  while (chunk * m.chunkSize < end) {
    const aStart = chunk * m.chunkSize;
    const aEnd = Math.min((chunk + window) * m.chunkSize, m.byteCount);
    const data = await src.read(aStart, aEnd);
    checkChunks(m, chunk, data, aEnd - aStart);
    yield data.subarray(Math.max(start, aStart) - aStart, Math.min(end, aEnd) - aStart);
    chunk += window;
  }
}

/** One verified window of `streamVerifiedInto`. */
export interface VerifiedWindow {
  /** The window's bytes: a view of `slots[slot]`, valid until the generator comes back to that slot. */
  readonly bytes: Uint8Array;
  /** Offset of `bytes[0]` in the content (a multiple of the chunk size). */
  readonly start: number;
  /** Which slot holds it. */
  readonly slot: number;
}

/**
 * Like `streamVerified` over the whole content, but window `i` is read into
 * `slots[i % slots.length]` (via `readInto` when the source has it) and verified there,
 * so a long scan allocates nothing and the consumer may hand the verified slot to a
 * worker without a copy. The consumer must be done with a slot before the generator
 * comes back to it. A window is the largest whole number of chunks that fits its slot;
 * every slot must hold at least one chunk.
 */
export async function* streamVerifiedInto(
  src: RangeSource,
  m: Manifest,
  slots: readonly Uint8Array[],
): AsyncGenerator<VerifiedWindow> {
  if (slots.length === 0 || slots.some((s) => s.length < Math.min(m.chunkSize, m.byteCount)))
    throw new RangeError('every slot must hold a chunk');
  const size = await src.size();
  if (size !== m.byteCount) throw new EvidenceError('digestMismatch');
  // Chunks already verified in this exact file (same identity and manifest) are not
  // hashed again; the chunks verified now are remembered only if the identity still
  // holds after the scan, so a file changed mid-scan leaves no entry (docs/contracts.md §1.1).
  const identity = await src.identity?.();
  // Memory only, never the marks on disk: these windows are read by path (or by opens of
  // their own), not from one open file whose identity was taken, so a file swapped after
  // \`identity()\` must not be answered from unhashed chunks for a mark's sake (a search over
  // a local file takes \`openFile\`, where the marks apply).
  const known = identity === undefined ? undefined : lookupVerified(identity, m);
  const verified =
    identity === undefined
      ? undefined
      : known
        ? Uint8Array.from(known)
        : new Uint8Array(Math.ceil(chunkCount(m.byteCount, m.chunkSize) / 8));
  for (let i = 0, start = 0; start < m.byteCount; i++) {
    const slot = i % slots.length;
    const target = slots[slot]!;
    // A slot smaller than a chunk is only allowed when the whole content fits in it.
    const end = Math.min(start + Math.max(1, Math.floor(target.length / m.chunkSize)) * m.chunkSize, m.byteCount);
    if (src.readInto) {
      if ((await src.readInto(start, end, target)) !== end - start) throw new EvidenceError('digestMismatch');
    } else {
      // Plain reads of at most STREAM_WINDOW each: the source allocates what it returns.
      for (let p = start; p < end; p += STREAM_WINDOW) {
        const data = await src.read(p, Math.min(p + STREAM_WINDOW, end));
        if (data.length !== Math.min(STREAM_WINDOW, end - p)) throw new EvidenceError('digestMismatch');
        target.set(data, p - start);
      }
    }
    const bytes = target.subarray(0, end - start);
    checkChunks(m, start / m.chunkSize, bytes, bytes.length, known, verified);
    yield { bytes, start, slot };
    start = end;
  }
  if (identity !== undefined && verified && (await src.identity!()) === identity)
    await rememberVerified(identity, m, verified);
}

/** Full verification: every chunk and the whole-content sha256 (O(size), streamed). */
export async function verifyAll(src: RangeSource, m: Manifest): Promise<boolean> {
  try {
    const whole = createHash('sha256');
    for await (const piece of streamVerified(src, m)) whole.update(piece);
    return whole.digest('hex') === m.sha256;
  } catch (e) {
    if (e instanceof EvidenceError && e.code === 'digestMismatch') return false;
    throw e;
  }
}

/**
 * Checks each chunk of `data` (whole chunks from chunk `firstChunk`) against the manifest.
 * A chunk set in `known` (already verified in this same file) is skipped; each chunk
 * checked is set in `verified`.
 */
export function checkChunks(
  m: Manifest,
  firstChunk: number,
  data: Uint8Array,
  expectedLength: number,
  known?: Uint8Array,
  verified?: Uint8Array,
): void {
  if (data.length !== expectedLength) throw new EvidenceError('digestMismatch');
  for (let off = 0, i = firstChunk; off < data.length; off += m.chunkSize, i++) {
    if (known && isSet(known, i)) {
      verifiedChunkStats.skipped++;
      continue;
    }
    verifiedChunkStats.hashed++;
    // One-shot `hash` skips building a Hash object per chunk (about half the cost at 64 KiB).
    const digest = hash('sha256', data.subarray(off, Math.min(off + m.chunkSize, data.length)), 'buffer');
    if (!digest.equals(m.chunkDigests.subarray(i * 32, i * 32 + 32))) throw new EvidenceError('digestMismatch');
    if (verified) setBit(verified, i);
  }
}

/**
 * Where line `line` (0-based) begins, coarsely: the chunk that holds the `line`-th
 * newline-terminated boundary, and how many newlines come before that chunk. A reader
 * scans only that chunk onward. Line 0 starts in chunk 0. Returns undefined past the
 * last line start.
 */
export function locateLine(m: Manifest, line: number): { chunk: number; newlinesBefore: number } | undefined {
  if (line === 0) return { chunk: 0, newlinesBefore: 0 };
  // Line N starts right after the N-th newline: find the chunk containing it.
  let seen = 0;
  for (let i = 0; i < m.chunkNewlines.length; i++) {
    const n = m.chunkNewlines[i]!;
    if (seen + n >= line) return { chunk: i, newlinesBefore: seen };
    seen += n;
  }
  return undefined;
}

/** Total newline count, from the index. */
export function totalNewlines(m: Manifest): number {
  let n = 0;
  for (const c of m.chunkNewlines) n += c;
  return n;
}
