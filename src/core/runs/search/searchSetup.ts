import type { Manifest } from '../../integrity/integrity.js';
import type { MatcherSetup } from './patternProtocol.js';

export interface PatternSearchOptions {
  readonly pattern: string;
  readonly offset: number;
  readonly limit: number;
  readonly maxLineChars: number;
  readonly maxContentChars: number;
  readonly budgetMs: number;
  readonly cutMarker: string;
  readonly binary?: boolean;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** @internal Longest line prefix the worker keeps for matching. */
export const MAX_MATCH_LINE_BYTES = 1024 * 1024;

/** The unit the worker acknowledges and the time budget covers. */
const PIECE_BYTES = 1024 * 1024;

export function setupOf(manifest: Manifest, options: PatternSearchOptions): MatcherSetup {
  return {
    pattern: options.pattern,
    offset: options.offset,
    limit: options.limit,
    maxLineChars: options.maxLineChars,
    maxContentChars: options.maxContentChars,
    maxLineBytes: MAX_MATCH_LINE_BYTES,
    cutMarker: options.cutMarker,
    binary: options.binary ?? false,
    chunkSize: manifest.chunkSize,
    chunkNewlines: manifest.chunkNewlines,
  };
}

/** Whole chunks, since verification is per chunk; at most 16, so small chunks (tests) make many pieces. */
export function pieceBytesOf(manifest: Manifest, target = PIECE_BYTES): number {
  const cs = manifest.chunkSize;
  return Math.max(1, Math.min(16, Math.floor(target / cs))) * cs;
}
