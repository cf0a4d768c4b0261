/** Types only, so neither side imports the other's code (docs/contracts.md §2.10). */

/** The worker module wires its port only when started with it. */
export const PATTERN_WORKER_MARK = 'bounded-evidence/pattern-worker';

export interface PatternMatch {
  readonly line_number: number;
  /** Like `grep -b -o`. */
  readonly byte_offset: number;
  /** Like `rg --column`. */
  readonly column: number;
  /** Whole when it fits the per-line bound, else a window around the match; binary bytes escaped. */
  readonly text: string;
  readonly window?: { readonly start: number; readonly end: number };
}

export interface PatternSearchResult {
  readonly totalMatches: number;
  readonly matches: readonly PatternMatch[];
  readonly cut: boolean;
}

/** Plain data: it crosses the thread boundary. */
export interface MatcherSetup {
  readonly pattern: string;
  readonly offset: number;
  readonly limit: number;
  readonly maxLineChars: number;
  readonly maxContentChars: number;
  /** A longer line is tested in overlapping windows, so memory stays bounded on any line. */
  readonly maxLineBytes: number;
  readonly binary: boolean;
  readonly cutMarker: string;
  /** Verified with the digests. */
  readonly chunkSize: number;
  readonly chunkNewlines: ArrayLike<number>;
}

export type ToWorker =
  | { readonly type: 'search'; readonly setup: MatcherSetup; readonly slots: readonly SharedArrayBuffer[] }
  | {
      readonly type: 'piece';
      readonly slot: number;
      readonly offset: number;
      readonly length: number;
      readonly start: number;
    }
  | { readonly type: 'end' }
  /**
   * A whole search over a local file, read by the worker itself from `fd` (docs/contracts.md §2.10). Progress goes
   * through `progress[0]`, not a message per piece.
   */
  | {
      readonly type: 'file';
      readonly setup: MatcherSetup;
      readonly fd: number;
      readonly byteCount: number;
      readonly pieceBytes: number;
      /** A line running into `from` belongs to the lane before. */
      readonly from: number;
      readonly to: number;
      readonly finish: boolean;
      readonly startLine: number;
      readonly hash: Uint8Array;
      readonly chunkDigests: Uint8Array;
      readonly progress: SharedArrayBuffer;
    };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'ack' }
  | ({
      readonly type: 'done';
      readonly hashed?: number;
      /** A lane of a split search is merged by it. */
      readonly stoppedByBudget?: boolean;
    } & PatternSearchResult)
  | { readonly type: 'mismatch' }
  | { readonly type: 'error'; readonly message: string };
