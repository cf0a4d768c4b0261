/**
 * One verification system for every byte stored: chunk digests make a range read O(range), newline counts per chunk
 * are a sparse line index, and a changed byte or size is an error, never data.
 */
import { createHash, hash } from 'node:crypto';
import { EvidenceError } from '../errors.js';
import { Utf8Validator } from '../utf8.js';
import { isSet, lookupVerified, rememberVerified, setBit, verifiedChunkStats } from './verifiedChunks.js';
import type { VerifiedMarks } from './verifiedMarks.js';
import type { OpenedFile } from '../files/localFile.js';
import { chunkCount, type Manifest, type ManifestSummary } from './manifest.js';

// Apart, so the caches below import it without a circle.
export * from './manifest.js';
export type { OpenedFile } from '../files/localFile.js';

/** A 4 KiB read hashes at most two chunks. */
export const DEFAULT_CHUNK_SIZE = 64 * 1024;

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

export interface ChunkTables {
  readonly digests: Uint8Array;
  readonly newlines: Uint32Array;
}

/**
 * Tables are two flat typed arrays: a Buffer per chunk cost several times as much and fragmented the heap. A bounded
 * writer drains them to disk as they fill.
 */
export class ManifestBuilder {
  private readonly whole = createHash('sha256');
  private readonly utf8 = new Utf8Validator();
  private readonly keepTables: boolean;
  private digests = new Uint8Array(0);
  private newlines = new Uint32Array(0);
  private tableChunks = 0;
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

  get byteCount(): number {
    return this.total;
  }

  get heldChunks(): number {
    return this.tableChunks;
  }

  update(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.whole.update(bytes);
    this.utf8.update(bytes);
    this.total += bytes.length;
    let offset = 0;
    // Fill a partial chunk first, then hash whole chunks straight from the input.
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

  /** Copied out and forgotten here; call `end` first to include the last chunk. */
  drainTables(): ChunkTables {
    const out = {
      digests: this.digests.slice(0, this.tableChunks * 32),
      newlines: this.newlines.slice(0, this.tableChunks),
    };
    this.drained += this.tableChunks;
    this.tableChunks = 0;
    return out;
  }

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

  /** Its tables must all still be held here. */
  finish(): Manifest {
    if (!this.keepTables || this.drained > 0) throw new Error("the manifest's tables were not kept");
    const s = this.end();
    return {
      byteCount: s.byteCount,
      sha256: s.sha256,
      chunkSize: s.chunkSize,
      // Exact-size copies: a manifest kept must not pin the tables' spare room.
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
    this.digests.set(hash('sha256', chunk, 'buffer'), this.tableChunks * 32);
    this.newlines[this.tableChunks] = n;
    this.tableChunks++;
  }

  /** Amortised: a chunk's entry is copied about once. */
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

export function manifestOf(bytes: Uint8Array, chunkSize = DEFAULT_CHUNK_SIZE): Manifest {
  const b = new ManifestBuilder(chunkSize);
  b.update(bytes);
  return b.finish();
}

/** Physical, unverified access to stored bytes. */
export interface RangeSource {
  size(): Promise<number | undefined>;
  /** May return fewer if the store changed underneath. */
  read(start: number, end: number): Promise<Uint8Array>;
  /** A long scan reuses one buffer: a fresh multi-MiB buffer per window costs more in page faults than the read. */
  readInto?(start: number, end: number, target: Uint8Array): Promise<number>;
  /** Only a local file has one; it keys the verified-chunk cache (docs/contracts.md §1.1). */
  identity?(): Promise<string | undefined>;
  /** A pattern search's worker reads the file by descriptor (docs/contracts.md §2.10). The caller closes it. */
  openFile?(): Promise<OpenedFile | undefined>;
  /** Used with `openFile` only. */
  readonly verifiedMarks?: VerifiedMarks;
}

const STREAM_WINDOW = 16 * DEFAULT_CHUNK_SIZE;

/** Checks the stored size, then every covering chunk; `exceedsStored` is reported after the size check. */
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

/** Constant memory for any size; the size is checked before the first byte. */
export async function* streamVerified(
  src: RangeSource,
  m: Manifest,
  start = 0,
  end = m.byteCount,
): AsyncGenerator<Uint8Array> {
  // Checked even for an empty range: a missing or grown file under an empty artifact's name must not verify.
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

export interface VerifiedWindow {
  /** A view of `slots[slot]`, valid until the generator comes back to that slot. */
  readonly bytes: Uint8Array;
  /** A multiple of the chunk size. */
  readonly start: number;
  readonly slot: number;
}

/**
 * Window `i` is verified in `slots[i % slots.length]`, so a long scan allocates nothing and a verified slot can go to
 * a worker without a copy.
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
  // Chunks verified now are remembered only if the identity still holds after the scan (docs/contracts.md §1.1).
  const identity = await src.identity?.();
  // Memory only, never the marks on disk: these windows are read by path, so a file swapped after `identity()` must
  // not be answered from unhashed chunks.
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

/** A chunk set in `known` is skipped; each chunk checked is set in `verified`. */
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
    // One-shot `hash` skips building a Hash object per chunk.
    const digest = hash('sha256', data.subarray(off, Math.min(off + m.chunkSize, data.length)), 'buffer');
    if (!digest.equals(m.chunkDigests.subarray(i * 32, i * 32 + 32))) throw new EvidenceError('digestMismatch');
    if (verified) setBit(verified, i);
  }
}

/** Coarse: the reader scans from that chunk onward. Undefined past the last line start. */
export function locateLine(m: Manifest, line: number): { chunk: number; newlinesBefore: number } | undefined {
  if (line === 0) return { chunk: 0, newlinesBefore: 0 };
  let seen = 0;
  for (let i = 0; i < m.chunkNewlines.length; i++) {
    const n = m.chunkNewlines[i]!;
    if (seen + n >= line) return { chunk: i, newlinesBefore: seen };
    seen += n;
  }
  return undefined;
}

export function totalNewlines(m: Manifest): number {
  let n = 0;
  for (const c of m.chunkNewlines) n += c;
  return n;
}
