/**
 * The physical blob layer: adapters that keep bytes under a validated `BlobKey`.
 *
 * Adapters know nothing of manifests, handles or runs: they store and return bytes.
 * Verification (chunk digests, sizes) happens one level up, in `verifiedBlobs.ts`, over
 * the `RangeSource` that `getRange`/`size` provide. Every adapter passes the one shared
 * contract suite in test/unit/blobs/blobStoreContract.ts.
 */
import type { BlobKey } from './blobKey.js';

/** Which backend an adapter talks to. */
export type BlobStoreKind = 'filesystem' | 'memory' | 's3';

/** A backend that keeps bytes by `BlobKey`; the tenant is part of every physical address. */
export interface BlobStore {
  /** Which backend this is (for reports; behaviour never depends on it). */
  readonly kind: BlobStoreKind;
  /**
   * Stores `body` under `key`, replacing what was there. Streamed bodies are written as
   * they arrive, in bounded memory. Atomic where the backend allows: a failed put never
   * leaves a partial object under the key (filesystem: temp file + rename; S3: one
   * PutObject or a completed multipart upload).
   */
  put(key: BlobKey, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<{ sizeBytes: number }>;
  /** Stored size in bytes, or undefined when nothing is stored under the key. */
  size(key: BlobKey): Promise<number | undefined>;
  /**
   * Bytes `[start, end)` as stored, fetched with the backend's own range support
   * (file positions, an S3 `Range:` header), never a full download. Returns fewer bytes
   * when the object is shorter; throws `EvidenceError('missing')` when it is gone.
   */
  getRange(key: BlobKey, start: number, end: number): Promise<Uint8Array>;
  /**
   * Optional: reads `[start, end)` into the caller's buffer and returns the byte count,
   * so a long verified scan reuses one buffer instead of allocating per window (the
   * filesystem store has it; others fall back to `getRange`).
   */
  getRangeInto?(key: BlobKey, start: number, end: number, target: Uint8Array): Promise<number>;
  /** Removes one object (no error when it is already gone). */
  delete(key: BlobKey): Promise<void>;
  /** Removes every object of one run of one tenant. */
  deleteRun(tenant: string, runId: string): Promise<void>;
}
