/**
 * Artifacts of `evidence_readFile` (docs/contracts.md §1.1, §2.9): content-addressed keys of
 * the one blob store, written and read through its one verified writer and reader
 * (blobs/verifiedBlobs.ts); the identity they keep by is artifactRef.ts.
 *
 * Address: artifact `artifact-<sha256>` of a tenant is the blob key
 * `{ tenant, runId: 'artifacts', callId: <sha256> }` (the filesystem store's
 * `<blobs>/<tenant>/artifacts/<sha256>`, its manifest sidecar `<sha256>._manifest`). The
 * key is built here from an id validated as `artifact-<64 lowercase hex>`: the model never
 * supplies a storage address. Run ids are `run-…`, so no run's folder is `artifacts`, and
 * deleting a run never touches an artifact; two runs reading the same file share one.
 *
 * Permission: the tenant is part of every blob address, so bytes stored under this
 * tenant's key ARE what this tenant may read: the answer is one `size` of the key, with no
 * registry to learn at open (docs/contracts.md §2.8).
 *
 * Trust: the sidecar is checked against the artifact's identity (its sha256 and size), and
 * trusted when (a) a record names its digest (a handle: `openRecorded`), (b) this process
 * wrote or verified it, (c) on a local file store, this very file (by its identity) is
 * marked verified whole under that manifest (verifiedMarks.ts: the writer marks what it
 * wrote), or else (d) after one full verification (every chunk and the whole sha256, O(size),
 * once per process). A missing or unreadable sidecar is rebuilt from the bytes when they hash
 * to the identity. Every range read then checks the stored size and the digests of the
 * chunks it returns, so a read costs O(range).
 *
 * Upgrade (docs/architecture.md §3): stores of the old layout kept artifacts at
 * `<storage>/evidence/artifacts/<tenant>/artifact-<sha256>`. An id not in the blob store is
 * looked up there once and, when found, streamed into the blob store (hashed on the way,
 * kept only when it hashes to its id), then the old file and its manifest are removed:
 * migrated lazily on first read (or on a handle's read), never in a sweep at open.
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

/** The run segment of every artifact's blob key (never a run id: those are `run-…`). */
export const ARTIFACTS_SEGMENT = 'artifacts';

/** Options of `ArtifactStore`. */
export interface ArtifactStoreOptions {
  /** The blob store (the same one large outputs go to). */
  readonly blobs: BlobStore;
  /** One safe path segment: part of every key. */
  readonly tenant: string;
  /**
   * The artifacts folder of the old layout (`<storage>/evidence/artifacts`):
   * artifacts found there under the tenant are moved into the blob store on first read.
   */
  readonly legacyRoot?: string;
  /** Chunk size of new manifests (tests use small ones); default 64 KiB. */
  readonly chunkSize?: number;
}

/** Trusted manifests kept in memory (bytes of digests and line counts). */
const MANIFEST_CACHE_BYTES = 32 * 1024 * 1024;
/** Largest sidecar accepted (a 1 TiB artifact's manifest is ~576 MiB at 64 KiB chunks; ours are far smaller). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** Exact bytes of tool results in the blob store, under one tenant, each verified on read. */
export class ArtifactStore {
  /** The tenant every key is under. */
  readonly tenant: string;
  private readonly blobs: BlobStore;
  private readonly legacyDir: string | undefined;
  private readonly chunkSize: number;
  /**
   * Manifests this process trusts, by the artifact's sha256 (content-addressed by the bytes
   * they describe; a read still checks size and chunks, so a changed file is caught).
   */
  private readonly trusted = new ManifestCache(MANIFEST_CACHE_BYTES);
  /** Trust being established, by sha256 (a first one may be a full O(size) verification). */
  private readonly loading = new Map<string, Promise<Manifest>>();
  /** Puts in flight, by id: many promises putting the same bytes write once. */
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

