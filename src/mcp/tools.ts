/**
 * The evidence tools over MCP, with no editor API: each call is checked against the
 * schema the table publishes (its own sentences, `error: input does not match …`), then
 * run by the core's call runner exactly as the editor runs it (src/core/tools): the same
 * validators, working-directory rules, recording and model-facing text. A call opens a
 * run of its own (labelled `mcp run: …` / `mcp read: …`), as the editor does for a call
 * no participant announced (docs/contracts.md §4).
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
import type { DeclaredSettings } from '../node/settings.js';

/** Hints for MCP clients (which decide whether to ask before a call): the table's. */
export function annotationsOf(name: McpToolName): ToolAnnotations {
  return { ...EvidenceToolTable[name].hints };
}

/** What the tools work on. */
export interface ToolContext {
  readonly runs: RunStore;
  /** Where `read_tool_output` resolves handles: `runs`, then the team stores (undefined: `runs` alone). */
  readonly handles?: HandleReader;
  /** The team stores' run stores, which `evidence_search` also searches. */
  readonly searchAlso?: () => Promise<readonly RunStore[]>;
  readonly artifacts: ArtifactStore;
  /** The folder commands run in and files are read from. */
  readonly local: LocalWorkspace;
  readonly settings: DeclaredSettings;
  /** The server's log (stderr): causes of failures the model only hears about as a fixed sentence. */
  readonly log: (line: string) => void;
}

/** The evidence tools, vscode-free; `call` answers every call with the model's text. */
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
    // Built (and its limits checked) once here, so that a bad limit fails at start-up rather than in a call.
    this.files = EvidenceFileWorkspace.create(ctx.local, ctx.artifacts, ctx.settings);
  }

  /** True for the names this server serves. */
  has(name: string): name is McpToolName {
    return this.validators.has(name);
  }

  /**
   * Validates and runs one call; `signal` aborts a command (killing its process group). The answer is bounded as the
   * editor bounds it.
   */
  async call(name: McpToolName, input: unknown, signal: AbortSignal): Promise<CallAnswer> {
    const schema = this.validators.get(name)!(input);
    // Ajv names the value `data` ("data/timeoutMs must be >= 1"); the model knows it as its input.
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
