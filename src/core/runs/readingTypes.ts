/** What `read_tool_output` takes and gives (docs/contracts.md §2.5). Additive only. */
import type { StorageState } from './log/records.js';

/** Validated at run time as untrusted input. */
export interface ReadToolOutputArgs {
  /** Anything not minted by the scope's runs is access denied. */
  readonly handle: string;
  readonly offset?: number;
  readonly limit?: number;
  readonly pattern?: string;
  readonly bytes?: { readonly start: number; readonly end: number };
}

export interface ReadToolOutputMatch {
  /** 1-based, like `grep -n`. */
  readonly line_number: number;
  readonly byte_offset: number;
  readonly column: number;
  /** Set when the line was too long to show whole. */
  readonly window?: { readonly start: number; readonly end: number };
}

/** Exactly the contract's fields; `content` is empty for binary content. */
export interface ReadToolOutputResult {
  readonly handle: string;
  readonly binary: boolean;
  readonly total_size_bytes: number;
  readonly total_lines: number;
  readonly offset: number;
  readonly limit: number;
  readonly pattern: string | null;
  readonly total_matches: number | null;
  readonly returned_lines: number;
  readonly truncated: boolean;
  readonly content: string;
  readonly matches: readonly ReadToolOutputMatch[] | null;
  /** Set when the output was cut at a capture cap: every line, match and count is over the kept bytes only. */
  readonly kept_bytes?: { readonly start: number; readonly end: number; readonly observed: number };
  readonly hex_dump?: { readonly start: number; readonly end: number };
}

export interface ReadScope {
  readonly runIds?: readonly string[];
}

export interface HandleSource {
  readonly handle: string;
  readonly runId: string;
  readonly callId: string;
  /** `result` for `res_…`, else the attachment's name. */
  readonly name: string;
  readonly byteCount: number;
  readonly sha256: string;
  readonly binary: boolean;
  readonly contentType: string;
  readonly lineCount: number;
  readonly stored: StorageState;
  /**
   * Part of the manifest whose digest the record holds, so as trustworthy as the chunk digests: readers skip a
   * counting pass.
   */
  readonly newlineIndex?: { readonly chunkSize: number; readonly chunkNewlines: Uint32Array };
  readRange(start: number, end: number): Promise<Uint8Array>;
  stream(start?: number, end?: number): AsyncIterable<Uint8Array>;
  verify(): Promise<boolean>;
  /** The team store the bytes are read from (docs/contracts.md §7.2); absent for this storage's. */
  readonly store?: string;
}

export interface ReaderLimits {
  readonly maxContentChars: number;
  /** Cut marker included. */
  readonly maxLineChars: number;
  readonly maxByteWindow: number;
  /** Per piece of at most 1 MiB: stops catastrophic backtracking. */
  readonly patternBudgetMs: number;
  readonly searchTimeoutMs: number;
}

export interface ReadOptions {
  readonly signal?: AbortSignal;
  /** `evidence_search` spends one time limit across every output (docs/contracts.md §2.11). */
  readonly deadline?: number;
  /** For a front end that pages through the reply itself (the inspector); never lowers the store's own cap. */
  readonly maxContentChars?: number;
}