  /** Stores the exact UTF-8 bytes of a text result (TextEncoder's), or raw bytes. */
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
        // Bytes already kept need no free space: a full disk still answers with the stored ones
        // (docs/contracts.md §5.6).
        (e: unknown) => (isStorageFull(e) ? this.alreadyKept(id, manifest.byteCount, e) : Promise.reject(e)),
      )
      .finally(() => this.putting.delete(id));
    this.putting.set(id, p);
    return p;
  }

  /** The artifact `id` as this tenant already holds it (verified), or `failure` when it holds no such bytes. */
  private async alreadyKept(id: string, byteCount: number, failure: unknown): Promise<ArtifactRef> {
    const ref = await this.refOf(id).catch(() => undefined);
    if (ref?.byteCount !== byteCount) throw failure;
    return ref;
  }

  /**
   * Stores a stream of bytes of unknown size in bounded memory: written through the verified
   * writer under a temporary key of this tenant while it is hashed, then moved under its
   * content address (one rename on a local file store, a server-side copy on S3).
   */
  async putStream(chunks: AsyncIterable<Uint8Array>): Promise<ArtifactRef> {
    const temp: BlobKey = { tenant: this.tenant, runId: ARTIFACTS_SEGMENT, callId: temporaryCallId() };
    const tempSidecar = manifestKeyOf(temp);
    try {
      const { manifest } = await putVerified(this.blobs, temp, checkedPieces(chunks), { chunkSize: this.chunkSize });
      const key = this.keyOf(manifest.sha256);
      // The sidecar first: bytes under an artifact's key have their manifest beside them
      // (a reader between the two moves would otherwise rebuild it by hashing).
      await this.blobs.move(tempSidecar, manifestKeyOf(key));
      const { identity } = await this.blobs.move(temp, key);
      // Hashed from the bytes as written: the moved file is marked verified (docs/contracts.md §1.1).
      if (identity !== undefined) await rememberWritten(identity, manifest, this.blobs.verifiedMarks?.(this.tenant));
      return this.remember(manifest);
    } finally {
      await this.blobs.delete(temp).catch(() => undefined);
      await this.blobs.delete(tempSidecar).catch(() => undefined);
    }
  }

  /**
   * Raw bytes `[start, end)`, every one verified. Fails, in the contract's order, with
   * `artifactIdInvalid`, `rangeOrder`, `notAvailable`, `digestMismatch`, `exceedsStored`
   * (`EvidenceError`, message without the `error: ` prefix).
   */
  async readRange(artifactId: string, start: number, end: number): Promise<Uint8Array> {
    if (!isArtifactId(artifactId)) throw new EvidenceError('artifactIdInvalid');
    if (!isRange(start, end)) throw new EvidenceError('rangeOrder');
    const { manifest, source } = await this.open(artifactId);
    // Copy out of the chunk-aligned read buffer so a 4 KiB result does not pin 128 KiB.
    return Uint8Array.from(await readVerified(source, manifest, start, end));
  }

  /**
   * All the bytes of an artifact in order, every one verified, read into one reused buffer of
   * about a megabyte: each piece is valid until the next is asked for (a whole-artifact scan
   * then allocates nothing per piece; chunks this process wrote are not hashed again, §1.1).
   */
  async *pieces(artifactId: string): AsyncGenerator<Uint8Array> {
    const { manifest, source } = await this.open(artifactId);
    const slot = new Uint8Array(
      Math.max(1, Math.min(Math.max(FILE_PIECE_BYTES, manifest.chunkSize), manifest.byteCount)),
    );
    for await (const w of streamVerifiedInto(source, manifest, [slot])) yield w.bytes;
  }

  /**
   * The identity of an artifact stored under this tenant; `artifactIdInvalid`, `notAvailable`, `digestMismatch`
   * otherwise.
   */
  async refOf(artifactId: string): Promise<ArtifactRef> {
    const { manifest } = await this.open(artifactId);
    return makeArtifactRef(artifactId, manifest.byteCount, manifest.sha256);
  }

  /**
   * The artifact a run record names, opened for verified reading with the manifest whose
   * digest the record kept (a sidecar with another digest is trusted only by a full
   * verification); `notAvailable` when this tenant has no bytes under its id, `digestMismatch`
   * when they are not the record's. The source reads the blob per call (no handle held).
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

  /** A stored artifact's trusted manifest and its digest (what a run record keeps to name it). */
  async manifestFor(artifactId: string): Promise<{ manifest: Manifest; manifestDigest: string }> {
    const { manifest } = await this.open(artifactId);
    return { manifest, manifestDigest: manifestDigest(manifest) };
  }

  /**
   * Full verification (O(size)): every chunk digest and the whole sha256. False on any
   * change anywhere, a changed size, vanished bytes or an untrusted manifest;
   * `artifactIdInvalid` / `notAvailable` for an id this tenant has nothing under.
   */
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

  /**
   * Removes an artifact (its bytes, its sidecar, and a copy left in the old layout); returns
   * the bytes freed, or undefined when this tenant had nothing under the id.
   */
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

  /** The blob key of artifact `artifact-<sha>` of this tenant (`sha` already validated). */
  private keyOf(sha: string): BlobKey {
    return { tenant: this.tenant, runId: ARTIFACTS_SEGMENT, callId: sha };
  }

  private remember(manifest: Manifest): ArtifactRef {
    this.trusted.set(manifest.sha256, manifest);
    return makeArtifactRef(`artifact-${manifest.sha256}`, manifest.byteCount, manifest.sha256);
  }

  /** The trusted manifest and a source over the bytes of a validated id stored under this tenant. */
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

  /**
   * See the module comment, "Trust": finds the bytes (migrating an old-layout file), checks and trusts their manifest.
   */
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
      // The sidecar names this artifact: a size other than its count is changed bytes.
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
      // No sidecar, or one of other bytes: rebuilt from the bytes when they hash to the id.
      trusted = await this.hashBlob(key, size);
      if (trusted.sha256 !== sha) throw new EvidenceError('digestMismatch');
      await this.blobs.put(manifestKeyOf(key), encodeManifest(trusted));
    }
    this.trusted.set(sha, trusted);
    return trusted;
  }

  /** The sidecar's bytes, or undefined when it is missing or implausibly large. */
  private async readSidecar(key: BlobKey): Promise<Uint8Array | undefined> {
    const mKey = manifestKeyOf(key);
    const size = await this.blobs.size(mKey);
    if (size === undefined || size > MAX_MANIFEST_BYTES) return undefined;
    return await readBlobRange(this.blobs, mKey, 0, size).catch((e: unknown) => {
      if (e instanceof EvidenceError && e.code === 'missing') return undefined;
      throw e;
    });
  }

  /** A fresh manifest of the stored bytes, hashed in bounded memory. */
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
   * Moves `artifact-<sha>` from the old layout into the blob store: streamed through the
   * verified writer, kept only when it hashes to its id (else removed again, the old file
   * left as it was, and `digestMismatch`); then the old file and its manifest are removed.
   * Undefined when there is no old file (not a regular file, a symlink: not one either).
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

  /**
   * The blob as a `RangeSource` (a local store's identity, descriptor and marks included,
   * for a pattern search); bytes gone from under the key are `notAvailable`, as an id that
   * was never stored is.
   */
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

