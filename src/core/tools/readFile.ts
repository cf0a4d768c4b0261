/**
 * `evidence_readFile` (docs/contracts.md §3.3): its input, and its replies as a model
 * receives them from any front end: the bounded evidence workspace's text, plus the
 * search hint when the recorded call has a handle, with two refusals made actionable.
 * The call itself is `readFileRecorded` (fileReads.ts).
 */
import { OBSERVATION_PREFIX, RANGE_PREFIX, VIRTUAL_PREFIX } from '../evidenceWorkspace.js';
import { searchHint } from '../runs/observation.js';
import { readFileRecorded } from './fileReads.js';
import { checkShape, EvidenceToolNames, type Checked } from './inputs.js';
import { fitsModel, utf8Bytes } from './modelText.js';
import type { EvidenceToolDef, ToolInputSchema } from './toolDef.js';

/** `evidence_readFile` input. */
export interface ReadFileInput {
  /** Workspace-relative path, or `.tool-artifacts/<artifact_id>/bytes/<start>-<end>`. */
  path: string;
}

const schema = {
  type: 'object',
  properties: {
    path: {
      type: 'string', minLength: 1, maxLength: 4096,
      description: 'Path relative to the workspace folder, or a virtual range path .tool-artifacts/<artifact_id>/bytes/<start>-<end>.',
    },
  } satisfies Record<keyof ReadFileInput, object>,
  required: ['path'],
  additionalProperties: false,
} as const satisfies ToolInputSchema;

/** Validates `evidence_readFile` input. */
export function checkReadFile(v: unknown): Checked<ReadFileInput> {
  const s = checkShape(v, EvidenceToolNames.readFile, schema);
  if (!s.ok) return s;
  const p = s.value.path;
  if (typeof p !== 'string' || p.length === 0 || p.length > 4096) return { ok: false, error: 'path must be a non-empty relative path' };
  return { ok: true, value: { path: p } };
}

/** The table's entry. */
export const readFileTool: EvidenceToolDef<typeof EvidenceToolNames.readFile, ReadFileInput> = {
  name: EvidenceToolNames.readFile,
  inputSchema: schema,
  check: checkReadFile,
  hints: { readOnlyHint: true, openWorldHint: false },
  surfaces: { lm: true, mcp: true, participant: true },
  progress: (input) => {
    const p = typeof input?.path === 'string' ? input.path : '';
    return p.startsWith(VIRTUAL_PREFIX) ? 'Reading an exact byte range' : `Reading ${p.replace(/`/g, "'").slice(0, 80)}`;
  },
  async perform(ctx, input, openRun) {
    const files = ctx.files;
    if (!files) return { text: 'error: no folder is open; open a folder to read its files', status: 'failed' };
    // Recording is best-effort: a read is answered even when its run cannot start (a full disk, docs/contracts.md §5.6).
    const run = await openRun('read', input.path).catch((e: unknown) => { ctx.log('a read was not recorded (its run could not start); it was answered without a handle', e); return undefined; });
    return { text: await readFileRecorded(files, ctx, run, input.path, (line) => ctx.log(line, undefined)), status: 'completed' };
  },
};

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
