/**
 * The physical blob layer: adapters that keep bytes under a validated `BlobKey`.
 *
 * Adapters know nothing of manifests, handles or runs: they store and return bytes.
 * Verification (chunk digests, sizes) happens one level up, in `verifiedBlobs.ts`, over
 * the `RangeSource` that `readInto`/`size` provide. Every adapter passes the one shared
 * contract suite in test/unit/core/blobs/blobStoreContract.ts. An adapter has one read method,
 * `readInto` (the caller owns the buffer, so a long verified scan reuses one); `readRange`
 * below allocates for callers that want a fresh array.
 */
import type { OpenedFile } from '../integrity/integrity.js';
import type { VerifiedMarks } from '../integrity/verifiedMarks.js';
import type { BlobKey } from './blobKey.js';

/** Which backend an adapter talks to. */
type BlobStoreKind = 'filesystem' | 'memory' | 's3';

/** A backend that keeps bytes by `BlobKey`; the tenant is part of every physical address. */
export interface BlobStore {
  /** Which backend this is (for reports; behaviour never depends on it). */
  readonly kind: BlobStoreKind;
  /**
   * Stores `body` under `key`, replacing what was there. Streamed bodies are written as
   * they arrive, in bounded memory. Atomic where the backend allows: a failed put never
   * leaves a partial object under the key (filesystem: temp file + rename; S3: one
   * PutObject or a completed multipart upload). A local file store also returns the
   * identity of the file it wrote (as `identity` below), taken once the file is in place:
   * the writer then marks its chunks verified (docs/contracts.md §1.1).
   */
  put(key: BlobKey, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<{ sizeBytes: number; identity?: string }>;
  /** Stored size in bytes, or undefined when nothing is stored under the key. */
  size(key: BlobKey): Promise<number | undefined>;
  /**
   * Copies the stored bytes from `start` into `target` (from index 0), at most
   * `target.length` of them, fetched with the backend's own range support (file
   * positions, an S3 `Range:` header), never a full download. Returns how many were
   * copied: fewer when the object ends sooner (0 past its end). Throws
   * `EvidenceError('missing')` when nothing is stored under the key.
   */
  readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number>;
  /**
   * Optional: the stored file's identity (device, inode, size, mtime and ctime in
   * nanoseconds) for the verified-chunk cache; only a local file store has one
   * (docs/contracts.md §1.1).
   */
  identity?(key: BlobKey): Promise<string | undefined>;
  /**
   * Optional: the stored file opened for reading (undefined when nothing is stored), for a
   * pattern search's worker to read by descriptor; only a local file store has one
   * (docs/contracts.md §2.10).
   */
  openFile?(key: BlobKey): Promise<OpenedFile | undefined>;
  /**
   * Optional: the marks of whole verified files this store keeps on disk for one tenant,
   * read and written by every process that opens the store; only a local file store has
   * them (docs/contracts.md §1.1, "Marks kept on disk").
   */
  verifiedMarks?(tenant: string): VerifiedMarks;
  /**
   * Moves the bytes stored under `from` to `to`, replacing what `to` held; `from` is gone
   * afterwards. Atomic where the backend allows (filesystem: one rename; S3: a server-side
   * copy, then the delete). Throws `EvidenceError('missing')` when nothing is stored under
   * `from`. A local file store returns the moved file's identity, taken once it is in
   * place (a rename changes its ctime), as `put` does. It is how a stream whose key is
   * only known at its end (a content-addressed artifact: docs/contracts.md §1.1) is kept
   * without a second copy.
   */
  move(from: BlobKey, to: BlobKey): Promise<{ identity?: string }>;
  /**
   * Optional: a local folder, on the stored files' own disk, where a writer of `key` may
   * keep scratch files while it puts it (a streamed put's chunk tables: verifiedBlobs.ts
   * `putVerifiedStream`); only a local file store has one (the key's own folder).
   */
  scratchDir?(key: BlobKey): string;
  /** Removes one object (no error when it is already gone). */
  delete(key: BlobKey): Promise<void>;
  /** Removes every object of one run of one tenant. */
  deleteRun(tenant: string, runId: string): Promise<void>;
  /** Releases what the adapter holds (an S3 client's sockets); stores on disk or in memory have nothing to release. */
  dispose?(): void;
}

/** Bytes `[start, end)` as stored, in a fresh array (fewer when the object ends sooner). */
export async function readRange(store: BlobStore, key: BlobKey, start: number, end: number): Promise<Uint8Array> {
  const out = new Uint8Array(Math.max(0, end - start));
  return out.subarray(0, await store.readInto(key, start, out));
}
