/**
 * The errors a pattern search stops with (docs/contracts.md §2.10): the time guard, the
 * overall time limit, a cancellation, a worker that failed.
 */
import { EvidenceError } from '../../errors.js';

/** Message of the time guard. */
export const PATTERN_TIMEOUT_MESSAGE =
  'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern';

/** Message of a search stopped by its overall time limit (`timeoutMs`). */
function searchDeadlineMessage(timeoutMs: number, searchedBytes: number, totalBytes: number): string {
  return (
    `pattern search stopped at its time limit (${timeoutMs} ms) after ${searchedBytes} of ${totalBytes} bytes; ` +
    `no partial count is given; ` +
    `use a more specific pattern or raise the search time limit`
  );
}

/**
 * A search stopped by its time limit: an `invalidArgument` like every stop the caller can
 * act on, told apart by its class so `evidence_search` can end with a partial answer
 * (docs/contracts.md §2.11) rather than fail.
 */
export class SearchDeadlineError extends EvidenceError {
  constructor(timeoutMs: number, searchedBytes: number, totalBytes: number) {
    super('invalidArgument', searchDeadlineMessage(timeoutMs, searchedBytes, totalBytes));
  }
}

/** Message of a search its caller cancelled. */
export const SEARCH_CANCELLED_MESSAGE = 'pattern search cancelled';

/** A worker's failure as the caller sees it. */
export function patternFailure(message: string, failure: Error | undefined): EvidenceError {
  // Out of memory in the isolate (resourceLimits) reads like a timeout to the model: the pattern is too costly.
  if (failure && /memory/i.test(failure.message)) return new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE);
  return new EvidenceError('backend', `pattern search failed: ${message}`);
}
