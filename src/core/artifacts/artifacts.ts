/**
 * Artifacts of `evidence_readFile` (docs/contracts.md §1.1, §2.9): content-addressed keys of the one blob store,
 * keyed `{ tenant, runId: 'artifacts', callId: <sha256> }`. The model never supplies a storage address, and the
 * tenant in every key is the permission (§2.8). A sidecar is trusted when a record names its digest, this process
 * wrote or verified it, a mark on disk says so, or after one full verification; old-layout files migrate lazily on
 * first read (docs/architecture.md §3).
 */
import { constants as fsc, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { FILE_PIECE_BYTES, piecesOf } from '../files/localFile.js';
import * as path from 'node:path';
import { assertSafeSegment, temporaryCallId, type BlobKey } from '../blobs/blobKey.js';
import type { BlobStore } from '../blobs/blobStore.js';
import { readRange as readBlobRange } from '../blobs/blobStore.js';
import { blobRangeSource, manifestKeyOf, putVerified } from '../blobs/verifiedBlobs.js';
import { EvidenceError, isStorageFull } from '../errors.js';
import {
  DEFAULT_CHUNK_SIZE,
  decodeManifest,
  encodeManifest,
  manifestDigest,
  ManifestBuilder,
  manifestOf,
  readVerified,
  streamVerifiedInto,
  verifyAll,
  type Manifest,
  type RangeSource,
} from '../integrity/integrity.js';
import { ManifestCache } from '../integrity/manifestCache.js';
import { sha256Hex } from '../integrity/sha256.js';
import { isArtifactId, isRange, makeArtifactRef, type ArtifactRef } from './artifactRef.js';
import { encodeUtf8 } from '../utf8.js';
import { rememberVerifiedWhole, rememberWritten, verifiedWhole } from '../integrity/verifiedChunks.js';

/** Never a run id: those are `run-…`. */
export const ARTIFACTS_SEGMENT = 'artifacts';

export interface ArtifactStoreOptions {
  readonly blobs: BlobStore;
  readonly tenant: string;
  /** Artifacts found there are moved into the blob store on first read. */
  readonly legacyRoot?: string;
  /** Default 64 KiB; tests use small ones. */
  readonly chunkSize?: number;
}

const MANIFEST_CACHE_BYTES = 32 * 1024 * 1024;
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

export class ArtifactStore {
  readonly tenant: string;
  private readonly blobs: BlobStore;
  private readonly legacyDir: string | undefined;
  private readonly chunkSize: number;
  /** By the artifact's sha256; a read still checks size and chunks, so a changed file is caught. */
  private readonly trusted = new ManifestCache(MANIFEST_CACHE_BYTES);
  /** A first one may be a full O(size) verification. */
  private readonly loading = new Map<string, Promise<Manifest>>();
  /** Many promises putting the same bytes write once. */
  private readonly putting = new Map<string, Promise<ArtifactRef>>();

  constructor(options: ArtifactStoreOptions) {
    this.tenant = assertSafeSegment('artifact store tenant', options.tenant);
    this.blobs = options.blobs;
    this.chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isSafeInteger(this.chunkSize) || this.chunkSize <= 0)
      throw new EvidenceError('invalidArgument', 'artifact chunk size must be a positive integer');
    this.legacyDir =
      options.legacyRoot === undefined ? undefined : path.join(path.resolve(options.legacyRoot), this.tenant);
  }

  async put(result: string | Uint8Array): Promise<ArtifactRef> {
    if (typeof result !== 'string' && !(result instanceof Uint8Array))
      throw new TypeError('put takes a string or a Uint8Array');
    const bytes = typeof result === 'string' ? encodeUtf8(result) : result;
    const manifest = manifestOf(bytes, this.chunkSize);
    const id = `artifact-${manifest.sha256}`;
    const inflight = this.putting.get(id);
    if (inflight) return inflight;
    const p = putVerified(this.blobs, this.keyOf(manifest.sha256), bytes, { manifest })
      .then(
        (put) => this.remember(put.manifest),
        // Bytes already kept need no free space (docs/contracts.md §5.6).
        (e: unknown) => (isStorageFull(e) ? this.alreadyKept(id, manifest.byteCount, e) : Promise.reject(e)),
      )
      .finally(() => this.putting.delete(id));
    this.putting.set(id, p);
    return p;
  }

  private async alreadyKept(id: string, byteCount: number, failure: unknown): Promise<ArtifactRef> {
    const ref = await this.refOf(id).catch(() => undefined);
    if (ref?.byteCount !== byteCount) throw failure;
    return ref;
  }

  /** Bounded memory: written under a temporary key while hashed, then moved under its content address. */
  async putStream(chunks: AsyncIterable<Uint8Array>): Promise<ArtifactRef> {
    const temp: BlobKey = { tenant: this.tenant, runId: ARTIFACTS_SEGMENT, callId: temporaryCallId() };
    const tempSidecar = manifestKeyOf(temp);
    try {
      const { manifest } = await putVerified(this.blobs, temp, checkedPieces(chunks), { chunkSize: this.chunkSize });
      const key = this.keyOf(manifest.sha256);
      // The sidecar first: a reader between the two moves would otherwise rebuild it by hashing.
      await this.blobs.move(tempSidecar, manifestKeyOf(key));
      const { identity } = await this.blobs.move(temp, key);
      // Hashed from the bytes as written, so the moved file is marked verified (docs/contracts.md §1.1).
      if (identity !== undefined) await rememberWritten(identity, manifest, this.blobs.verifiedMarks?.(this.tenant));
      return this.remember(manifest);
    } finally {
      await this.blobs.delete(temp).catch(() => undefined);
      await this.blobs.delete(tempSidecar).catch(() => undefined);
    }
  }

  /**
   * Fails in the contract's order: `artifactIdInvalid`, `rangeOrder`, `notAvailable`, `digestMismatch`,
   * `exceedsStored`.
   */
  async readRange(artifactId: string, start: number, end: number): Promise<Uint8Array> {
    if (!isArtifactId(artifactId)) throw new EvidenceError('artifactIdInvalid');
    if (!isRange(start, end)) throw new EvidenceError('rangeOrder');
    const { manifest, source } = await this.open(artifactId);
    // Copy out of the chunk-aligned buffer so a 4 KiB result does not pin 128 KiB.
    return Uint8Array.from(await readVerified(source, manifest, start, end));
  }

  /** Each piece is valid until the next is asked for: a whole-artifact scan allocates nothing per piece. */
  async *pieces(artifactId: string): AsyncGenerator<Uint8Array> {
    const { manifest, source } = await this.open(artifactId);
    const slot = new Uint8Array(
      Math.max(1, Math.min(Math.max(FILE_PIECE_BYTES, manifest.chunkSize), manifest.byteCount)),
    );
    for await (const w of streamVerifiedInto(source, manifest, [slot])) yield w.bytes;
  }

  async refOf(artifactId: string): Promise<ArtifactRef> {
    const { manifest } = await this.open(artifactId);
    return makeArtifactRef(artifactId, manifest.byteCount, manifest.sha256);
  }

  /**
   * Trusts the manifest whose digest the record kept; a sidecar with another digest only after a full verification.
   */
  async openRecorded(
    ref: { artifactId: string; byteCount: number; sha256: string },
    recordedDigest: string,
  ): Promise<{ manifest: Manifest; source: RangeSource }> {
    const checked = makeArtifactRef(ref.artifactId, ref.byteCount, ref.sha256);
    const opened = await this.open(checked.artifactId, recordedDigest);
    if (opened.manifest.byteCount !== checked.byteCount) throw new EvidenceError('digestMismatch');
    return opened;
  }

  async manifestFor(artifactId: string): Promise<{ manifest: Manifest; manifestDigest: string }> {
    const { manifest } = await this.open(artifactId);
    return { manifest, manifestDigest: manifestDigest(manifest) };
  }

  /** Full verification, O(size). False on any change, a changed size, vanished bytes or an untrusted manifest. */
  async verify(artifactId: string): Promise<boolean> {
    let opened: { manifest: Manifest; source: RangeSource };
    try {
      opened = await this.open(artifactId);
    } catch (e) {
      if (e instanceof EvidenceError && e.code === 'digestMismatch') return false;
      throw e;
    }
    return verifyWhole(opened.source, opened.manifest);
  }

  /** Undefined when this tenant had nothing under the id. */
  async delete(artifactId: string): Promise<number | undefined> {
    if (!isArtifactId(artifactId)) throw new EvidenceError('artifactIdInvalid');
    const sha = artifactId.slice('artifact-'.length);
    const key = this.keyOf(sha);
    this.trusted.delete(sha);
    const size = await this.blobs.size(key);
    const legacy = this.legacyDir === undefined ? undefined : path.join(this.legacyDir, artifactId);
    const legacySize =
      legacy === undefined
        ? undefined
        : await fsp.lstat(legacy).then(
            (st) => (st.isFile() ? st.size : undefined),
            () => undefined,
          );
    if (size !== undefined) await this.blobs.delete(key);
    await this.blobs.delete(manifestKeyOf(key));
    if (legacy !== undefined) await removeLegacy(legacy);
    return size ?? legacySize;
  }

  private keyOf(sha: string): BlobKey {
    return { tenant: this.tenant, runId: ARTIFACTS_SEGMENT, callId: sha };
  }

  private remember(manifest: Manifest): ArtifactRef {
    this.trusted.set(manifest.sha256, manifest);
    return makeArtifactRef(`artifact-${manifest.sha256}`, manifest.byteCount, manifest.sha256);
  }

  private async open(
    artifactId: string,
    recordedDigest?: string,
  ): Promise<{ manifest: Manifest; source: RangeSource }> {
    if (!isArtifactId(artifactId)) throw new EvidenceError('artifactIdInvalid');
    const sha = artifactId.slice('artifact-'.length);
    const key = this.keyOf(sha);
    let manifest = this.trusted.get(sha);
    if (!manifest) {
      let pending = this.loading.get(sha);
      if (!pending) {
        pending = this.establishTrust(sha, key, recordedDigest).finally(() => this.loading.delete(sha));
        this.loading.set(sha, pending);
      }
      manifest = await pending;
    }
    return { manifest, source: this.sourceOf(key) };
  }

  private async establishTrust(sha: string, key: BlobKey, recordedDigest: string | undefined): Promise<Manifest> {
    let size = await this.blobs.size(key);
    if (size === undefined) {
      const migrated = await this.migrateLegacy(sha, key);
      if (migrated) {
        this.trusted.set(sha, migrated);
        return migrated;
      }
      // Another process may have moved it meanwhile.
      size = await this.blobs.size(key);
      if (size === undefined) throw new EvidenceError('notAvailable');
    }
    const sidecar = await this.readSidecar(key);
    const m = sidecar === undefined ? undefined : decodeOrUndefined(sidecar);
    let trusted: Manifest | undefined;
    if (m && m.sha256 === sha) {
      if (m.byteCount !== size) throw new EvidenceError('digestMismatch');
      const source = this.sourceOf(key);
      const identity = await source.identity?.();
      const marks = this.blobs.verifiedMarks?.(this.tenant);
      if (recordedDigest !== undefined && sha256Hex(sidecar!) === recordedDigest) trusted = m;
      else if (identity !== undefined && (await verifiedWhole(identity, m, marks))) trusted = m;
      else if (await verifyWhole(source, m)) {
        trusted = m;
        if (identity !== undefined && (await source.identity?.()) === identity)
          await rememberVerifiedWhole(identity, m, marks);
      } else throw new EvidenceError('digestMismatch');
    } else {
      trusted = await this.hashBlob(key, size);
      if (trusted.sha256 !== sha) throw new EvidenceError('digestMismatch');
      await this.blobs.put(manifestKeyOf(key), encodeManifest(trusted));
    }
    this.trusted.set(sha, trusted);
    return trusted;
  }

  private async readSidecar(key: BlobKey): Promise<Uint8Array | undefined> {
    const mKey = manifestKeyOf(key);
    const size = await this.blobs.size(mKey);
    if (size === undefined || size > MAX_MANIFEST_BYTES) return undefined;
    return await readBlobRange(this.blobs, mKey, 0, size).catch((e: unknown) => {
      if (e instanceof EvidenceError && e.code === 'missing') return undefined;
      throw e;
    });
  }

  private async hashBlob(key: BlobKey, size: number): Promise<Manifest> {
    const builder = new ManifestBuilder(this.chunkSize);
    const piece = new Uint8Array(Math.min(FILE_PIECE_BYTES, Math.max(1, size)));
    for (let at = 0; at < size;) {
      const n = await this.blobs.readInto(key, at, piece.subarray(0, Math.min(piece.length, size - at)));
      if (n === 0) throw new EvidenceError('digestMismatch');
      builder.update(piece.subarray(0, n));
      at += n;
    }
    return builder.finish();
  }

  /**
   * Kept only when it hashes to its id (else `digestMismatch` and the old file stays). A symlink is not an old file.
   */
  private async migrateLegacy(sha: string, key: BlobKey): Promise<Manifest | undefined> {
    if (this.legacyDir === undefined) return undefined;
    const file = path.join(this.legacyDir, `artifact-${sha}`);
    const fh = await openNoFollow(file);
    if (!fh) return undefined;
    let manifest: Manifest;
    try {
      const st = await fh.stat();
      if (!st.isFile()) return undefined;
      ({ manifest } = await putVerified(this.blobs, key, piecesOf(fh, st.size), { chunkSize: this.chunkSize }));
      if (manifest.sha256 !== sha || manifest.byteCount !== st.size) {
        await this.blobs.delete(manifestKeyOf(key)).catch(() => undefined);
        await this.blobs.delete(key).catch(() => undefined);
        throw new EvidenceError('digestMismatch');
      }
    } finally {
      await fh.close();
    }
    await removeLegacy(file);
    return manifest;
  }

  /** Bytes gone from under the key are `notAvailable`, as an id never stored is. */
  private sourceOf(key: BlobKey): RangeSource {
    const base = blobRangeSource(this.blobs, key);
    return {
      ...base,
      size: async () => {
        const n = await this.blobs.size(key);
        if (n === undefined) throw new EvidenceError('notAvailable');
        return n;
      },
    };
  }
}

