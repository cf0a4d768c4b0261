/**
 * The editor's own declarations, read from package.json (`contributes`): the tools'
 * texts (title, model description) and the settings' defaults and ranges. Which tools,
 * their input schemas and annotations come from the core's table (src/core/tools/table.ts),
 * which a unit test proves equal to package.json's `languageModelTools`; so the MCP
 * server publishes exactly what the editor contributes and the two cannot drift apart.
 *
 * package.json is `require`d so that esbuild inlines it into dist/mcp.js: the bundle
 * needs no file beside it at run time, wherever it is started from.
 */

import {
  EvidenceToolTable,
  isRecord,
  toolNamesOffered,
  type EvidenceToolName,
  type ToolInputSchema,
} from '../core/index.js';

/**
 * The tools the MCP server offers: the table's `mcp` surface (`evidence_invokeTool` needs the editor's tool registry,
 * so it stays editor-only).
 */
export const MCP_TOOL_NAMES: readonly EvidenceToolName[] = toolNamesOffered('mcp');

/** One of `MCP_TOOL_NAMES`. */
export type McpToolName = EvidenceToolName;

/** A tool as package.json declares it for the editor's language model tools. */
interface ToolDefinition {
  readonly name: McpToolName;
  /** `displayName`. */
  readonly title: string;
  /** `modelDescription`: the text that teaches the model the workflow. */
  readonly description: string;
  /** The table's input schema (equal to package.json's `inputSchema`, by a unit test). */
  readonly inputSchema: ToolInputSchema;
}

/** A setting's declared default and range (`contributes.configuration`). */
export interface SettingDeclaration {
  readonly default: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly string[];
}

/** The parts of package.json the server reads. */
export interface PackageDeclarations {
  readonly version: string;
  readonly tools: readonly ToolDefinition[];
  /** By key relative to `boundedEvidence.` (e.g. `maxInlineBytes`). */
  readonly settings: ReadonlyMap<string, SettingDeclaration>;
}

/** Fails loudly at start-up: a package.json without these declarations is a build error, not a runtime case. */
function malformed(what: string): never {
  throw new Error(`package.json does not declare ${what}`);
}

/** Extracts the server's view of a parsed package.json; throws when a declaration is missing. */
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

/** The extension's package.json, parsed (inlined into the bundle by esbuild). */
export function packageDeclarations(): PackageDeclarations {
  // Allowed for this one file by eslint.config.mjs: a static require is what esbuild inlines.
  return parsePackageJson(require('../../package.json'));
}
