/**
 * The store bounds content in characters, which can exceed 8 KiB once escaped, so a reply that would not fit is
 * halved until it does, without reading or searching again; `truncated` says so.
 */
import { isRecord } from '../json.js';
import { EvidenceError } from '../errors.js';
import type { ReadToolOutputArgs, ReadToolOutputResult, RunStoreApi } from '../runs/types.js';
import { checkShape, EvidenceToolNames, unknownKey, type Checked } from './inputs.js';
import { fitsModel } from './modelText.js';
import type { EvidenceToolDef, ToolInputSchema } from './toolDef.js';

export interface ReadToolOutputInput {
  handle: string;
  offset?: number;
  limit?: number;
  pattern?: string;
  bytes?: { start: number; end: number };
}

const schema = {
  type: 'object',
  properties: {
    handle: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'A handle from an evidence observation (res_..., out_...).',
    },
    offset: {
      type: 'integer',
      minimum: 0,
      description: 'First line (lines mode) or first match (pattern mode) to return, 0-based. Default 0.',
    },
    limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Lines or matches to return. Default 200.' },
    pattern: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: 'JavaScript regular expression tested against each line.',
    },
    bytes: {
      type: 'object',
      description: 'A byte window [start, end).',
      properties: { start: { type: 'integer', minimum: 0 }, end: { type: 'integer', minimum: 1 } },
      required: ['start', 'end'],
      additionalProperties: false,
    },
  } satisfies Record<keyof ReadToolOutputInput, object>,
  required: ['handle'],
  additionalProperties: false,
} as const satisfies ToolInputSchema;

/** The run store checks the contract's bounds itself, with the contract's sentences. */
export function checkReadToolOutput(v: unknown): Checked<ReadToolOutputInput> {
  const s = checkShape(v, EvidenceToolNames.readToolOutput, schema);
  if (!s.ok) return s;
  const { handle, offset, limit, pattern, bytes } = s.value;
  if (typeof handle !== 'string') return { ok: false, error: 'handle must be a string' };
  if (offset !== undefined && typeof offset !== 'number') return { ok: false, error: 'offset must be an integer >= 0' };
  if (limit !== undefined && typeof limit !== 'number')
    return { ok: false, error: 'limit must be an integer from 1 to 1000' };
  if (pattern !== undefined && typeof pattern !== 'string') return { ok: false, error: 'pattern must be a string' };
  if (
    bytes !== undefined &&
    (!isRecord(bytes) ||
      typeof bytes.start !== 'number' ||
      typeof bytes.end !== 'number' ||
      unknownKey(bytes, ['start', 'end']) !== undefined)
  ) {
    return { ok: false, error: 'bytes must be {"start": integer, "end": integer}' };
  }
  return {
    ok: true,
    value: {
      handle,
      ...(offset !== undefined ? { offset: offset as number } : {}),
      ...(limit !== undefined ? { limit: limit as number } : {}),
      ...(pattern !== undefined ? { pattern: pattern as string } : {}),
      ...(bytes !== undefined
        ? { bytes: { start: (bytes as { start: number }).start, end: (bytes as { end: number }).end } }
        : {}),
    },
  };
}

/** The model cannot act on it; the cause goes to the log. */
export const READ_STORAGE_FAILURE = 'error: the output could not be read (storage failure); try again later';

/** Store sentences are safe by contract. */
export function readError(e: unknown, onUnexpected: (e: unknown) => void): string {
  if (e instanceof EvidenceError) return `error: ${e.message}`;
  onUnexpected(e);
  return READ_STORAGE_FAILURE;
}

/** Never a second read: a pattern search over a large output runs once per call. */
export async function readFitted(
  runs: Pick<RunStoreApi, 'readToolOutput'>,
  args: ReadToolOutputArgs,
  maxRangeBytes: number,
  onUnexpected: (e: unknown) => void,
  signal?: AbortSignal,
): Promise<string> {
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
    const text = JSON.stringify(modelReply(r));
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
 * docs/contracts.md §2.5: leaves out what the call already said and what the reply shows; the next page starts at
 * `offset + matches.length`.
 */
function modelReply(r: ReadToolOutputResult): Partial<ReadToolOutputResult> {
  if (r.pattern === null) return r;
  return {
    ...(r.binary && { binary: true }),
    ...(r.kept_bytes && { kept_bytes: r.kept_bytes }),
    total_matches: r.total_matches,
    ...(r.truncated && { truncated: true }),
    content: r.content,
    matches: r.matches,
  };
}

/** A returned line or match never holds a `\n`. */
function firstLines(r: ReadToolOutputResult, keep: number): ReadToolOutputResult {
  return {
    ...r,
    limit: keep,
    returned_lines: keep,
    truncated: true,
    content: r.content.split('\n').slice(0, keep).join('\n'),
    matches: r.matches && r.matches.slice(0, keep),
  };
}

/** A read opens no run. */
export const readToolOutputTool: EvidenceToolDef<typeof EvidenceToolNames.readToolOutput, ReadToolOutputInput> = {
  name: EvidenceToolNames.readToolOutput,
  inputSchema: schema,
  check: checkReadToolOutput,
  hints: { readOnlyHint: true, openWorldHint: false },
  surfaces: { lm: true, mcp: true, participant: true },
  progress: (input) => {
    const what =
      input?.pattern !== undefined ? 'Searching' : input?.bytes !== undefined ? 'Reading bytes of' : 'Reading lines of';
    return `${what} ${String(input?.handle ?? '').slice(0, 80)}`;
  },
  async perform(ctx, input) {
    const text = await readFitted(
      ctx.handles ?? ctx.runs,
      input,
      ctx.settings.maxRangeBytes,
      (e) => ctx.log('read_tool_output failed', e),
      ctx.signal,
    );
    return { text, status: 'completed' };
  },
};