/** A producer of text would otherwise store its UTF-16 code units. */
async function* checkedPieces(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const piece of chunks) {
    if (!(piece instanceof Uint8Array)) throw new TypeError('putStream takes pieces of Uint8Array');
    yield piece;
  }
}

async function removeLegacy(file: string): Promise<void> {
  await fsp.rm(file, { force: true });
  await fsp.rm(path.join(path.dirname(file), '.manifests', `${path.basename(file)}.manifest`), { force: true });
}

/** Where O_NOFOLLOW is missing (Windows), an lstat check stands in for it. */
const NOFOLLOW = fsc.O_NOFOLLOW ?? 0;
const NONBLOCK = fsc.O_NONBLOCK ?? 0;
const GONE = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR', 'EMLINK', 'ENXIO']);

/** Without following a symlink, and without hanging on a FIFO. */
async function openNoFollow(file: string): Promise<FileHandle | undefined> {
  try {
    if (NOFOLLOW === 0 && (await fsp.lstat(file)).isSymbolicLink()) return undefined;
    return await fsp.open(file, fsc.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if (GONE.has((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw new EvidenceError('backend', 'artifact store could not read the artifact');
  }
}

/** The size check is explicit: for an empty manifest `streamVerified` reads no range. */
async function verifyWhole(source: RangeSource, m: Manifest): Promise<boolean> {
  try {
    if ((await source.size()) !== m.byteCount) return false;
    return await verifyAll(source, m);
  } catch (e) {
    if (e instanceof EvidenceError && e.code === 'notAvailable') return false;
    throw e;
  }
}

function decodeOrUndefined(bytes: Uint8Array): Manifest | undefined {
  try {
    return decodeManifest(bytes);
  } catch {
    return undefined;
  }
}
