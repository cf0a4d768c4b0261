/**
 * Streamed capture of one output, in bounded memory whatever its size: at most `inlineMaxBytes` plus one piece is
 * held before deciding inline or not, then pieces flow straight to the store (docs/contracts.md §2.10). A cap's cut
 * moves back to a code-point boundary so capped text stays text.
 */
import type { BlobKey } from '../../blobs/blobKey.js';
import type { BlobStore } from '../../blobs/blobStore.js';
import { putVerifiedStream } from '../../blobs/verifiedBlobs.js';
import { ManifestBuilder, type ManifestSummary } from '../../integrity/integrity.js';
import { floorCodePointBoundary } from '../../utf8.js';
import { lineCountOf } from './decisions.js';
import { ErrorScan, type ErrorScanResult } from '../errorLines/errorLines.js';
import type { StorageState } from '../log/records.js';

export interface CaptureOptions {
  readonly store?: BlobStore;
  readonly key: BlobKey;
  readonly inlineMaxBytes: number;
  /** Infinity: no cap. */
  readonly capBytes: number;
  readonly previewBytes: number;
  /** Return false to abandon the output (`stopped: true`). */
  readonly onNeedStore?: () => boolean;
  /** docs/contracts.md §2.13: text outputs. */
  readonly scanErrors?: boolean;
}

export interface Captured {
  readonly stored: StorageState;
  readonly sizeBytes: number;
  /** Read so far, when `stopped`. */
  readonly observedBytes: number;
  readonly truncated: boolean;
  readonly sha256: string;
  readonly manifestDigest?: string;
  readonly inlineBytes?: Uint8Array;
  readonly head: Uint8Array;
  readonly tail: Uint8Array;
  readonly lineCount: number;
  readonly binary: boolean;
  readonly stopped: boolean;
  /** When asked and the bytes are text. */
  readonly errorScan?: ErrorScanResult;
}

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
 * Errors propagate (the caller records a failure); the source is closed whenever capture stops early, so a child's
 * pipe is released.
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
    // Hold up to inlineMaxBytes (+ one piece) to decide inline vs not.
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
      const put = await putVerifiedStream(options.store, options.key, rest());
      return result(tap, 'blob', put.summary, { manifestDigest: put.manifestDigest });
    }
    if (options.onNeedStore && !options.onNeedStore()) {
      const b = new ManifestBuilder(undefined, { tables: false });
      for (const h of held) b.update(h);
      return { ...result(tap, 'preview_only', b.end(), {}), stopped: true };
    }
    // Nothing is stored: the chunk tables would never be used.
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

/** So in-memory results take the same path as streams. */
export async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.length) yield bytes;
}
