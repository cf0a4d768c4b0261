/**
 * What both ways of searching share: the options of one search, the matcher's parameters
 * and the size of a piece (the unit the worker acknowledges and the time budget covers).
 */
import type { Manifest } from '../../integrity/integrity.js';
import type { MatcherSetup } from './patternProtocol.js';

/** Parameters of one search. */
export interface PatternSearchOptions {
  readonly pattern: string;
  readonly offset: number;
  readonly limit: number;
  readonly maxLineChars: number;
  readonly maxContentChars: number;
  readonly budgetMs: number;
  /** Appended to a line cut at `maxLineChars` (counted within it). */
  readonly cutMarker: string;
  /** Binary content: matched as bytes (`grep -a`), shown escaped. */
  readonly binary?: boolean;
  /** Overall time limit of the whole search (none when absent). */
  readonly timeoutMs?: number;
  /** Aborting stops the search (the worker is terminated). */
  readonly signal?: AbortSignal;
}

/** @internal Longest line prefix the worker keeps for matching. */
export const MAX_MATCH_LINE_BYTES = 1024 * 1024;

/** Target size of a piece: the unit the worker acknowledges and the time budget covers. */
const PIECE_BYTES = 1024 * 1024;

/** The matcher's parameters for one search. */
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

/**
 * Pieces are whole chunks (verification is per chunk): `target` bytes at the default chunk
 * size, and never more than 16 chunks, so small chunks (tests) make many pieces.
 */
export function pieceBytesOf(manifest: Manifest, target = PIECE_BYTES): number {
  const cs = manifest.chunkSize;
  return Math.max(1, Math.min(16, Math.floor(target / cs))) * cs;
}
