/**
 * The one editor adapter for every evidence tool, running calls through the core's runner as the MCP server does; one
 * text part under 8 KiB (docs/contracts.md §3.1).
 */
import * as vscode from 'vscode';
import { runToolCall, type AnyEvidenceTool, type PerformCall } from '../../core/index.js';
import type { Log } from '../log.js';
import type { RunRouter } from '../runRouter.js';
import { toolContext, type ServicesHost } from '../services.js';
import { textResult } from './textResult.js';

export interface ToolDeps {
  readonly host: ServicesHost;
  readonly router: RunRouter;
  readonly log: Log;
}

export interface EditorHooks {
  prepare?(input: unknown): vscode.PreparedToolInvocation;
  precheck?(): string | undefined;
  perform?(
    options: vscode.LanguageModelToolInvocationOptions<object>,
    token: vscode.CancellationToken,
  ): PerformCall<never>;
}

export class EvidenceLanguageModelTool implements vscode.LanguageModelTool<object> {
  constructor(
    private readonly tool: AnyEvidenceTool,
    private readonly deps: ToolDeps,
    private readonly hooks: EditorHooks = {},
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<object>): vscode.PreparedToolInvocation {
    return this.hooks.prepare?.(options.input) ?? { invocationMessage: this.tool.progress(options.input as never) };
  }

  /** In the participant's run when it announced this call (runRouter.ts), else in a run of its own. */
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
