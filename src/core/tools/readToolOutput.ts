/**
 * `read_tool_output` replies as a model receives them, from any front end. The store
 * bounds content to 10,000 characters, which can exceed 8 KiB of UTF-8 once escaped, so
 * a lines or pattern reply that would not fit keeps its first half, then its first
 * quarter… (the reply then says `truncated`, and `offset + returned_lines` is where to
 * continue), without reading or searching again. A
 * byte window is capped by `maxRangeBytes` with docs/contracts.md §1.3's sentence.
 */
import { EvidenceError } from '../errors.js';
import type { ReadToolOutputArgs, ReadToolOutputResult, RunStoreApi } from '../runs/types.js';
import { fitsModel } from './modelText.js';

/** The answer to a read that failed for a reason the model cannot act on (the cause goes to the log). */
export const READ_STORAGE_FAILURE = 'error: the output could not be read (storage failure); try again later';

/** The model-facing sentence of a read failure (store sentences are safe by contract); anything else is reported to `onUnexpected`. */
export function readError(e: unknown, onUnexpected: (e: unknown) => void): string {
  if (e instanceof EvidenceError) return `error: ${e.message}`;
  onUnexpected(e);
  return READ_STORAGE_FAILURE;
}

/**
 * Reads a window once and shrinks the reply until its JSON fits the model limit;
 * `error: …` otherwise. Shrinking halves the returned lines or matches of the reply in
 * hand (never a second read: a pattern search over a large output runs once per call);
 * `signal` stops a pattern search (docs/contracts.md, reader section).
 */
export async function readFitted(runs: Pick<RunStoreApi, 'readToolOutput'>, args: ReadToolOutputArgs, maxRangeBytes: number, onUnexpected: (e: unknown) => void, signal?: AbortSignal): Promise<string> {
  const b = args.bytes;
  if (b && Number.isSafeInteger(b.start) && Number.isSafeInteger(b.end) && b.end - b.start > maxRangeBytes) {
    return `error: artifact range exceeds ${maxRangeBytes} bytes`;
  }
  let r: ReadToolOutputResult;
  try {
    r = await runs.readToolOutput(args, undefined, signal && { signal });
  } catch (e) {
    return readError(e, onUnexpected);
  }
  for (;;) {
    const text = JSON.stringify(r);
    if (fitsModel(text)) return text;
    if (b || r.returned_lines <= 1) {
      return b
        ? 'error: this byte window would exceed 8 KiB once JSON-escaped; request a smaller window'
        : 'error: this line is too long to show within 8 KiB; read it with a byte window ("bytes")';
    }
    r = firstLines(r, Math.floor(r.returned_lines / 2));
  }
}

/**
 * The reply as if `limit` had been `keep`: its first `keep` lines or matches (a returned
 * line or match never holds a `\n`: lines are split on it, binary matches are escaped).
 */
function firstLines(r: ReadToolOutputResult, keep: number): ReadToolOutputResult {
  return {
    ...r, limit: keep, returned_lines: keep, truncated: true,
    content: r.content.split('\n').slice(0, keep).join('\n'),
    matches: r.matches && r.matches.slice(0, keep),
  };
}
