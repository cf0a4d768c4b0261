/**
 * The one editor adapter for every evidence tool: a `vscode.LanguageModelTool` over an
 * entry of the core's table (src/core/tools/table.ts), running each call through the
 * core's call runner, exactly as the MCP server does. What only the editor has is an
 * optional hook (editorHooks.ts): a confirmation, Restricted Mode, performing a tool the
 * core cannot (`evidence_invokeTool`). Every result is one text part under 8 KiB
 * (docs/contracts.md §3.1).
 */
import * as vscode from 'vscode';
import { runToolCall, type AnyEvidenceTool, type PerformCall } from '../../core/index.js';
import type { Log } from '../log.js';
import type { RunRouter } from '../runRouter.js';
import { toolContext, type ServicesHost } from '../services.js';
import { textResult } from './modelText.js';

/** What every tool needs. */
export interface ToolDeps {
  readonly host: ServicesHost;
  readonly router: RunRouter;
  readonly log: Log;
}

/** What the editor adds to a table entry; every hook is optional. */
export interface EditorHooks {
  /** Replaces the progress-only preparation (e.g. a confirmation showing the exact command). */
  prepare?(input: unknown): vscode.PreparedToolInvocation;
  /** A refusal only the editor makes (a sentence), checked after the input is validated. */
  precheck?(): string | undefined;
  /** Performs a tool the table leaves to the front end. */
  perform?(
    options: vscode.LanguageModelToolInvocationOptions<object>,
    token: vscode.CancellationToken,
  ): PerformCall<never>;
}

/** A table entry as a language model tool. */
export class EvidenceLanguageModelTool implements vscode.LanguageModelTool<object> {
  constructor(
    private readonly tool: AnyEvidenceTool,
    private readonly deps: ToolDeps,
    private readonly hooks: EditorHooks = {},
  ) {}

  /** The hook's preparation, else a progress line only (no side effect, no confirmation). */
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<object>): vscode.PreparedToolInvocation {
    return this.hooks.prepare?.(options.input) ?? { invocationMessage: this.tool.progress(options.input as never) };
  }

  /**
   * One call through the core runner, in the participant's run when it announced this
   * call (tool and exact input; see runRouter.ts), else in a run of its own. Cancelling
   * the token aborts the call (a command's process group is killed) and ends it as
   * cancelled.
   */
  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<object>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const services = await this.deps.host.get();
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    if (token.isCancellationRequested) abort.abort();
    try {
      const answer = await runToolCall(
        this.tool.name,
        options.input,
        toolContext(services, abort.signal, this.deps.log),
        {
          join: () => this.deps.router.claim(this.tool.name, options.input),
          ...(this.hooks.precheck ? { precheck: () => this.hooks.precheck?.() } : {}),
          ...(this.hooks.perform ? { perform: this.hooks.perform(options, token) } : {}),
        },
      );
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      return textResult(answer.text);
    } catch (e) {
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      throw e;
    } finally {
      sub.dispose();
    }
  }
}
