/**
 * The evidence tools over MCP: each call is checked against the published schema, then run by the core's call runner
 * exactly as the editor runs it (docs/contracts.md §4).
 */
import type { JsonSchemaType, JsonSchemaValidator, ToolAnnotations } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import {
  EvidenceFileWorkspace,
  EvidenceToolTable,
  runToolCall,
  type ArtifactStore,
  type CallAnswer,
  type HandleReader,
  type LocalWorkspace,
  type RunStore,
} from '../core/index.js';
import { MCP_TOOL_NAMES, type McpToolName } from '../node/packageJson.js';
import type { DeclaredSettings } from '../node/resolveSettings.js';

export function annotationsOf(name: McpToolName): ToolAnnotations {
  return { ...EvidenceToolTable[name].hints };
}

export interface ToolContext {
  readonly runs: RunStore;
  readonly handles?: HandleReader;
  readonly searchAlso?: () => Promise<readonly RunStore[]>;
  readonly artifacts: ArtifactStore;
  readonly local: LocalWorkspace;
  readonly settings: DeclaredSettings;
  readonly log: (line: string) => void;
}

export class EvidenceTools {
  private readonly validators = new Map<string, JsonSchemaValidator<Record<string, unknown>>>();
  private readonly files: EvidenceFileWorkspace;

  constructor(private readonly ctx: ToolContext) {
    const ajv = new AjvJsonSchemaValidator();
    for (const name of MCP_TOOL_NAMES)
      this.validators.set(
        name,
        ajv.getValidator<Record<string, unknown>>(EvidenceToolTable[name].inputSchema as unknown as JsonSchemaType),
      );
    // So a bad limit fails at start-up rather than in a call.
    this.files = EvidenceFileWorkspace.create(ctx.local, ctx.artifacts, ctx.settings);
  }

  has(name: string): name is McpToolName {
    return this.validators.has(name);
  }

  async call(name: McpToolName, input: unknown, signal: AbortSignal): Promise<CallAnswer> {
    const schema = this.validators.get(name)!(input);
    // Ajv names the value `data`; the model knows it as its input.
    if (!schema.valid) {
      return {
        text:
          `error: input does not match the ${name} ` +
          `schema: ${schema.errorMessage.replace(/(^|, )data(?=[/ ])/g, '$1input')}`,
        isError: true,
      };
    }
    const log = (message: string, e: unknown): void =>
      this.ctx.log(`${message}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return await runToolCall(
      name,
      schema.data,
      {
        runs: this.ctx.runs,
        ...(this.ctx.handles && { handles: this.ctx.handles }),
        ...(this.ctx.searchAlso && { searchAlso: this.ctx.searchAlso }),
        artifacts: this.ctx.artifacts,
        files: this.files,
        folder: this.ctx.local.root,
        settings: this.ctx.settings,
        signal,
        log,
      },
      { labelPrefix: 'mcp ', source: { kind: 'mcp' } },
    );
  }
}
