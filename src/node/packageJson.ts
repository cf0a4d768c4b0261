/**
 * The tools' texts and the settings' defaults and ranges as package.json declares them, so the MCP server publishes
 * exactly what the editor contributes. `require`d so esbuild inlines it: the bundle needs no file beside it.
 */

import {
  EvidenceToolTable,
  isRecord,
  toolNamesOffered,
  type EvidenceToolName,
  type ToolInputSchema,
} from '../core/index.js';

/** `evidence_invokeTool` needs the editor's tool registry. */
export const MCP_TOOL_NAMES: readonly EvidenceToolName[] = toolNamesOffered('mcp');

export type McpToolName = EvidenceToolName;

interface ToolDefinition {
  readonly name: McpToolName;
  readonly title: string;
  readonly description: string;
  /** Equal to package.json's, by a unit test. */
  readonly inputSchema: ToolInputSchema;
}

export interface SettingDeclaration {
  readonly default: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly string[];
}

export interface PackageDeclarations {
  readonly version: string;
  readonly tools: readonly ToolDefinition[];
  readonly settings: ReadonlyMap<string, SettingDeclaration>;
}

/** A package.json without these declarations is a build error, not a runtime case. */
function malformed(what: string): never {
  throw new Error(`package.json does not declare ${what}`);
}

function parsePackageJson(pkg: unknown): PackageDeclarations {
  if (!isRecord(pkg) || typeof pkg.version !== 'string' || !isRecord(pkg.contributes))
    return malformed('a version and contributes');
  const declared = pkg.contributes.languageModelTools;
  if (!Array.isArray(declared)) return malformed('contributes.languageModelTools');
  const tools = MCP_TOOL_NAMES.map((name): ToolDefinition => {
    const t: unknown = declared.find((d: unknown) => isRecord(d) && d.name === name);
    if (!isRecord(t) || typeof t.displayName !== 'string' || typeof t.modelDescription !== 'string') {
      return malformed(`the language model tool ${name}`);
    }
    return {
      name,
      title: t.displayName,
      description: t.modelDescription,
      inputSchema: EvidenceToolTable[name].inputSchema,
    };
  });
  const configuration = pkg.contributes.configuration;
  const properties =
    isRecord(configuration) && isRecord(configuration.properties)
      ? configuration.properties
      : malformed('contributes.configuration.properties');
  const settings = new Map<string, SettingDeclaration>();
  for (const [key, value] of Object.entries(properties)) {
    if (!key.startsWith('boundedEvidence.') || !isRecord(value)) continue;
    settings.set(key.slice('boundedEvidence.'.length), {
      default: value.default,
      ...(typeof value.minimum === 'number' ? { minimum: value.minimum } : {}),
      ...(typeof value.maximum === 'number' ? { maximum: value.maximum } : {}),
      ...(Array.isArray(value.enum) ? { enum: value.enum.filter((e): e is string => typeof e === 'string') } : {}),
    });
  }
  return { version: pkg.version, tools, settings };
}

export function packageDeclarations(): PackageDeclarations {
  // Allowed for this one file by eslint.config.mjs: a static require is what esbuild inlines.
  return parsePackageJson(require('../../package.json'));
}
