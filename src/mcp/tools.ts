/**
 * The three evidence tools over the core, with no editor API: each call is validated
 * against the schema package.json declares, recorded in a run of its own (as the editor
 * records a call no participant announced), and answered with the core's text, which
 * is exactly what the editor's tools show, because it is the same code (src/core/tools):
 * - `evidence_runCommand`: the run layer's command summary (stdout, stderr and the exit
 *   value as attachments with handles);
 * - `evidence_readFile`: the bounded evidence workspace's result, observation or virtual
 *   range reply (docs/contracts.md §1.2, §1.3), the full text recorded as the call's result;
 * - `read_tool_output`: the docs/contracts.md §2.5 reply as JSON fitted under 8 KiB, or the store's refusal.
 * Input is checked against the published schema first (its sentences), then by the
 * editor's validators (the same sentences as in the editor for what the schema allows).
 * Every failure is one `error: …` sentence: the store's own (safe by contract) or a fixed
 * one; the cause of an unexpected failure goes to the server's log, never to the model.
 */
import * as path from 'node:path';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
// Deep paths with `.js`: the bare subpaths resolve to ESM-only typings under Node16 CommonJS resolution.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  boundModelText, isStorageFull, STORAGE_FULL_RESULT, checkReadFile, checkReadToolOutput, checkRunCommand, EvidenceError, EvidenceFileWorkspace, readFileRecorded, readFitted, runLabel, ToolName,
  type ArtifactStore, type LocalWorkspace, type Run, type RunFinishStatus, type RunStore,
} from '../core/index.js';
import type { McpToolName, ToolDefinition } from './manifest.js';
import type { McpSettings } from './options.js';

/** Hints for MCP clients (which decide whether to ask before a call): only commands change anything. */
export const TOOL_ANNOTATIONS: Readonly<Record<McpToolName, ToolAnnotations>> = {
  evidence_runCommand: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  evidence_readFile: { readOnlyHint: true, openWorldHint: false },
  read_tool_output: { readOnlyHint: true, openWorldHint: false },
};

/** The answer to anything that fails for a reason the model cannot act on (details go to the log). */
export const STORAGE_FAILURE = 'error: the evidence storage failed; try again later';

/** What the tools work on. */
export interface ToolContext {
  readonly runs: RunStore;
  readonly artifacts: ArtifactStore;
  /** The folder commands run in and files are read from. */
  readonly local: LocalWorkspace;
  readonly settings: McpSettings;
  /** The server's log (stderr): causes of failures the model only hears about as `STORAGE_FAILURE`. */
  readonly log: (line: string) => void;
}

/** The evidence tools, vscode-free; `call` answers every call with the model's text. */
export class EvidenceTools {
  private readonly validators = new Map<string, JsonSchemaValidator<Record<string, unknown>>>();
  private readonly files: EvidenceFileWorkspace;

  constructor(private readonly ctx: ToolContext, definitions: readonly ToolDefinition[]) {
    const ajv = new AjvJsonSchemaValidator();
    for (const d of definitions) this.validators.set(d.name, ajv.getValidator<Record<string, unknown>>(d.inputSchema as JsonSchemaType));
    // Built (and its limits checked) once here, so that a bad limit fails at start-up rather than in a call.
    this.files = EvidenceFileWorkspace.create(ctx.local, ctx.artifacts, ctx.settings);
  }

  /** True for the names this server serves. */
  has(name: string): name is McpToolName {
    return this.validators.has(name);
  }

  /** Validates and runs one call; `signal` aborts a command (killing its process group). The answer is bounded as the editor bounds it. */
  async call(name: McpToolName, input: unknown, signal: AbortSignal): Promise<string> {
    return boundModelText(await this.answer(name, input, signal));
  }

