/**
 * `read_tool_output` (contract 2.5) over this workspace's runs: any handle minted by a
 * run of this tenant resolves, earlier runs included; anything else is access denied.
 *
 * The reply is the contract's JSON. The store bounds content to 10,000 characters,
 * which can exceed 8 KiB of UTF-8 once escaped, so a lines or pattern window that would
 * not fit is asked again with half the limit (the reply then says `truncated`, and
 * `offset + returned_lines` is where to continue). A byte window is capped by
 * `boundedEvidence.maxRangeBytes` with contract 1.3's sentence.
 */
import * as vscode from 'vscode';
import { EvidenceError, type ReadToolOutputArgs, type RunStoreApi } from '../../core/index.js';
import type { Log } from '../log.js';
import type { ToolDeps } from './callRun.js';
import { checkReadToolOutput, type ReadToolOutputInput } from './inputs.js';
import { errorResult, fitsModel, textResult } from './modelText.js';

/** Reads a window and shrinks it until its JSON fits the model limit; `error: …` otherwise. */
export async function readFitted(runs: RunStoreApi, args: ReadToolOutputArgs, maxRangeBytes: number, log: Log): Promise<string> {
  const b = args.bytes;
  if (b && Number.isSafeInteger(b.start) && Number.isSafeInteger(b.end) && b.end - b.start > maxRangeBytes) {
    return `error: artifact range exceeds ${maxRangeBytes} bytes`;
  }
  let limit = args.limit;
  for (;;) {
    let text: string;
    try {
      text = JSON.stringify(await runs.readToolOutput(limit === undefined ? args : { ...args, limit }));
    } catch (e) {
      return readError(e, log);
    }
    if (fitsModel(text)) return text;
    const current = limit ?? 200;
    if (b || current <= 1 || !Number.isSafeInteger(current)) {
      return b
        ? 'error: this byte window would exceed 8 KiB once JSON-escaped; request a smaller window'
        : 'error: this line is too long to show within 8 KiB; read it with a byte window ("bytes")';
    }
    limit = Math.max(1, Math.floor(current / 2));
  }
}

/** The model-facing sentence of a read failure (store sentences are safe by contract). */
export function readError(e: unknown, log: Log): string {
  if (e instanceof EvidenceError) return `error: ${e.message}`;
  log.error('read_tool_output failed', e);
  return 'error: the output could not be read (storage failure); try again later';
}

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
    return textResult(await readFitted(services.runs, checked.value, services.settings.maxRangeBytes, this.deps.log));
  }
}
