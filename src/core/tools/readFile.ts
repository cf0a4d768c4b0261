/**
 * `evidence_readFile` replies as a model receives them, from any front end: the bounded
 * evidence workspace's text, plus the search hint when the recorded call has a handle,
 * with two refusals made actionable. Pure text decisions, no I/O.
 */
import { OBSERVATION_PREFIX, RANGE_PREFIX } from '../evidenceWorkspace.js';
import { searchHint } from '../runs/observation.js';
import { fitsModel, utf8Bytes } from './modelText.js';

/**
 * The final text of one read: `modelText` from the bounded workspace, `handle` the one the
 * run layer gave the recorded call (if any), `relPath` the path as the model gave it.
 */
export function readFileReply(modelText: string, handle: string | undefined, relPath: string): string {
  if (modelText.startsWith(OBSERVATION_PREFIX) && handle) return `${modelText}\n${searchHint(handle)}`;
  if (/^error: file exceeds \d+ bytes$/.test(modelText)) {
    // Too large to read into memory here, but not too large to keep: say how.
    return `${modelText}; capture it with evidence_runCommand (for example: cat ${JSON.stringify(relPath)}) and search it with read_tool_output`;
  }
  if (modelText.startsWith(RANGE_PREFIX) && !fitsModel(modelText)) {
    // A range of control characters grows up to 6x when JSON-escaped.
    return `error: this range would exceed 8 KiB once JSON-escaped (${utf8Bytes(modelText)} bytes); request a smaller range`;
  }
  return modelText;
}
