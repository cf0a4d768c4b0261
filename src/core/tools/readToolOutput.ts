/**
 * `read_tool_output` replies as a model receives them, from any front end. The store
 * bounds content to 10,000 characters, which can exceed 8 KiB of UTF-8 once escaped, so
 * a lines or pattern window that would not fit is asked again with half the limit (the
 * reply then says `truncated`, and `offset + returned_lines` is where to continue). A
 * byte window is capped by `maxRangeBytes` with docs/contracts.md §1.3's sentence.
 */
import { EvidenceError } from '../errors.js';
import type { ReadToolOutputArgs, RunStoreApi } from '../runs/types.js';
import { fitsModel } from './modelText.js';

/** The answer to a read that failed for a reason the model cannot act on (the cause goes to the log). */
export const READ_STORAGE_FAILURE = 'error: the output could not be read (storage failure); try again later';

/** The model-facing sentence of a read failure (store sentences are safe by contract); anything else is reported to `onUnexpected`. */
export function readError(e: unknown, onUnexpected: (e: unknown) => void): string {
  if (e instanceof EvidenceError) return `error: ${e.message}`;
  onUnexpected(e);
  return READ_STORAGE_FAILURE;
}

/** Reads a window and shrinks it until its JSON fits the model limit; `error: …` otherwise. */
export async function readFitted(runs: Pick<RunStoreApi, 'readToolOutput'>, args: ReadToolOutputArgs, maxRangeBytes: number, onUnexpected: (e: unknown) => void): Promise<string> {
  const b = args.bytes;
  if (b && Number.isSafeInteger(b.start) && Number.isSafeInteger(b.end) && b.end - b.start > maxRangeBytes) {
    return `error: artifact range exceeds ${maxRangeBytes} bytes`;
  }
  let limit = args.limit;
  for (;;) {
    let text: string;
    try {
      text = JSON.stringify(await runs.readToolOutput(limit === undefined ? args : { ...args, limit }));
    } catch (e) {
      return readError(e, onUnexpected);
    }
    if (fitsModel(text)) return text;
    const current = limit ?? 200;
    if (b || current <= 1 || !Number.isSafeInteger(current)) {
      return b
        ? 'error: this byte window would exceed 8 KiB once JSON-escaped; request a smaller window'
        : 'error: this line is too long to show within 8 KiB; read it with a byte window ("bytes")';
    }
    limit = Math.max(1, Math.floor(current / 2));
  }
}
