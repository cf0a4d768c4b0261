/**
 * The evidence tools' names and input types, mirroring their `inputSchema` in
 * package.json exactly (a unit test compares the property lists), and validators that
 * turn untrusted input into those types. Both front ends run them: the editor (which
 * validates against the schema before `invoke`, but other callers such as the API may
 * not) and the MCP server (after its schema check), so an input the schema allows but a
 * validator refuses gets the same sentence on both sides: one the model can act on.
 */

/** Tool names, exactly as the model sees them (must match package.json). */
export const EvidenceToolNames = {
  runCommand: 'evidence_runCommand',
  readFile: 'evidence_readFile',
  /** Reserved by the run contract (2.2): no other tool may take this name. */
  readToolOutput: 'read_tool_output',
  invokeTool: 'evidence_invokeTool',
} as const;


/** `evidence_runCommand` input. */
export interface RunCommandInput {
  /** The shell command line, run with /bin/sh -c. */
  command: string;
  /** Working directory relative to the workspace folder. */
  cwd?: string;
  /** Kill the process tree after this many milliseconds. */
  timeoutMs?: number;
}

/** `evidence_readFile` input. */
export interface ReadFileInput {
  /** Workspace-relative path, or `.tool-artifacts/<artifact_id>/bytes/<start>-<end>`. */
  path: string;
}

/** `read_tool_output` input (docs/contracts.md §2.5). */
export interface ReadToolOutputInput {
  handle: string;
  offset?: number;
  limit?: number;
  pattern?: string;
  bytes?: { start: number; end: number };
}

/** `evidence_invokeTool` input. */
export interface InvokeToolInput {
  /** The tool to invoke. */
  name: string;
  /** Its input. */
  input: object;
}

/** Property names of each schema, in package.json order (checked by a unit test). */
export const InputProperties = {
  [EvidenceToolNames.runCommand]: ['command', 'cwd', 'timeoutMs'],
  [EvidenceToolNames.readFile]: ['path'],
  [EvidenceToolNames.readToolOutput]: ['handle', 'offset', 'limit', 'pattern', 'bytes'],
  [EvidenceToolNames.invokeTool]: ['name', 'input'],
} as const satisfies {
  [EvidenceToolNames.runCommand]: readonly (keyof RunCommandInput)[];
  [EvidenceToolNames.readFile]: readonly (keyof ReadFileInput)[];
  [EvidenceToolNames.readToolOutput]: readonly (keyof ReadToolOutputInput)[];
  [EvidenceToolNames.invokeTool]: readonly (keyof InvokeToolInput)[];
};

/** A validated input, or the sentence that says what is wrong. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unknownKey(v: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(v).find((k) => !allowed.includes(k));
}

function isInt(v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}

/** Shared prologue: an object with only the schema's keys. */
function checkShape(v: unknown, tool: keyof typeof InputProperties): Checked<Record<string, unknown>> {
  if (!isObject(v)) return { ok: false, error: 'input must be a JSON object' };
  const extra = unknownKey(v, InputProperties[tool]);
  if (extra !== undefined) return { ok: false, error: `unknown input property; ${tool} accepts ${InputProperties[tool].join(', ')}` };
  return { ok: true, value: v };
}

/** Validates `evidence_runCommand` input. */
export function checkRunCommand(v: unknown): Checked<RunCommandInput> {
  const s = checkShape(v, EvidenceToolNames.runCommand);
  if (!s.ok) return s;
  const { command, cwd, timeoutMs } = s.value;
  if (typeof command !== 'string' || command.trim() === '' || command.length > 8192) return { ok: false, error: 'command must be a non-empty string of at most 8192 characters' };
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd.length > 1024)) return { ok: false, error: 'cwd must be a relative folder path' };
  if (timeoutMs !== undefined && !isInt(timeoutMs, 1, 3_600_000)) return { ok: false, error: 'timeoutMs must be an integer from 1 to 3600000' };
  return { ok: true, value: { command, ...(cwd !== undefined ? { cwd: cwd as string } : {}), ...(timeoutMs !== undefined ? { timeoutMs: timeoutMs as number } : {}) } };
}

/** Validates `evidence_readFile` input. */
export function checkReadFile(v: unknown): Checked<ReadFileInput> {
  const s = checkShape(v, EvidenceToolNames.readFile);
  if (!s.ok) return s;
  const p = s.value.path;
  if (typeof p !== 'string' || p.length === 0 || p.length > 4096) return { ok: false, error: 'path must be a non-empty relative path' };
  return { ok: true, value: { path: p } };
}

/**
 * Validates `read_tool_output` input's shape only; the run store checks the contract's
 * bounds itself (its sentences are the contract's).
 */
export function checkReadToolOutput(v: unknown): Checked<ReadToolOutputInput> {
  const s = checkShape(v, EvidenceToolNames.readToolOutput);
  if (!s.ok) return s;
  const { handle, offset, limit, pattern, bytes } = s.value;
  if (typeof handle !== 'string') return { ok: false, error: 'handle must be a string' };
  if (offset !== undefined && typeof offset !== 'number') return { ok: false, error: 'offset must be an integer >= 0' };
  if (limit !== undefined && typeof limit !== 'number') return { ok: false, error: 'limit must be an integer from 1 to 1000' };
  if (pattern !== undefined && typeof pattern !== 'string') return { ok: false, error: 'pattern must be a string' };
  if (bytes !== undefined && (!isObject(bytes) || typeof bytes.start !== 'number' || typeof bytes.end !== 'number' || unknownKey(bytes, ['start', 'end']) !== undefined)) {
    return { ok: false, error: 'bytes must be {"start": integer, "end": integer}' };
  }
  return {
    ok: true,
    value: {
      handle,
      ...(offset !== undefined ? { offset: offset as number } : {}),
      ...(limit !== undefined ? { limit: limit as number } : {}),
      ...(pattern !== undefined ? { pattern: pattern as string } : {}),
      ...(bytes !== undefined ? { bytes: { start: (bytes as { start: number }).start, end: (bytes as { end: number }).end } } : {}),
    },
  };
}

/** Validates `evidence_invokeTool` input. */
export function checkInvokeTool(v: unknown): Checked<InvokeToolInput> {
  const s = checkShape(v, EvidenceToolNames.invokeTool);
  if (!s.ok) return s;
  const { name, input } = s.value;
  if (typeof name !== 'string' || name.length === 0 || name.length > 256) return { ok: false, error: 'name must be the name of a registered tool' };
  if (!isObject(input)) return { ok: false, error: 'input must be a JSON object (the tool\'s own input)' };
  return { ok: true, value: { name, input } };
}
