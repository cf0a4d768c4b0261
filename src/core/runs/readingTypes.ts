/**
 * What `read_tool_output` takes and gives (docs/contracts.md §2.5): its arguments, its
 * result, its limits and per-call options, and the verified byte access behind a handle.
 * Types only, re-exported by `types.ts`; additive only.
 */
import type { StorageState } from './log/records.js';

/** Arguments of `read_tool_output` (docs/contracts.md §2.5); validated at run time as untrusted input. */
export interface ReadToolOutputArgs {
  /** 1–256 characters; anything not minted by the scope's runs is access denied. */
  readonly handle: string;
  /** >= 0, default 0: first line (lines mode) or first match (pattern mode) to return. */
  readonly offset?: number;
  /** 1–1000, default 200: lines or matches to return. */
  readonly limit?: number;
  /** A JavaScript regular expression (no flags), 1–1024 characters, tested per line. */
  readonly pattern?: string;
  /** A byte window `[start, end)` with the rules of docs/contracts.md §1.3. */
  readonly bytes?: { readonly start: number; readonly end: number };
}

/** One pattern match: where the matching line's first match is (docs/contracts.md §2.10). */
export interface ReadToolOutputMatch {
  /** 1-based line number, like `grep -n`. */
  readonly line_number: number;
  /** Offset of the match in the output, in bytes. */
  readonly byte_offset: number;
  /** 1-based byte column of the match in its line. */
  readonly column: number;
  /** Set when the line was too long to show whole: the output byte range [start, end) shown around the match. */
  readonly window?: { readonly start: number; readonly end: number };
}

/**
 * The reply of `read_tool_output`, exactly the contract's fields. `content`: lines mode,
 * the window's lines joined by `\n`; pattern mode, one `<line_number>:<line>` per match
 * joined by `\n`; bytes mode, the window's text. Empty for binary content.
 */
export interface ReadToolOutputResult {
  readonly handle: string;
  readonly binary: boolean;
  readonly total_size_bytes: number;
  readonly total_lines: number;
  readonly offset: number;
  readonly limit: number;
  readonly pattern: string | null;
  /** Matches in the whole output (pattern mode), else null. */
  readonly total_matches: number | null;
  readonly returned_lines: number;
  /** True when more remains after what was returned (lines, matches, bytes, or a cut line). */
  readonly truncated: boolean;
  readonly content: string;
  /** Pattern mode: one entry per returned match, in `content` order; else null. */
  readonly matches: readonly ReadToolOutputMatch[] | null;
  /**
   * Set when the output was cut at a capture cap: bytes [start, end) of `observed` were
   * kept, and every line, match and count in this reply is over those bytes only.
   */
  readonly kept_bytes?: { readonly start: number; readonly end: number; readonly observed: number };
  /** Bytes mode over binary content: the byte range [start, end) the hex dump in `content` shows. */
  readonly hex_dump?: { readonly start: number; readonly end: number };
}

/** Which runs a handle may resolve through (default: every run of the store's tenant). */
export interface ReadScope {
  /** Only handles minted by these runs resolve. */
  readonly runIds?: readonly string[];
}

/** Verified access to the bytes behind one handle (for the inspector and the editor). */
export interface HandleSource {
  readonly handle: string;
  readonly runId: string;
  readonly callId: string;
  /** `result` for `res_…`, else the attachment's name (`stdout`, `file:<name>`, …). */
  readonly name: string;
  readonly byteCount: number;
  readonly sha256: string;
  readonly binary: boolean;
  readonly contentType: string;
  readonly lineCount: number;
  readonly stored: StorageState;
  /**
   * The sparse line index recorded when the bytes were written: `\n` count per chunk of
   * `chunkSize` bytes. It is part of the manifest whose digest the record holds, so it is
   * as trustworthy as the chunk digests; readers use it instead of a counting pass
   * (absent on sources that have no manifest).
   */
  readonly newlineIndex?: { readonly chunkSize: number; readonly chunkNewlines: Uint32Array };
  /** Verified bytes `[start, end)` (raw, no UTF-8 requirement). */
  readRange(start: number, end: number): Promise<Uint8Array>;
  /** Verified bytes streamed in bounded pieces. */
  stream(start?: number, end?: number): AsyncIterable<Uint8Array>;
  /** Re-hashes everything: true when every byte matches the record. */
  verify(): Promise<boolean>;
  /** The team store the bytes are read from (docs/contracts.md §7.2); absent for this storage's. */
  readonly store?: string;
}

/** Bounds of a `read_tool_output` reply and its pattern guard. */
export interface ReaderLimits {
  /** At most this many characters of `content` (contract: 10,000). */
  readonly maxContentChars: number;
  /** At most this many characters per line, cut marker included (contract: 2,000). */
  readonly maxLineChars: number;
  /** Largest byte window `end - start` (8,192 by default). */
  readonly maxByteWindow: number;
  /** Time a pattern may spend on one piece (≤ 1 MiB) before the search is stopped (catastrophic backtracking). */
  readonly patternBudgetMs: number;
  /** Overall time limit of one pattern search, however large the output (default 30 s). */
  readonly searchTimeoutMs: number;
}

/** Per-call options of `readToolOutput`. */
export interface ReadOptions {
  /**
   * Aborting stops a pattern search (the model's cancellation, MCP `notifications/cancelled`, the inspector's Cancel).
   */
  readonly signal?: AbortSignal;
  /**
   * An overall deadline (epoch ms) this read shares with others (`evidence_search` spends
   * one time limit across every output): a pattern search's own limit is what remains of
   * it when that is less (docs/contracts.md §2.11).
   */
  readonly deadline?: number;
  /**
   * A larger cap on `content` for a front end that is not a model and keeps the reply to
   * page through it (the inspector reads a block of up to 1,000 matches once and serves
   * its pages of 50 from it). Never lowers the store's own cap; each line keeps its cap.
   */
  readonly maxContentChars?: number;
}
