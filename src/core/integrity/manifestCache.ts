/**
 * The one cache of trusted manifests: the blob layer keys it by the sha256 of the
 * serialised manifest (content-addressed, so an entry is never stale: a rewritten manifest
 * has another digest); the artifact store keeps its own instance keyed by the artifact's
 * sha256 (reads still check size and chunks). Least recently used evicted first once the
 * decoded manifests exceed a byte budget.
 */
import type { Manifest } from './integrity.js';

/** Verified manifests by `manifestDigest`, LRU by bytes. */
export class ManifestCache {
  private readonly entries = new Map<string, Manifest>();
  private bytes = 0;

  constructor(private readonly maxBytes = 16 * 1024 * 1024) {}

  /** The manifest whose serialisation hashed to `digest`, if cached. */
  get(digest: string): Manifest | undefined {
    const m = this.entries.get(digest);
    if (m) {
      this.entries.delete(digest);
      this.entries.set(digest, m);
    }
    return m;
  }

  /** Remembers a verified manifest. */
  set(digest: string, m: Manifest): void {
    if (this.entries.has(digest)) return;
    this.entries.set(digest, m);
    this.bytes += sizeOf(m);
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes || k === digest) break;
      this.entries.delete(k);
      this.bytes -= sizeOf(v);
    }
  }

  /** Forgets one entry (the artifact store's own cache, keyed by the artifact's sha256, forgets a deleted artifact). */
  delete(digest: string): void {
    const m = this.entries.get(digest);
    if (!m) return;
    this.entries.delete(digest);
    this.bytes -= sizeOf(m);
  }
}

function sizeOf(m: Manifest): number {
  return m.chunkDigests.length + m.chunkNewlines.byteLength + 128;
}
