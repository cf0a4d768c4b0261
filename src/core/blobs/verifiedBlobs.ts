/**
 * Blobs under the one verification system (integrity.ts). Every blob is written through
 * a `ManifestBuilder` while it streams to the adapter, and its serialised manifest is
 * stored beside it as a sidecar blob; the record that names the blob keeps the sidecar's
 * sha256 (`manifestDigest`). Reads go through `readVerified`/`streamVerified` over a
 * `RangeSource` built on the adapter's `size`/`readInto`.
 *
 * Sidecar key: the data key's call segment + `._manifest`, e.g. `c1` -> `c1._manifest`,
 * `c1.stdout` -> `c1.stdout._manifest`. Call ids and slots are `[a-z0-9-]` only, so
 * neither a call id nor a slot can contain `.` or `_`: no data key can ever equal a
 * sidecar key.
 *
 * Faults: a data blob or sidecar that is gone is `missing` ("stored bytes are missing"),
 * never data; a changed byte, a changed size or a rewritten sidecar is the contract's
 * digest mismatch.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EvidenceError } from '../errors.js';
import type { ManifestCache } from '../integrity/manifestCache.js';
import { sha256Hex } from '../integrity/sha256.js';
import {
  decodeManifest,
  encodeManifest,
  encodeManifestHeader,
  ManifestBuilder,
  newlinesLE,
  type ChunkTables,
  type Manifest,
  type ManifestSummary,
  type RangeSource,
} from '../integrity/integrity.js';
import { tempNameFor } from '../files/localFile.js';
import { rememberWritten, rememberWrittenDigest } from '../integrity/verifiedChunks.js';
import { validateBlobKey, type BlobKey } from './blobKey.js';
import { readRange, type BlobStore } from './blobStore.js';

/** Suffix of a manifest sidecar's call segment. */
export const MANIFEST_SUFFIX = '._manifest';

/** Largest sidecar accepted on read (a 1 TiB blob's manifest is ~576 MiB at 64 KiB chunks; ours are far smaller). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** The sidecar key of a data key. */
export function manifestKeyOf(key: BlobKey): BlobKey {
  return validateBlobKey({ tenant: key.tenant, runId: key.runId, callId: key.callId + MANIFEST_SUFFIX });
}

/** What a verified put recorded. */
export interface VerifiedPut {
  readonly manifest: Manifest;
  /** sha256 of the serialised sidecar: the record keeps it. */
  readonly manifestDigest: string;
}

/** Options of `putVerified`. */
export interface PutVerifiedOptions {
  /** The manifest of a body given as bytes, already built from them (not hashed twice). */
  readonly manifest?: Manifest;
  /** Chunk size of the manifest built (default 64 KiB; tests use small ones). */
  readonly chunkSize?: number;
}

/** What a record promises about a blob: checked against the sidecar on open. */
export interface BlobIdentity {
  readonly sha256: string;
  readonly byteCount: number;
  readonly manifestDigest: string;
}

/**
 * Streams `body` to the adapter while hashing it, then stores the sidecar. If storing
 * the sidecar fails the data blob is removed (best effort) and the error propagates.
 */
export async function putVerified(
  store: BlobStore,
  key: BlobKey,
  body: Uint8Array | AsyncIterable<Uint8Array>,
  options: PutVerifiedOptions = {},
): Promise<VerifiedPut> {
  validateBlobKey(key);
  const known = options.manifest;
  const builder = new ManifestBuilder(options.chunkSize);
  async function* hashed(): AsyncGenerator<Uint8Array> {
    if (body instanceof Uint8Array) {
      builder.update(body);
      yield body;
      return;
    }
    for await (const piece of body) {
      builder.update(piece);
      yield piece;
    }
  }
  // Bytes whose manifest the caller already built from them (a content address is known before the put) are not hashed
  // twice.
  const reuse = known !== undefined && body instanceof Uint8Array && known.byteCount === body.length;
  const { sizeBytes, identity } = await store.put(key, reuse ? body : hashed());
  const manifest = reuse ? known : builder.finish();
  if (sizeBytes !== manifest.byteCount)
    throw new EvidenceError('backend', 'blob store stored a different number of bytes');
  const encoded = encodeManifest(manifest);
  try {
    await store.put(manifestKeyOf(key), encoded);
  } catch (e) {
    await store.delete(key).catch(() => undefined);
    throw e;
  }
  // The manifest was hashed from the bytes as this process wrote them: a local file's
  // chunks are verified, for this process and (marked on disk) for others, until its
  // identity changes (docs/contracts.md §1.1).
  if (identity !== undefined) await rememberWritten(identity, manifest, store.verifiedMarks?.(key.tenant));
  return { manifest, manifestDigest: sha256Hex(encoded) };
}

