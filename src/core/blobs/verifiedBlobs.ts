/**
 * Every blob is hashed while it streams to the adapter, and its manifest stored beside it as a sidecar whose sha256
 * the record keeps. Call ids and slots are `[a-z0-9-]`, so no data key can equal a sidecar key. A gone blob is
 * `missing`, a changed one a digest mismatch.
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

export const MANIFEST_SUFFIX = '._manifest';

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

export function manifestKeyOf(key: BlobKey): BlobKey {
  return validateBlobKey({ tenant: key.tenant, runId: key.runId, callId: key.callId + MANIFEST_SUFFIX });
}

export interface VerifiedPut {
  readonly manifest: Manifest;
  /** The record keeps it. */
  readonly manifestDigest: string;
}

export interface PutVerifiedOptions {
  /** Already built from the bytes, so not hashed twice. */
  readonly manifest?: Manifest;
  /** Default 64 KiB; tests use small ones. */
  readonly chunkSize?: number;
}

/** Checked against the sidecar on open. */
export interface BlobIdentity {
  readonly sha256: string;
  readonly byteCount: number;
  readonly manifestDigest: string;
}

/** If storing the sidecar fails, the data blob is removed (best effort) and the error propagates. */
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
  // A content address is known before the put, so its manifest is not hashed twice.
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
  // Hashed from the bytes as this process wrote them: the file's chunks count as verified until its identity changes
  // (docs/contracts.md §1.1).
  if (identity !== undefined) await rememberWritten(identity, manifest, store.verifiedMarks?.(key.tenant));
  return { manifest, manifestDigest: sha256Hex(encoded) };
}

/** The tables are in the sidecar only. */
export interface VerifiedStreamPut {
  readonly summary: ManifestSummary;
  readonly manifestDigest: string;
}

const HELD_CHUNKS = 16_384;

/**
 * Bounded memory for a stream of any size (docs/contracts.md §2.10, "Memory of a capture"): past `HELD_CHUNKS` the
 * chunk tables go to two scratch files, unlinked once opened so a killed writer leaves nothing, and the sidecar
 * streams from them.
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
    if (identity !== undefined)
      await rememberWrittenDigest(identity, manifestDigest, summary.chunks, store.verifiedMarks?.(key.tenant));
    return { summary, manifestDigest };
  } finally {
    await spill?.close();
  }
}

const SPILL_READ_BYTES = 1024 * 1024;

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

/** A vanished blob reads as `missing`, not as a size. */
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

export { ManifestCache } from '../integrity/manifestCache.js';

/** Every later read checks the size and the digests of the chunks it returns. */
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

export function missingError(): EvidenceError {
  return new EvidenceError('missing', 'stored bytes are missing');
}
