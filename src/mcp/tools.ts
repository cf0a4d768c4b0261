/**
 * The three evidence tools over the core, with no editor API: each call is validated
 * against the schema package.json declares, recorded in a run of its own (as the editor
 * records a call no participant announced), and answered with the core's text, which
 * is exactly what the editor's tools show:
 * - `evidence_runCommand`: the run layer's command summary (stdout, stderr and the exit
 *   value as attachments with handles);
 * - `evidence_readFile`: the bounded evidence workspace's result, observation or virtual
 *   range reply (contract 1.2/1.3), the full text recorded as the call's result;
 * - `read_tool_output`: the contract 2.5 reply as JSON, or the store's refusal.
 * Every failure is one `error: …` sentence: the store's own (safe by contract) or a fixed
 * one; the cause of an unexpected failure goes to the server's log, never to the model.
 */
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
// Deep paths with `.js`: the bare subpaths resolve to ESM-only typings under Node16 CommonJS resolution.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  BoundedEvidenceWorkspace, EvidenceError, makeArtifactRef, parseRangePath, resolveEvidenceLimits, ToolName,
  type ArtifactStore, type EvidenceLimits, type LocalWorkspace, type Run, type RunFinishStatus, type RunStore, type ToolWorkspace,
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

/** A run's label: the kind of call and a one-line excerpt of its subject. */
function label(kind: string, subject: string): string {
  const line = subject.replace(/\s+/g, ' ').trim();
  return `mcp ${kind}: ${line.length > 80 ? `${line.slice(0, 79)}…` : line}`;
}

/** The evidence tools, vscode-free; `call` answers every call with the model's text. */
export class EvidenceTools {
  private readonly validators = new Map<string, JsonSchemaValidator<Record<string, unknown>>>();
  private readonly limits: EvidenceLimits;

  constructor(private readonly ctx: ToolContext, definitions: readonly ToolDefinition[]) {
    const ajv = new AjvJsonSchemaValidator();
    for (const d of definitions) this.validators.set(d.name, ajv.getValidator<Record<string, unknown>>(d.inputSchema as JsonSchemaType));
    // Checked once here, so that a bad limit fails at start-up rather than in a call.
    this.limits = resolveEvidenceLimits({ maxInlineBytes: ctx.settings.maxInlineBytes, previewBytes: ctx.settings.previewBytes, maxRangeBytes: ctx.settings.maxRangeBytes });
  }

  /** True for the names this server serves. */
  has(name: string): name is McpToolName {
    return this.validators.has(name);
  }

  /** Validates and runs one call; `signal` aborts a command (killing its process group). */
  async call(name: McpToolName, input: unknown, signal: AbortSignal): Promise<string> {
    const checked = this.validators.get(name)!(input);
    // Ajv names the value `data` ("data/timeoutMs must be >= 1"); the model knows it as its input.
    if (!checked.valid) return `error: input does not match the ${name} schema: ${checked.errorMessage.replace(/(^|, )data(?=[/ ])/g, '$1input')}`;
    const args = checked.data;
    try {
      switch (name) {
        case 'evidence_runCommand':
          return await this.runCommand(args.command as string, args.cwd as string | undefined, args.timeoutMs as number | undefined, signal);
        case 'evidence_readFile':
          return await this.readFile(args.path as string);
        case 'read_tool_output':
          return JSON.stringify(await this.ctx.runs.readToolOutput(args as { handle: string }));
      }
    } catch (e) {
      if (e instanceof EvidenceError) return `error: ${e.message}`;
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
    return this.inRun(label('run', command), async (run) => {
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

  private async readFile(relPath: string): Promise<string> {
    await this.learnArtifact(relPath);
    return this.inRun(label('read', relPath), async (run) => {
      let fullText: string | undefined;
      const local = this.ctx.local;
      // Keeps what the folder returned, so that the whole text is recorded, not the observation.
      const capturing: ToolWorkspace = {
        policy: local.policy, availableTools: local.availableTools, modifiedFiles: local.modifiedFiles,
        execute: async (action, id) => (fullText = await local.execute(action, id)),
      };
      const modelText = await new BoundedEvidenceWorkspace(capturing, this.ctx.artifacts, this.limits).execute({ tool: ToolName.readFile, arguments: { path: relPath } });
      const whole = fullText === undefined || fullText.startsWith('error:') ? modelText : fullText;
      await run.recordResult('evidence_readFile', { path: relPath }, whole, { isError: modelText.startsWith('error:') });
      return { text: modelText, status: 'completed' };
    });
  }

  /**
   * The artifact store serves only artifacts it knows, and one put by another process
   * (the editor, another server) is known there, not here. Before a virtual read of an
   * unknown id, this tenant's `evidence_readFile` records are searched for it (they hold
   * its identity: sha256 and size) and it is registered when its file exists: the same
   * rule the editor applies on start-up. An id no record names stays unknown.
   */
  private async learnArtifact(p: string): Promise<void> {
    const range = parseRangePath(p);
    const { artifacts, runs } = this.ctx;
    if (!range || artifacts.has(range.artifactId)) return;
    const sha256 = range.artifactId.slice('artifact-'.length);
    const file = path.join(artifacts.root, runs.tenant, range.artifactId);
    if (!(await stat(file).then((s) => s.isFile(), () => false))) return;
    for (const summary of await runs.listRuns()) {
      const calls = await runs.report(summary.runId).catch(() => []);
      const call = calls.find((c) => c.tool === 'evidence_readFile' && c.status === 'ok' && c.sha256 === sha256);
      if (call) {
        artifacts.register(makeArtifactRef(range.artifactId, call.resultBytes, sha256));
        return;
      }
    }
  }
}
