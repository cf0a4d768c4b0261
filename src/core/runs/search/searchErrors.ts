import { EvidenceError } from '../../errors.js';

export const PATTERN_TIMEOUT_MESSAGE =
  'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern';

function searchDeadlineMessage(timeoutMs: number, searchedBytes: number, totalBytes: number): string {
  return (
    `pattern search stopped at its time limit (${timeoutMs} ms) after ${searchedBytes} of ${totalBytes} bytes; ` +
    `no partial count is given; ` +
    `use a more specific pattern or raise the search time limit`
  );
}

/** Told apart by its class so `evidence_search` can end with a partial answer (docs/contracts.md §2.11). */
export class SearchDeadlineError extends EvidenceError {
  constructor(timeoutMs: number, searchedBytes: number, totalBytes: number) {
    super('invalidArgument', searchDeadlineMessage(timeoutMs, searchedBytes, totalBytes));
  }
}

export const SEARCH_CANCELLED_MESSAGE = 'pattern search cancelled';

export function patternFailure(message: string, failure: Error | undefined): EvidenceError {
  // Out of memory in the isolate reads like a timeout to the model: the pattern is too costly.
  if (failure && /memory/i.test(failure.message)) return new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE);
  return new EvidenceError('backend', `pattern search failed: ${message}`);
}
