/**
 * `evidence_invokeTool`: invokes any other registered language model tool through
 * `vscode.lm.invokeTool` (so its own confirmation and progress UI still apply) and
 * records its result through the run layer, so a large result of any tool, from any
 * extension, becomes a bounded observation with a handle. It refuses itself and the
 * other evidence tools: they already record, and a recursive chain would nest runs.
 */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
import { errorMessage } from '../log.js';
import { EVIDENCE_TOOL_NAMES } from '../services.js';
import { inCallRun, runLabel, type ToolDeps } from './callRun.js';
import { checkInvokeTool, type InvokeToolInput } from '../../core/index.js';
import { errorResult, textResult } from './modelText.js';

/** Longest error text of an invoked tool passed on to the model. */
const MAX_INNER_ERROR_CHARS = 500;

/** Flattens a tool result to the text a model would have seen from it. */
export function resultText(content: readonly unknown[]): string {
  return content.map((part) => {
    if (part instanceof vscode.LanguageModelTextPart) return part.value;
    if (part instanceof vscode.LanguageModelPromptTsxPart) return JSON.stringify(part.value);
    const data = part as { mimeType?: unknown; data?: unknown };
    if (typeof data.mimeType === 'string' && data.data instanceof Uint8Array) {
      return /^(text\/|application\/json)/.test(data.mimeType)
        ? new TextDecoder().decode(data.data)
        : `[${data.mimeType} data, ${data.data.byteLength} bytes, not shown]`;
    }
    return JSON.stringify(part) ?? '';
  }).join('');
}

/** The tool implementation. */
export class InvokeToolTool implements vscode.LanguageModelTool<InvokeToolInput> {
  constructor(private readonly deps: ToolDeps) {}

  /** The invoked tool asks for its own confirmation; this only names it. */
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<InvokeToolInput>): vscode.PreparedToolInvocation {
    return { invocationMessage: `Invoking ${String(options.input?.name ?? '').slice(0, 80)} and recording its result` };
  }

  /** Invokes, records, answers with the run layer's bounded text. */
  async invoke(options: vscode.LanguageModelToolInvocationOptions<InvokeToolInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const checked = checkInvokeTool(options.input);
    if (!checked.ok) return errorResult(checked.error);
    const { name, input } = checked.value;
    if (EVIDENCE_TOOL_NAMES.includes(name)) {
      return errorResult(`${Ids.tools.invokeTool} does not invoke the evidence tools; call ${name} directly`);
    }
    if (!vscode.lm.tools.some((t) => t.name === name)) {
      return errorResult(`no tool named "${name.slice(0, 80)}" is registered; check the name of the tool you want`);
    }
    const services = await this.deps.host.get();
    const text = await inCallRun(this.deps, services, { tool: Ids.tools.invokeTool, input: options.input }, runLabel(name, JSON.stringify(input)), async (run) => {
      let content: readonly unknown[];
      try {
        content = (await vscode.lm.invokeTool(name, { input, toolInvocationToken: options.toolInvocationToken }, token)).content;
      } catch (e) {
        if (token.isCancellationRequested) throw new vscode.CancellationError();
        // The invoked tool's own message is what the model would have seen calling it directly.
        const message = `error: ${name} failed: ${errorMessage(e).slice(0, MAX_INNER_ERROR_CHARS)}`;
        await run.recordResult(name, input as Record<string, unknown>, message, { isError: true });
        return message;
      }
      return (await run.recordResult(name, input as Record<string, unknown>, resultText(content))).modelText;
    });
    return textResult(text);
  }
}