/** Pieces of a stream, checked to be bytes (a producer of text would otherwise store its UTF-16 code units). */
async function* checkedPieces(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const piece of chunks) {
    if (!(piece instanceof Uint8Array)) throw new TypeError('putStream takes pieces of Uint8Array');
    yield piece;
  }
}

/** An old-layout file and its manifest (`.manifests/<id>.manifest` beside it), removed. */
async function removeLegacy(file: string): Promise<void> {
  await fsp.rm(file, { force: true });
  await fsp.rm(path.join(path.dirname(file), '.manifests', `${path.basename(file)}.manifest`), { force: true });
}

/** Where O_NOFOLLOW is missing (Windows), an lstat check stands in for it. */
const NOFOLLOW = fsc.O_NOFOLLOW ?? 0;
const NONBLOCK = fsc.O_NONBLOCK ?? 0;
/** Errors that mean "there is no regular file here we may read". */
const GONE = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR', 'EMLINK', 'ENXIO']);

/**
 * An old-layout file opened without following a symlink (and without hanging on a FIFO); undefined when there is none.
 */
async function openNoFollow(file: string): Promise<FileHandle | undefined> {
  try {
    if (NOFOLLOW === 0 && (await fsp.lstat(file)).isSymbolicLink()) return undefined;
    return await fsp.open(file, fsc.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if (GONE.has((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw new EvidenceError('backend', 'artifact store could not read the artifact');
  }
}

/**
 * `verifyAll` plus an explicit size check (for an empty manifest `streamVerified` reads no
 * range); bytes that vanish meanwhile are a failed verification.
 */
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
