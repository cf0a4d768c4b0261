/**
 * Adapters only store and return bytes; verification happens one level up, in `verifiedBlobs.ts`. Every adapter
 * passes test/unit/core/blobs/blobStoreContract.ts.
 */
import type { OpenedFile } from '../integrity/integrity.js';
import type { VerifiedMarks } from '../integrity/verifiedMarks.js';
import type { BlobKey } from './blobKey.js';

type BlobStoreKind = 'filesystem' | 'memory' | 's3';

export interface BlobStore {
  /** For reports; behaviour never depends on it. */
  readonly kind: BlobStoreKind;
  /**
   * Atomic where the backend allows: a failed put never leaves a partial object. A local file store returns the
   * identity of the file it wrote, so the writer can mark its chunks verified (docs/contracts.md §1.1).
   */
  put(key: BlobKey, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<{ sizeBytes: number; identity?: string }>;
  size(key: BlobKey): Promise<number | undefined>;
  /**
   * The caller owns the buffer so a long verified scan reuses one; ranged, never a full download. Throws
   * `EvidenceError('missing')` when nothing is stored.
   */
  readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number>;
  /** For the verified-chunk cache; only a local file store has one (docs/contracts.md §1.1). */
  identity?(key: BlobKey): Promise<string | undefined>;
  /** For a pattern search's worker to read by descriptor (docs/contracts.md §2.10). */
  openFile?(key: BlobKey): Promise<OpenedFile | undefined>;
  /** Marks of whole verified files kept on disk (docs/contracts.md §1.1). */
  verifiedMarks?(tenant: string): VerifiedMarks;
  /**
   * How a stream whose key is known only at its end is kept without a second copy. A local file store returns the
   * identity after the rename, which changes ctime.
   */
  move(from: BlobKey, to: BlobKey): Promise<{ identity?: string }>;
  /** Scratch files of a streamed put, on the stored files' own disk. */
  scratchDir?(key: BlobKey): string;
  /** No error when it is already gone. */
  delete(key: BlobKey): Promise<void>;
  deleteRun(tenant: string, runId: string): Promise<void>;
  dispose?(): void;
}

export async function readRange(store: BlobStore, key: BlobKey, start: number, end: number): Promise<Uint8Array> {
  const out = new Uint8Array(Math.max(0, end - start));
  return out.subarray(0, await store.readInto(key, start, out));
}
