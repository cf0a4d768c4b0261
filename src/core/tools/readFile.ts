/** `evidence_readFile` (docs/contracts.md §3.3): its input and replies; the call itself is fileReads.ts. */
import { VIRTUAL_PREFIX } from '../workspace/evidenceWorkspace.js';
import { readFileRecorded } from './fileReads.js';
import { checkShape, EvidenceToolNames, type Checked } from './inputs.js';
import type { EvidenceToolDef, ToolInputSchema } from './toolDef.js';

export interface ReadFileInput {
  path: string;
}

const schema = {
  type: 'object',
  properties: {
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description:
        'Path relative to the workspace folder, or a virtual range path ' +
        '.tool-artifacts/<artifact_id>/bytes/<start>-<end>.',
    },
  } satisfies Record<keyof ReadFileInput, object>,
  required: ['path'],
  additionalProperties: false,
} as const satisfies ToolInputSchema;

export function checkReadFile(v: unknown): Checked<ReadFileInput> {
  const s = checkShape(v, EvidenceToolNames.readFile, schema);
  if (!s.ok) return s;
  const p = s.value.path;
  if (typeof p !== 'string' || p.length === 0 || p.length > 4096)
    return { ok: false, error: 'path must be a non-empty relative path' };
  return { ok: true, value: { path: p } };
}

export const readFileTool: EvidenceToolDef<typeof EvidenceToolNames.readFile, ReadFileInput> = {
  name: EvidenceToolNames.readFile,
  inputSchema: schema,
  check: checkReadFile,
  hints: { readOnlyHint: true, openWorldHint: false },
  surfaces: { lm: true, mcp: true, participant: true },
  progress: (input) => {
    const p = typeof input?.path === 'string' ? input.path : '';
    return p.startsWith(VIRTUAL_PREFIX)
      ? 'Reading an exact byte range'
      : `Reading ${p.replace(/`/g, "'").slice(0, 80)}`;
  },
  async perform(ctx, input, openRun) {
    const files = ctx.files;
    if (!files) return { text: 'error: no folder is open; open a folder to read its files', status: 'failed' };
    // Recording is best-effort: a read is answered even when its run cannot start (docs/contracts.md §5.6).
    const run = await openRun('read', input.path).catch((e: unknown) => {
      ctx.log('a read was not recorded (its run could not start); it was answered without a handle', e);
      return undefined;
    });
    return {
      ...(await readFileRecorded(files, ctx, run, input.path, (line) => ctx.log(line, undefined))),
      status: 'completed',
    };
  },
};