/** What a streamed verified put recorded: the manifest's summary (its tables are in the sidecar only). */
export interface VerifiedStreamPut {
  readonly summary: ManifestSummary;
  readonly manifestDigest: string;
}

/**
 * Chunks whose tables a streamed put holds in memory at most before it keeps them on disk:
 * 1 GiB of output at 64 KiB chunks, 576 KiB of tables.
 */
const HELD_CHUNKS = 16_384;

/**
 * `putVerified` for a stream of any size, in bounded memory (docs/contracts.md §2.10,
 * "Memory of a capture"): the per-chunk tables are held up to
 * `HELD_CHUNKS` chunks, then written, as they fill, to two scratch files (digests, newline
 * counts) in the store's scratch folder (`scratchDir`: the blob's own folder for the
 * filesystem store; else the system's temporary folder), and the sidecar is streamed from
 * them once the data is stored, its digest hashed as it goes. The scratch files are
 * unlinked as soon as they are opened (elsewhere than Windows), so a killed writer leaves
 * nothing behind. Small outputs never touch a scratch file.
 */
export async function putVerifiedStream(
  store: BlobStore,
  key: BlobKey,
  body: AsyncIterable<Uint8Array>,
  options: { heldChunks?: number; chunkSize?: number } = {},
): Promise<VerifiedStreamPut> {
  validateBlobKey(key);
  // Tests pass small ones, to keep tables on disk for a few chunks.
  const held = options.heldChunks ?? HELD_CHUNKS;
  const builder = new ManifestBuilder(options.chunkSize);
  let spill: TableSpill | undefined;
  try {
    async function* hashed(): AsyncGenerator<Uint8Array> {
      for await (const piece of body) {
        builder.update(piece);
        if (builder.heldChunks >= held) {
          spill ??= await TableSpill.open(store.scratchDir?.(key) ?? os.tmpdir());
          await spill.append(builder.drainTables());
        }
        yield piece;
      }
    }
    const { sizeBytes, identity } = await store.put(key, hashed());
    const summary = builder.end();
    if (sizeBytes !== summary.byteCount)
      throw new EvidenceError('backend', 'blob store stored a different number of bytes');
    let manifestDigest: string;
    try {
      if (spill === undefined) {
        const encoded = encodeManifest(builder.finish());
        await store.put(manifestKeyOf(key), encoded);
        manifestDigest = sha256Hex(encoded);
      } else {
        await spill.append(builder.drainTables());
        const digest = createHash('sha256');
        const sidecar = spill.sidecar(summary);
        await store.put(
          manifestKeyOf(key),
          (async function* () {
            for await (const piece of sidecar) {
              digest.update(piece);
              yield piece;
            }
          })(),
        );
        manifestDigest = digest.digest('hex');
      }
    } catch (e) {
      await store.delete(key).catch(() => undefined);
      throw e;
    }
    // As `putVerified`: the writer's own chunks are verified (docs/contracts.md §1.1).
    if (identity !== undefined)
      await rememberWrittenDigest(identity, manifestDigest, summary.chunks, store.verifiedMarks?.(key.tenant));
    return { summary, manifestDigest };
  } finally {
    await spill?.close();
  }
}

/** Bytes of a scratch file read back at a time while streaming a sidecar. */
const SPILL_READ_BYTES = 1024 * 1024;

/** A streamed put's chunk tables kept on disk: digests in one scratch file, newline counts (u32 LE) in another. */
class TableSpill {
  private digestBytes = 0;
  private newlineBytes = 0;

  private constructor(
    private readonly digests: fsp.FileHandle,
    private readonly newlines: fsp.FileHandle,
    private readonly names: readonly string[],
  ) {}

