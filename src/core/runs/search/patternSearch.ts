/**
 * Pattern mode of `read_tool_output`, guarded against catastrophic backtracking: the
 * entry (docs/contracts.md §2.10). Pure pattern analysis lives in `patternAnalysis.ts`,
 * the matching in `patternWorker.ts` (its own bundle, `dist/patternWorker.js`, started by
 * `workerPool.ts`), the messages between them in `patternProtocol.ts`.
 *
 * A JavaScript regular expression cannot be interrupted on the thread that runs it, so
 * matching runs in a worker thread, fed one of two ways:
 * - a local file (`RangeSource.openFile`, the filesystem blob store): `fileSearch.ts`, a
 *   worker reads the file itself by descriptor and matches each piece while it is in cache;
 * - any other source (S3, memory): `slotSearch.ts`, verified windows in shared slots.
 * Either way no byte is used before it is verified; a piece the worker has not finished
 * `budgetMs` after it could start on it terminates the worker and the search fails with
 * `pattern search timed out …` instead of hanging the extension host. The whole search
 * also has one overall limit (`timeoutMs`) and honours an AbortSignal.
 */
import { EvidenceError } from '../../errors.js';
import { readVerified, type Manifest, type RangeSource } from '../../integrity/integrity.js';
import { searchFile } from './fileSearch.js';
import { requiredLiteral } from './patternAnalysis.js';
import type { PatternSearchResult } from './patternProtocol.js';
import { SEARCH_CANCELLED_MESSAGE } from './searchErrors.js';
import type { PatternSearchOptions } from './searchSetup.js';
import { searchSlots } from './slotSearch.js';

export { cannotMatchNewline, requiredLiteral } from './patternAnalysis.js';
export type { PatternMatch, PatternSearchResult } from './patternProtocol.js';
export { PATTERN_TIMEOUT_MESSAGE, SEARCH_CANCELLED_MESSAGE, SearchDeadlineError } from './searchErrors.js';
export { MAX_MATCH_LINE_BYTES, type PatternSearchOptions } from './searchSetup.js';

/**
 * Streams the verified content through a matching worker. The pattern must already be
 * known to compile (the caller reports syntax errors). Stops with an `invalidArgument`
 * error when one piece takes longer than `budgetMs` (catastrophic backtracking), when the
 * whole search passes `timeoutMs`, or when `signal` aborts (docs/contracts.md, reader
 * section); in every case the worker is terminated.
 */
export async function searchPattern(
  source: RangeSource,
  manifest: Manifest,
  options: PatternSearchOptions,
): Promise<PatternSearchResult> {
  if (options.signal?.aborted) throw new EvidenceError('invalidArgument', SEARCH_CANCELLED_MESSAGE);
  if (await lacksRequiredLiteral(source, manifest, options)) return { totalMatches: 0, matches: [], cut: false };
  const file = manifest.byteCount > 0 ? await source.openFile?.() : undefined;
  if (!file) return searchSlots(source, manifest, options);
  try {
    return await searchFile(file, manifest, options, source.verifiedMarks);
  } finally {
    await file.close();
  }
}

/** Outputs up to this size are first checked for the pattern's required literal on this thread. */
const LITERAL_CHECK_MAX_BYTES = 64 * 1024;

/**
 * True when a small text output (every byte read and verified here) does not contain the
 * literal every match of the pattern must contain (`requiredLiteral`, sound by
 * construction): it then has no match, and no worker is asked. `evidence_search` over
 * thousands of small outputs spent most of its time in worker round trips for outputs
 * that could not match (docs/contracts.md §2.11). The check is `indexOf` over the bytes
 * — linear, so safe on this thread whatever the pattern; text content is valid UTF-8, so
 * a line containing the literal contains its UTF-8 bytes. Binary content is searched
 * as bytes by other rules and is not checked here.
 */
async function lacksRequiredLiteral(
  source: RangeSource,
  manifest: Manifest,
  options: PatternSearchOptions,
): Promise<boolean> {
  if (options.binary || manifest.byteCount === 0 || manifest.byteCount > LITERAL_CHECK_MAX_BYTES) return false;
  const literal = requiredLiteral(options.pattern);
  // U+FFFD may stand for bytes that are not its UTF-8 encoding (a decoder's replacement).
  if (literal === null || literal.includes('\uFFFD')) return false;
  const bytes = await readVerified(source, manifest, 0, manifest.byteCount);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(Buffer.from(literal, 'utf8')) === -1;
}
