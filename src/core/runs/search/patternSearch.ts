/**
 * Pattern mode of `read_tool_output` (docs/contracts.md §2.10). A regular expression cannot be interrupted on its own
 * thread, so matching runs in a worker, fed from a local file by descriptor (`fileSearch.ts`) or from verified
 * windows in shared slots (`slotSearch.ts`). No byte is used before it is verified; a piece over its budget
 * terminates the worker, so a catastrophic pattern fails instead of hanging the extension host.
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

/** The caller reports syntax errors. In every stop the worker is terminated. */
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

const LITERAL_CHECK_MAX_BYTES = 64 * 1024;

/**
 * Then there is no match and no worker is asked: `evidence_search` over many small outputs spent most of its time in
 * worker round trips (docs/contracts.md §2.11). `indexOf` is linear, so safe on this thread whatever the pattern.
 */
async function lacksRequiredLiteral(
  source: RangeSource,
  manifest: Manifest,
  options: PatternSearchOptions,
): Promise<boolean> {
  if (options.binary || manifest.byteCount === 0 || manifest.byteCount > LITERAL_CHECK_MAX_BYTES) return false;
  const literal = requiredLiteral(options.pattern);
  // U+FFFD may stand for bytes that are not its UTF-8 encoding.
  if (literal === null || literal.includes('\uFFFD')) return false;
  const bytes = await readVerified(source, manifest, 0, manifest.byteCount);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(Buffer.from(literal, 'utf8')) === -1;
}
