/**
 * In-memory blob store: for tests and for hosts with nothing to persist. Keys are the
 * validated `tenant/runId/callId` address, so two tenants never share an entry.
 */
import { EvidenceError } from '../errors.js';
import { blobKeyPath, assertSafeSegment, type BlobKey } from './blobKey.js';
import type { BlobStore } from './blobStore.js';

/** A `BlobStore` over a Map; each instance is independent. */
export class MemoryBlobStore implements BlobStore {
  readonly kind = 'memory' as const;
  private readonly objects = new Map<string, Uint8Array>();

  /** Collects the body, then swaps it in at once (a failed stream leaves the old value). */
  async put(key: BlobKey, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<{ sizeBytes: number }> {
    const address = blobKeyPath(key);
    let bytes: Uint8Array;
    if (body instanceof Uint8Array) bytes = Uint8Array.from(body);
    else {
      const parts: Uint8Array[] = [];
      for await (const piece of body) parts.push(Uint8Array.from(piece));
      bytes = Buffer.concat(parts);
    }
    this.objects.set(address, bytes);
    return { sizeBytes: bytes.length };
  }

  /** Stored size, or undefined. */
  async size(key: BlobKey): Promise<number | undefined> {
    return this.objects.get(blobKeyPath(key))?.length;
  }

  /** Copies into the caller's buffer (callers never alias the stored bytes). */
  async readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number> {
    const bytes = this.objects.get(blobKeyPath(key));
    if (!bytes) throw new EvidenceError('missing', 'stored bytes are missing');
    const piece = bytes.subarray(Math.min(start, bytes.length), Math.min(start + target.length, bytes.length));
    target.set(piece);
    return piece.length;
  }

  /** Moves the entry (a missing one is `missing`). */
  async move(from: BlobKey, to: BlobKey): Promise<Record<string, never>> {
    const source = blobKeyPath(from);
    const target = blobKeyPath(to);
    const bytes = this.objects.get(source);
    if (!bytes) throw new EvidenceError('missing', 'stored bytes are missing');
    this.objects.delete(source);
    this.objects.set(target, bytes);
    return {};
  }

  /** Removes one object. */
  async delete(key: BlobKey): Promise<void> {
    this.objects.delete(blobKeyPath(key));
  }

  /** Removes every object under `tenant/runId/`. */
  async deleteRun(tenant: string, runId: string): Promise<void> {
    const prefix = `${assertSafeSegment('tenant', tenant)}/${assertSafeSegment('runId', runId)}/`;
    for (const address of [...this.objects.keys()]) if (address.startsWith(prefix)) this.objects.delete(address);
  }

  /** Test hook: the stored bytes themselves (to tamper with them). */
  rawObject(key: BlobKey): Uint8Array | undefined {
    return this.objects.get(blobKeyPath(key));
  }

  /** Test hook: replaces stored bytes without any check (simulates tampering). */
  setRawObject(key: BlobKey, bytes: Uint8Array): void {
    this.objects.set(blobKeyPath(key), bytes);
  }
}
