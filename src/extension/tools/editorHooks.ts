/** What only the editor adds to the core's tools (docs/contracts.md §3.2, §3.3). */
import * as vscode from 'vscode';
import {
  checkRunCommand,
  EvidenceToolNames,
  runCommandTool,
  isEvidenceToolName,
  type EvidenceToolName,
  type InvokeToolInput,
  type PerformCall,
} from '../../core/index.js';
import { errorMessage } from '../log.js';
import type { EditorHooks } from './evidenceTool.js';

const MAX_INNER_ERROR_CHARS = 500;

/** So a command cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}sh\n${text}\n${fence}`;
}

function resultText(content: readonly unknown[]): string {
  return content
    .map((part) => {
      if (part instanceof vscode.LanguageModelTextPart) return part.value;
      if (part instanceof vscode.LanguageModelPromptTsxPart) return JSON.stringify(part.value);
      const data = part as { mimeType?: unknown; data?: unknown };
      if (typeof data.mimeType === 'string' && data.data instanceof Uint8Array) {
        return /^(text\/|application\/json)/.test(data.mimeType)
          ? new TextDecoder().decode(data.data)
          : `[${data.mimeType} data, ${data.data.byteLength} bytes, not shown]`;
      }
      return JSON.stringify(part) ?? '';
    })
    .join('');
}

const runCommand: EditorHooks = {
  /** Shows exactly what will run and where. */
  prepare(raw) {
    const checked = checkRunCommand(raw);
    const command = checked.ok
      ? checked.value.command
      : String((raw as { command?: unknown } | undefined)?.command ?? '');
    const cwd = checked.ok && checked.value.cwd ? checked.value.cwd : '.';
    const message = new vscode.MarkdownString(
      `Run this command in the workspace folder (\`${cwd.replace(/`/g, "'")}\`) ` +
        `and keep its complete output as evidence?\n\n${fenced(command)}`,
    );
    return {
      invocationMessage: runCommandTool.progress({ command }),
      confirmationMessages: { title: 'Run command?', message },
    };
  },
  // Restricted Mode: a folder nobody trusted yet must not get commands run in it.
  precheck: () =>
    vscode.workspace.isTrusted
      ? undefined
      : 'this workspace is not trusted, so no command runs here; ask the user to trust the folder',
};

const invokeTool: EditorHooks = {
  /**
   * Through `vscode.lm.invokeTool`, so its own confirmation UI still applies. Refuses itself and the other evidence
   * tools: they already record, and a chain would nest runs.
   */
  perform: (options, token) =>
    (async (_ctx, { name, input }: InvokeToolInput, openRun) => {
      if (isEvidenceToolName(name))
        return {
          text: `error: ${EvidenceToolNames.invokeTool} does not invoke the evidence tools; call ${name} directly`,
          status: 'failed',
        };
      if (!vscode.lm.tools.some((t) => t.name === name)) {
        return {
          text: `error: no tool named "${name.slice(0, 80)}" is registered; check the name of the tool you want`,
          status: 'failed',
        };
      }
      const run = await openRun(name, JSON.stringify(input));
      let content: readonly unknown[];
      try {
        content = (await vscode.lm.invokeTool(name, { input, toolInvocationToken: options.toolInvocationToken }, token))
          .content;
      } catch (e) {
        if (token.isCancellationRequested) throw new vscode.CancellationError();
        // The invoked tool's own message is what the model would have seen calling it directly.
        const message = `error: ${name} failed: ${errorMessage(e).slice(0, MAX_INNER_ERROR_CHARS)}`;
        const failed = await run.recordResult(name, input as Record<string, unknown>, message, { isError: true });
        return { text: message, status: 'completed', callId: failed.callId };
      }
      const outcome = await run.recordResult(name, input as Record<string, unknown>, resultText(content));
      return { text: outcome.modelText, status: 'completed', callId: outcome.callId };
    }) as PerformCall<InvokeToolInput> as PerformCall<never>,
};

export const EditorToolHooks: Partial<Record<EvidenceToolName, EditorHooks>> = {
  [EvidenceToolNames.runCommand]: runCommand,
  [EvidenceToolNames.invokeTool]: invokeTool,
};