  static async open(dir: string): Promise<TableSpill> {
    await fsp.mkdir(dir, { recursive: true });
    const names = [tempNameFor(path.join(dir, 'digests')), tempNameFor(path.join(dir, 'newlines'))];
    const digests = await fsp.open(names[0]!, 'wx+');
    const newlines = await fsp.open(names[1]!, 'wx+').catch(async (e: unknown) => {
      await digests.close();
      await fsp.rm(names[0]!, { force: true });
      throw e;
    });
    // Gone from the folder at once: nothing to remove if this process is killed (Windows keeps them until `close`).
    const unlinked = process.platform !== 'win32';
    if (unlinked) for (const n of names) await fsp.rm(n, { force: true });
    return new TableSpill(digests, newlines, unlinked ? [] : names);
  }

  async append(t: ChunkTables): Promise<void> {
    await writeAll(this.digests, t.digests, this.digestBytes);
    this.digestBytes += t.digests.length;
    const counts = newlinesLE(t.newlines);
    await writeAll(this.newlines, counts, this.newlineBytes);
    this.newlineBytes += counts.length;
  }

  /**
   * The serialised manifest (as `encodeManifest` would make it), read back from the scratch files in bounded pieces.
   */
  async *sidecar(summary: ManifestSummary): AsyncGenerator<Uint8Array> {
    if (this.digestBytes !== summary.chunks * 32 || this.newlineBytes !== summary.chunks * 4)
      throw new EvidenceError('backend', 'chunk tables kept on disk are incomplete');
    yield encodeManifestHeader(summary);
    for (const [fh, size] of [
      [this.digests, this.digestBytes],
      [this.newlines, this.newlineBytes],
    ] as const) {
      for (let p = 0; p < size;) {
        const piece = new Uint8Array(Math.min(SPILL_READ_BYTES, size - p));
        const { bytesRead } = await fh.read(piece, 0, piece.length, p);
        if (bytesRead !== piece.length) throw new EvidenceError('backend', 'chunk tables kept on disk are incomplete');
        p += bytesRead;
        yield piece;
      }
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.digests.close(), this.newlines.close()]);
    for (const n of this.names) await fsp.rm(n, { force: true }).catch(() => undefined);
  }
}

async function writeAll(fh: fsp.FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let off = 0; off < bytes.length;) {
    const { bytesWritten } = await fh.write(bytes, off, bytes.length - off, position + off);
    off += bytesWritten;
  }
}

/** A physical source over one blob; a vanished blob reads as `missing`, not as a size. */
export function blobRangeSource(store: BlobStore, key: BlobKey): RangeSource {
  return {
    async size() {
      const n = await store.size(key);
      if (n === undefined) throw missingError();
      return n;
    },
    read: (start, end) => readRange(store, key, start, end),
    readInto: (start, end, target) => store.readInto(key, start, target.subarray(0, Math.max(0, end - start))),
    ...(store.identity ? { identity: () => store.identity!(key) } : {}),
    ...(store.openFile ? { openFile: () => store.openFile!(key) } : {}),
    ...(store.verifiedMarks ? { verifiedMarks: store.verifiedMarks(key.tenant) } : {}),
  };
}

/** The one manifest cache (re-exported where the blob layer's callers expect it). */
export { ManifestCache } from '../integrity/manifestCache.js';

/**
 * Loads and checks a blob's sidecar against what the record promises, and returns the
 * manifest plus a source over the data: every later read through `readVerified` /
 * `streamVerified` checks the size and the digests of the chunks it returns.
 */
export async function openVerified(
  store: BlobStore,
  key: BlobKey,
  expected: BlobIdentity,
  cache?: ManifestCache,
): Promise<{ manifest: Manifest; source: RangeSource }> {
  const source = blobRangeSource(store, key);
  let manifest = cache?.get(expected.manifestDigest);
  if (!manifest) {
    const mKey = manifestKeyOf(key);
    const size = await store.size(mKey);
    if (size === undefined) throw missingError();
    if (size > MAX_MANIFEST_BYTES) throw new EvidenceError('digestMismatch');
    const encoded = await readRange(store, mKey, 0, size);
    if (sha256Hex(encoded) !== expected.manifestDigest) throw new EvidenceError('digestMismatch');
    manifest = decodeManifest(encoded);
    cache?.set(expected.manifestDigest, manifest);
  }
  if (manifest.sha256 !== expected.sha256 || manifest.byteCount !== expected.byteCount)
    throw new EvidenceError('digestMismatch');
  return { manifest, source };
}

/** The error for bytes the log promises but the store no longer has. */
export function missingError(): EvidenceError {
  return new EvidenceError('missing', 'stored bytes are missing');
}
