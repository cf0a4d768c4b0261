/**
 * Streamed capture of one output (a result, a command's stdout/stderr, a file) into
 * where it belongs: inline in the record, a verified blob, or only a preview.
 *
 * Memory is bounded whatever the output's size: at most `inlineMaxBytes` plus one piece
 * is held before the decision; after it, pieces flow straight to the blob store (or,
 * with no store, through a hash only), and the per-chunk tables of a stored output go to
 * disk as they fill (`putVerifiedStream`; docs/contracts.md §2.10, "Memory of a capture"). Bytes past the cap are read
 * and counted in `observedBytes` but not kept; the cut is moved back to a code-point boundary (at most three bytes) so
 * a capped text output stays text.
 */
import type { BlobKey } from '../../blobs/blobKey.js';
import type { BlobStore } from '../../blobs/blobStore.js';
import { putVerifiedStream } from '../../blobs/verifiedBlobs.js';
import { ManifestBuilder, type ManifestSummary } from '../../integrity/integrity.js';
import { floorCodePointBoundary } from '../../utf8.js';
import { lineCountOf } from './decisions.js';
import { ErrorScan, type ErrorScanResult } from '../errorLines/errorLines.js';
import type { StorageState } from '../log/records.js';

/** How to capture one output. */
export interface CaptureOptions {
  /** Where offloaded bytes go (undefined: no store). */
  readonly store?: BlobStore;
  /** The blob key used when the output goes to the store. */
  readonly key: BlobKey;
  /** Outputs of at most this many bytes stay inline. */
  readonly inlineMaxBytes: number;
  /** Bytes kept at most (Infinity: no cap). */
  readonly capBytes: number;
  /** Bytes of head and of tail remembered for the preview. */
  readonly previewBytes: number;
  /**
   * Called once when the output outgrows `inlineMaxBytes` and there is no store; return
   * false to stop capturing (the output is then abandoned: `stopped: true`).
   */
  readonly onNeedStore?: () => boolean;
  /** Look for error lines in the kept bytes as they pass (docs/contracts.md §2.13): text outputs. */
  readonly scanErrors?: boolean;
}

/** What was captured. */
export interface Captured {
  readonly stored: StorageState;
  /** Bytes kept. */
  readonly sizeBytes: number;
  /** Bytes the source produced (read so far, when `stopped`). */
  readonly observedBytes: number;
  readonly truncated: boolean;
  readonly sha256: string;
  readonly manifestDigest?: string;
  /** The kept bytes, when inline. */
  readonly inlineBytes?: Uint8Array;
  /** First `min(size, previewBytes)` kept bytes. */
  readonly head: Uint8Array;
  /** Last `min(size, previewBytes)` kept bytes. */
  readonly tail: Uint8Array;
  readonly lineCount: number;
  readonly binary: boolean;
  /** True when `onNeedStore` said to stop. */
  readonly stopped: boolean;
  /** The error-line scan of the kept bytes (when asked and the bytes are text). */
  readonly errorScan?: ErrorScanResult;
}

/** Counts, caps and remembers head/tail of a byte stream as it passes. */
class Tap {
  observed = 0;
  kept = 0;
  truncated = false;
  lastByte: number | undefined;
  head: Uint8Array = new Uint8Array(0);
  tail: Uint8Array = new Uint8Array(0);

  constructor(
    private readonly cap: number,
    private readonly previewBytes: number,
    readonly scan?: ErrorScan,
  ) {}

  /** Counts `piece` and returns the part of it that is kept (possibly empty). */
  take(piece: Uint8Array): Uint8Array {
    this.observed += piece.length;
    if (this.truncated) return piece.subarray(0, 0);
    let keep = piece;
    if (this.kept + piece.length > this.cap) {
      this.truncated = true;
      keep = piece.subarray(0, floorCodePointBoundary(piece, this.cap - this.kept));
    }
    if (keep.length === 0) return keep;
    this.kept += keep.length;
    this.lastByte = keep[keep.length - 1];
    this.scan?.push(keep);
    const p = this.previewBytes;
    if (this.head.length < p) this.head = Buffer.concat([this.head, keep.subarray(0, p - this.head.length)]);
    this.tail =
      keep.length >= p
        ? Uint8Array.from(keep.subarray(keep.length - p))
        : Buffer.concat([this.tail, keep]).subarray(-p);
    return keep;
  }
}

/**
 * Captures `source` per `options`. Errors of the source or the store propagate (the
 * caller records a failure); the source is closed (`return()`) whenever capture stops
 * early, so a child process's pipe is released.
 */
export async function captureOutput(source: AsyncIterable<Uint8Array>, options: CaptureOptions): Promise<Captured> {
  const tap = new Tap(
    options.capBytes,
    Math.max(0, options.previewBytes),
    options.scanErrors ? new ErrorScan() : undefined,
  );
  const it = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    // Phase 1: hold up to inlineMaxBytes (+ one piece) to decide inline vs not.
    const held: Uint8Array[] = [];
    let heldBytes = 0;
    let done = false;
    while (heldBytes <= options.inlineMaxBytes) {
      const r = await it.next();
      if (r.done) {
        done = true;
        break;
      }
      const kept = tap.take(r.value);
      if (kept.length) {
        held.push(Uint8Array.from(kept));
        heldBytes += kept.length;
      }
    }
    if (done) {
      finished = true;
      const bytes = Buffer.concat(held);
      const b = new ManifestBuilder(undefined, { tables: false });
      b.update(bytes);
      return result(tap, 'inline', b.end(), { inlineBytes: bytes });
    }
    // The rest of the stream, kept bytes only, after what is held.
    async function* rest(): AsyncGenerator<Uint8Array> {
      for (const h of held.splice(0)) yield h;
      for (;;) {
        const r = await it.next();
        if (r.done) {
          finished = true;
          return;
        }
        const kept = tap.take(r.value);
        if (kept.length) yield kept;
      }
    }
    if (options.store) {
      // Bounded memory whatever the size: the chunk tables go to disk as they fill (putVerifiedStream).
      const put = await putVerifiedStream(options.store, options.key, rest());
      return result(tap, 'blob', put.summary, { manifestDigest: put.manifestDigest });
    }
    if (options.onNeedStore && !options.onNeedStore()) {
      const b = new ManifestBuilder(undefined, { tables: false });
      for (const h of held) b.update(h);
      return { ...result(tap, 'preview_only', b.end(), {}), stopped: true };
    }
    // Nothing is stored: the chunk tables would never be used (none are kept).
    const b = new ManifestBuilder(undefined, { tables: false });
    for await (const piece of rest()) b.update(piece);
    return result(tap, 'preview_only', b.end(), {});
  } finally {
    if (!finished) await it.return?.();
  }
}

function result(
  tap: Tap,
  stored: StorageState,
  m: ManifestSummary,
  extra: { inlineBytes?: Uint8Array; manifestDigest?: string },
): Captured {
  return {
    stored,
    sizeBytes: m.byteCount,
    observedBytes: tap.observed,
    truncated: tap.truncated,
    sha256: m.sha256,
    manifestDigest: extra.manifestDigest,
    inlineBytes: extra.inlineBytes,
    head: tap.head,
    tail: tap.tail,
    lineCount: lineCountOf(m.newlines, m.byteCount, tap.lastByte),
    binary: !m.utf8,
    stopped: false,
    ...(tap.scan && m.utf8 ? { errorScan: tap.scan.end() } : {}),
  };
}

/** An async iterable of one buffer (so in-memory results take the same path as streams). */
export async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.length) yield bytes;
}