  private async answer(name: McpToolName, input: unknown, signal: AbortSignal): Promise<string> {
    const schema = this.validators.get(name)!(input);
    // Ajv names the value `data` ("data/timeoutMs must be >= 1"); the model knows it as its input.
    if (!schema.valid) return `error: input does not match the ${name} schema: ${schema.errorMessage.replace(/(^|, )data(?=[/ ])/g, '$1input')}`;
    // Then the editor's validators: what the schema allows but they refuse gets the editor's sentence.
    try {
      switch (name) {
        case 'evidence_runCommand': {
          const c = checkRunCommand(schema.data);
          return c.ok ? await this.runCommand(c.value.command, c.value.cwd, c.value.timeoutMs, signal) : `error: ${c.error}`;
        }
        case 'evidence_readFile': {
          const c = checkReadFile(schema.data);
          return c.ok ? await this.readFile(c.value.path) : `error: ${c.error}`;
        }
        case 'read_tool_output': {
          const c = checkReadToolOutput(schema.data);
          const onUnexpected = (e: unknown): void => this.ctx.log(`read_tool_output failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
          return c.ok ? await readFitted(this.ctx.runs, c.value, this.ctx.settings.maxRangeBytes, onUnexpected) : `error: ${c.error}`;
        }
      }
    } catch (e) {
      if (e instanceof EvidenceError) return `error: ${e.message}`;
      if (isStorageFull(e)) {
        this.ctx.log(`${name} failed: ${e instanceof Error ? e.message : String(e)}`);
        return STORAGE_FULL_RESULT;
      }
      this.ctx.log(`${name} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
      return STORAGE_FAILURE;
    }
  }

  /** Runs `fn` in a run of its own, finished with the status the outcome implies. */
  private async inRun(runLabel: string, fn: (run: Run) => Promise<{ text: string; status: RunFinishStatus }>): Promise<string> {
    const run = await this.ctx.runs.startRun({ label: runLabel });
    let status: RunFinishStatus = 'failed';
    try {
      const result = await fn(run);
      status = result.status;
      return result.text;
    } finally {
      await run.finish(status).catch((e: unknown) => this.ctx.log(`a run could not be finished: ${String(e)}`));
    }
  }

  private async runCommand(command: string, cwd: string | undefined, timeoutMs: number | undefined, signal: AbortSignal): Promise<string> {
    const dir = await this.workingDirectory(cwd);
    if ('error' in dir) return dir.error;
    return this.inRun(runLabel('mcp run', command), async (run) => {
      const outcome = await run.runCommand(command, {
        cwd: dir.path, timeoutMs: timeoutMs ?? this.ctx.settings.commandTimeoutMs, signal, tool: 'evidence_runCommand',
      });
      return { text: outcome.modelText, status: signal.aborted ? 'cancelled' : outcome.status === 'failed' ? 'failed' : 'completed' };
    });
  }

  /**
   * Confines `cwd` with the local workspace's own rules (relative, no `..`, no secret
   * names, inside the folder through symlinks) by listing it, and returns the very path
   * that was checked: segments split the same way, joined under the real root.
   */
  private async workingDirectory(cwd: string | undefined): Promise<{ path: string } | { error: string }> {
    const root = this.ctx.local.root;
    if (cwd === undefined || cwd === '' || cwd === '.') return { path: root };
    const listed = await this.ctx.local.execute({ tool: ToolName.listFiles, arguments: { path: cwd } });
    if (listed.startsWith('error:')) return { error: `error: cwd is not usable: ${listed.slice('error: '.length)}` };
    return { path: path.join(root, ...cwd.split(/[\\/]/).filter((s) => s !== '' && s !== '.')) };
  }

  /** A read is answered even when it cannot be recorded (a full disk): recording is best-effort (docs/contracts.md §5.5). */
  private async readFile(relPath: string): Promise<string> {
    let run: Run | undefined;
    try {
      run = await this.ctx.runs.startRun({ label: runLabel('mcp read', relPath) });
    } catch (e) {
      this.ctx.log(`a read was not recorded (its run could not start: ${e instanceof Error ? e.message : String(e)}); it was answered without a handle`);
    }
    try {
      return await readFileRecorded(this.files, this.ctx, run, relPath, this.ctx.log);
    } finally {
      await run?.finish('completed').catch((e: unknown) => this.ctx.log(`a run could not be finished: ${String(e)}`));
    }
  }
}
