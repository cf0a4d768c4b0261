/**
 * The messages between `patternSearch.ts` (orchestration, main thread) and
 * `patternWorker.ts` (matching, worker thread): types (and the start mark) only, so neither side imports the
 * other's code. See docs/contracts.md §2.10.
 */

/** The worker's `workerData`: the worker module wires its port only when started with it. */
export const PATTERN_WORKER_MARK = 'bounded-evidence/pattern-worker';

/** One match as the reader reports it. */
export interface PatternMatch {
  /** 1-based line number, like `grep -n`. */
  readonly line_number: number;
  /** Offset in the output of the line's first match (bytes, like `grep -b -o`). */
  readonly byte_offset: number;
  /** 1-based byte column of that match in its line (like `rg --column`). */
  readonly column: number;
  /**
   * The line as shown: whole when it fits the per-line bound, else a window around the
   * match (`…` before it when the line starts earlier, the cut marker after it when the
   * line goes on). Binary content: bytes escaped (`\xNN`, `\\`).
   */
  readonly text: string;
  /** Set when `text` is a window: the output byte range [start, end) it shows. */
  readonly window?: { readonly start: number; readonly end: number };
}

/** What one search returns. */
export interface PatternSearchResult {
  /** Matching lines in the whole content. */
  readonly totalMatches: number;
  /** The returned page of matches, each line already cut to the limit. */
  readonly matches: readonly PatternMatch[];
  /** True when a returned line was cut or the content budget stopped the page early. */
  readonly cut: boolean;
}

/** Everything the matcher needs for one search (plain data: it crosses the thread boundary). */
export interface MatcherSetup {
  readonly pattern: string;
  readonly offset: number;
  readonly limit: number;
  readonly maxLineChars: number;
  readonly maxContentChars: number;
  /**
   * Longest line tested whole; a longer line is tested in windows of this many bytes
   * overlapping by a quarter (`windowOverlap`), so memory stays bounded on any line.
   */
  readonly maxLineBytes: number;
  /** Binary content: searched as bytes (latin1, `grep -a`), shown escaped. */
  readonly binary: boolean;
  /** Appended to a line cut at `maxLineChars` (counted within it). */
  readonly cutMarker: string;
  /** The manifest's chunk size and per-chunk newline counts (verified with the digests). */
  readonly chunkSize: number;
  readonly chunkNewlines: ArrayLike<number>;
}

/** Main thread → worker. */
export type ToWorker =
  | { readonly type: 'search'; readonly setup: MatcherSetup; readonly slots: readonly SharedArrayBuffer[] }
  /** `length` verified bytes at `offset` in slot `slot`: content bytes from `start`. */
  | {
      readonly type: 'piece';
      readonly slot: number;
      readonly offset: number;
      readonly length: number;
      readonly start: number;
    }
  | { readonly type: 'end' }
  /**
   * A whole search over a local file, read by the worker itself from descriptor `fd`
   * (docs/contracts.md §2.10): `byteCount` bytes in pieces of `pieceBytes` (whole chunks).
   * Chunk `i` with bit `i` set in `hash` is hashed and compared with
   * `chunkDigests[32i, 32i + 32)` before its piece is matched. After each piece the worker
   * stores the number of pieces done in `progress[0]` (no message per piece).
   */
  | {
      readonly type: 'file';
      readonly setup: MatcherSetup;
      readonly fd: number;
      readonly byteCount: number;
      readonly pieceBytes: number;
      /**
       * The lane: bytes [from, to) (chunk boundaries); `startLine` lines end before `from`, and a
       * line running into `from` belongs to the lane before; with `finish`, the line still
       * pending at `to` is completed from the bytes after it.
       */
      readonly from: number;
      readonly to: number;
      readonly finish: boolean;
      readonly startLine: number;
      readonly hash: Uint8Array;
      readonly chunkDigests: Uint8Array;
      readonly progress: SharedArrayBuffer;
    };

/** Worker → main thread. */
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'ack' }
  | ({
      readonly type: 'done';
      /** Chunks the worker hashed (a `file` search). */
      readonly hashed?: number;
      /** The content budget stopped the page (a lane of a split search is merged by it). */
      readonly stoppedByBudget?: boolean;
    } & PatternSearchResult)
  /** A chunk of a `file` search differs from its digest, or the file is shorter than expected. */
  | { readonly type: 'mismatch' }
  | { readonly type: 'error'; readonly message: string };
