/**
 * Tool names and the helpers every validator uses. Every front end runs the validators, so an input the schema allows
 * but a validator refuses gets the same actionable sentence everywhere.
 */
import { isRecord } from '../json.js';

/** A unit test compares them with package.json. */
export const EvidenceToolNames = {
  runCommand: 'evidence_runCommand',
  readFile: 'evidence_readFile',
  /** Reserved by the run contract (docs/contracts.md §2.2). */
  readToolOutput: 'read_tool_output',
  invokeTool: 'evidence_invokeTool',
  search: 'evidence_search',
} as const;

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export function unknownKey(v: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(v).find((k) => !allowed.includes(k));
}

export function isInt(v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}

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
