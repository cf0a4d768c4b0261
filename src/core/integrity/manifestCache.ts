/** Content-addressed, so an entry is never stale: a rewritten manifest has another digest. */
import { Lru } from '../lru.js';
import type { Manifest } from './integrity.js';

export class ManifestCache {
  private readonly entries: Lru<string, Manifest>;

  constructor(maxBytes = 16 * 1024 * 1024) {
    this.entries = new Lru({ maxWeight: maxBytes, weigh: sizeOf, keepNewest: true });
  }

  get(digest: string): Manifest | undefined {
    return this.entries.get(digest);
  }

  set(digest: string, m: Manifest): void {
    if (!this.entries.has(digest)) this.entries.set(digest, m);
  }

  delete(digest: string): void {
    this.entries.delete(digest);
  }
}

function sizeOf(m: Manifest): number {
  return m.chunkDigests.length + m.chunkNewlines.byteLength + 128;
}
