/**
 * `evidence_invokeTool` (docs/contracts.md §3.3). Only the editor has a tool registry, so it performs the call
 * (src/extension/tools).
 */
import { isRecord } from '../json.js';
import { checkShape, EvidenceToolNames, type Checked } from './inputs.js';
import type { EvidenceToolDef, ToolInputSchema } from './toolDef.js';

export interface InvokeToolInput {
  name: string;
  input: object;
}

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 256, description: 'The name of the tool to invoke.' },
    input: { type: 'object', description: "The tool's input, matching its own input schema." },
  } satisfies Record<keyof InvokeToolInput, object>,
  required: ['name', 'input'],
  additionalProperties: false,
} as const satisfies ToolInputSchema;

export function checkInvokeTool(v: unknown): Checked<InvokeToolInput> {
  const s = checkShape(v, EvidenceToolNames.invokeTool, schema);
  if (!s.ok) return s;
  const { name, input } = s.value;
  if (typeof name !== 'string' || name.length === 0 || name.length > 256)
    return { ok: false, error: 'name must be the name of a registered tool' };
  if (!isRecord(input)) return { ok: false, error: "input must be a JSON object (the tool's own input)" };
  return { ok: true, value: { name, input } };
}

/** No `perform`: the editor supplies it. */
export const invokeToolTool: EvidenceToolDef<typeof EvidenceToolNames.invokeTool, InvokeToolInput> = {
  name: EvidenceToolNames.invokeTool,
  inputSchema: schema,
  check: checkInvokeTool,
  hints: { readOnlyHint: false, openWorldHint: true },
  surfaces: { lm: true, mcp: false, participant: false },
  progress: (input) => `Invoking ${String(input?.name ?? '').slice(0, 80)} and recording its result`,
};
