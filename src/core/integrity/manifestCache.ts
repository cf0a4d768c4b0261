/**
 * The one cache of trusted manifests: the blob layer keys it by the sha256 of the
 * serialised manifest (content-addressed, so an entry is never stale: a rewritten manifest
 * has another digest); the artifact store keeps its own instance keyed by the artifact's
 * sha256 (reads still check size and chunks). Least recently used evicted first once the
 * decoded manifests exceed a byte budget.
 */
import { Lru } from '../lru.js';
import type { Manifest } from './integrity.js';

/** Verified manifests by `manifestDigest`, LRU by bytes. */
export class ManifestCache {
  private readonly entries: Lru<string, Manifest>;

  constructor(maxBytes = 16 * 1024 * 1024) {
    this.entries = new Lru({ maxWeight: maxBytes, weigh: sizeOf, keepNewest: true });
  }

  /** The manifest whose serialisation hashed to `digest`, if cached. */
  get(digest: string): Manifest | undefined {
    return this.entries.get(digest);
  }

  /** Remembers a verified manifest. */
  set(digest: string, m: Manifest): void {
    if (!this.entries.has(digest)) this.entries.set(digest, m);
  }

  /** Forgets one entry (the artifact store's own cache, keyed by the artifact's sha256, forgets a deleted artifact). */
  delete(digest: string): void {
    this.entries.delete(digest);
  }
}

function sizeOf(m: Manifest): number {
  return m.chunkDigests.length + m.chunkNewlines.byteLength + 128;
}
