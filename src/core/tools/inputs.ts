/**
 * The evidence tools' names, declared once, and the helpers every tool's validator uses.
 * Each tool's input type, schema and validator live in its own logic file (runCommand.ts,
 * readFile.ts, readToolOutput.ts, invokeTool.ts); the table (table.ts) gathers them. Every
 * front end runs the validators (the editor, which validates against the schema before
 * `invoke` but may be called by others such as the API, and the MCP server after its own
 * schema check), so an input the schema allows but a validator refuses gets the same
 * sentence everywhere: one the model can act on.
 */
import { isRecord } from '../json.js';

/** Tool names, exactly as the model sees them (package.json declares the same; a unit test compares them). */
export const EvidenceToolNames = {
  runCommand: 'evidence_runCommand',
  readFile: 'evidence_readFile',
  /** Reserved by the run contract (docs/contracts.md §2.2): no other tool may take this name. */
  readToolOutput: 'read_tool_output',
  invokeTool: 'evidence_invokeTool',
  search: 'evidence_search',
} as const;

/** A validated input, or the sentence that says what is wrong. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** The first key of `v` not in `allowed`. */
export function unknownKey(v: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(v).find((k) => !allowed.includes(k));
}

/** True for a safe integer in `[min, max]`. */
export function isInt(v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}

/** Every validator's prologue: an object with only the schema's keys. */
export function checkShape(
  v: unknown,
  tool: string,
  schema: { readonly properties: object },
): Checked<Record<string, unknown>> {
  if (!isRecord(v)) return { ok: false, error: 'input must be a JSON object' };
  const allowed = Object.keys(schema.properties);
  if (unknownKey(v, allowed) !== undefined)
    return { ok: false, error: `unknown input property; ${tool} accepts ${allowed.join(', ')}` };
  return { ok: true, value: v };
}
