/** For tests and hosts with nothing to persist. */
import { EvidenceError } from '../errors.js';
import { blobKeyPath, assertSafeSegment, type BlobKey } from './blobKey.js';
import type { BlobStore } from './blobStore.js';

export class MemoryBlobStore implements BlobStore {
  readonly kind = 'memory' as const;
  private readonly objects = new Map<string, Uint8Array>();

  /** A failed stream leaves the old value. */
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

  async size(key: BlobKey): Promise<number | undefined> {
    return this.objects.get(blobKeyPath(key))?.length;
  }

  async readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number> {
    const bytes = this.objects.get(blobKeyPath(key));
    if (!bytes) throw new EvidenceError('missing', 'stored bytes are missing');
    const piece = bytes.subarray(Math.min(start, bytes.length), Math.min(start + target.length, bytes.length));
    target.set(piece);
    return piece.length;
  }

  async move(from: BlobKey, to: BlobKey): Promise<Record<string, never>> {
    const source = blobKeyPath(from);
    const target = blobKeyPath(to);
    const bytes = this.objects.get(source);
    if (!bytes) throw new EvidenceError('missing', 'stored bytes are missing');
    this.objects.delete(source);
    this.objects.set(target, bytes);
    return {};
  }

  async delete(key: BlobKey): Promise<void> {
    this.objects.delete(blobKeyPath(key));
  }

  async deleteRun(tenant: string, runId: string): Promise<void> {
    const prefix = `${assertSafeSegment('tenant', tenant)}/${assertSafeSegment('runId', runId)}/`;
    for (const address of [...this.objects.keys()]) if (address.startsWith(prefix)) this.objects.delete(address);
  }

  /** Test hook: to tamper with the stored bytes. */
  rawObject(key: BlobKey): Uint8Array | undefined {
    return this.objects.get(blobKeyPath(key));
  }

  /** Test hook: simulates tampering. */
  setRawObject(key: BlobKey, bytes: Uint8Array): void {
    this.objects.set(blobKeyPath(key), bytes);
  }
}
