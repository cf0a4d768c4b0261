/**
 * Limits of a process outside the editor, named and bounded as the editor's settings, so an agent there sees the same
 * bounded observations.
 */
import type { Preservation } from '../core/index.js';
import type { PackageDeclarations, SettingDeclaration } from './packageJson.js';

export const INTEGER_SETTINGS = [
  'maxInlineBytes',
  'previewBytes',
  'maxRangeBytes',
  'largeResultBytes',
  'captureCapBytes',
  'commandTimeoutMs',
  'searchTimeoutMs',
] as const;

export type DeclaredSettings = { readonly [K in (typeof INTEGER_SETTINGS)[number]]: number } & {
  readonly preservation: Preservation;
};

export function flagOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function declared(declarations: PackageDeclarations, key: string): SettingDeclaration {
  const d = declarations.settings.get(key);
  if (!d) throw new Error(`package.json does not declare boundedEvidence.${key}`);
  return d;
}

/** The editor clamps a hand-edited value, but a flag given on purpose deserves an answer. */
export function resolveSettings(
  declarations: PackageDeclarations,
  overrides: Partial<DeclaredSettings> = {},
): DeclaredSettings {
  const out: Record<string, number | string> = {};
  for (const key of INTEGER_SETTINGS) {
    const d = declared(declarations, key);
    const v = overrides[key] ?? d.default;
    const min = d.minimum ?? 1;
    const max = d.maximum ?? Number.MAX_SAFE_INTEGER;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
      throw new Error(`--${flagOf(key)} must be an integer from ${min} to ${max}`);
    }
    out[key] = v;
  }
  const p = declared(declarations, 'preservation');
  const preservation = overrides.preservation ?? p.default;
  if (typeof preservation !== 'string' || !(p.enum ?? []).includes(preservation))
    throw new Error(`--preservation must be one of ${(p.enum ?? []).join(', ')}`);
  out.preservation = preservation;
  return out as unknown as DeclaredSettings;
}
