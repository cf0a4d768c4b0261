/**
 * `evidence_readFile`: reads a workspace file through the bounded evidence workspace
 * (docs/contracts.md §1.2, §1.3): a small file whole, a large one as an observation whose
 * `.tool-artifacts/…` range request reads exact bytes back. The full text is also
 * recorded as a call, so the inspector shows it and, when the run layer gave it a
 * handle, `read_tool_output` can search it by line or pattern (the hint says so). The
 * call itself is the core's `readFileRecorded`, exactly what the MCP server runs, which
 * also learns an artifact another process put before its range is read.
 */
import * as vscode from 'vscode';
import { checkReadFile, readFileRecorded, type ReadFileInput } from '../../core/index.js';
import { Ids } from '../ids.js';
import { inCallRun, runLabel, type ToolDeps } from './callRun.js';
import { errorResult, textResult } from './modelText.js';

/** The tool implementation. */
export class ReadFileTool implements vscode.LanguageModelTool<ReadFileInput> {
  constructor(private readonly deps: ToolDeps) {}

  /** Reading has no side effect: no confirmation, just a progress message. */
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadFileInput>): vscode.PreparedToolInvocation {
    const p = typeof options.input?.path === 'string' ? options.input.path : '';
    return { invocationMessage: p.startsWith('.tool-artifacts/') ? 'Reading an exact byte range' : `Reading ${p.replace(/`/g, "'").slice(0, 80)}` };
  }

  /** Reads, records, and answers with the bounded text. */
  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadFileInput>, _token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const checked = checkReadFile(options.input);
    if (!checked.ok) return errorResult(checked.error);
    const relPath = checked.value.path;
    const services = await this.deps.host.get();
    const workspace = services.workspace;
    if (!workspace) return errorResult('no folder is open; open a folder to read its files');
    const text = await inCallRun(this.deps, services, { tool: Ids.tools.readFile, input: options.input }, runLabel('read', relPath), (run) => readFileRecorded(workspace, services, run, relPath));
    return textResult(text);
  }
}
