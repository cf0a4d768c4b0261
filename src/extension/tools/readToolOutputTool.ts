/**
 * `read_tool_output` (docs/contracts.md §2.5) over this workspace's runs: any handle minted by a
 * run of this tenant resolves, earlier runs included; anything else is access denied.
 * The reply is the core's `readFitted` (the contract's JSON fitted under 8 KiB; a byte
 * window capped by `boundedEvidence.maxRangeBytes`), exactly what the MCP server sends.
 */
import * as vscode from 'vscode';
import { checkReadToolOutput, readFitted, type ReadToolOutputInput } from '../../core/index.js';
import type { ToolDeps } from './callRun.js';
import { errorResult, textResult } from './modelText.js';

/** The tool implementation. */
export class ReadToolOutputTool implements vscode.LanguageModelTool<ReadToolOutputInput> {
  constructor(private readonly deps: ToolDeps) {}

  /** No side effect: a progress message only. */
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadToolOutputInput>): vscode.PreparedToolInvocation {
    const i = options.input ?? ({} as Partial<ReadToolOutputInput>);
    const what = i.pattern !== undefined ? 'Searching' : i.bytes !== undefined ? 'Reading bytes of' : 'Reading lines of';
    return { invocationMessage: `${what} ${String(i.handle ?? '').slice(0, 80)}` };
  }

  /** Reads the window, bounded. */
  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadToolOutputInput>, _token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const checked = checkReadToolOutput(options.input);
    if (!checked.ok) return errorResult(checked.error);
    const services = await this.deps.host.get();
    return textResult(await readFitted(services.runs, checked.value, services.settings.maxRangeBytes, (e) => this.deps.log.error('read_tool_output failed', e)));
  }
}
