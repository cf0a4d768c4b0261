/**
 * `evidence_readFile`: reads a workspace file through the bounded evidence workspace
 * (contract 1.2/1.3): a small file whole, a large one as an observation whose
 * `.tool-artifacts/…` range request reads exact bytes back. The full text is also
 * recorded as a call, so the inspector shows it and, when the run layer gave it a
 * handle, `read_tool_output` can search it by line or pattern (the hint says so).
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { OBSERVATION_PREFIX, RANGE_PREFIX } from '../../core/index.js';
import { Ids } from '../ids.js';
import { inCallRun, runLabel, type ToolDeps } from './callRun.js';
import { checkReadFile, type ReadFileInput } from './inputs.js';
import { errorResult, fitsModel, textResult, utf8Bytes } from './modelText.js';

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
    const text = await inCallRun(this.deps, services, { tool: Ids.tools.readFile, input: options.input }, runLabel('read', relPath), async (run) => {
      const { modelText, fullText } = await workspace.readFile(relPath, randomUUID());
      const isError = modelText.startsWith('error:');
      const outcome = await run.recordResult(Ids.tools.readFile, { path: relPath }, fullText ?? modelText, { isError });
      if (modelText.startsWith(OBSERVATION_PREFIX) && outcome.handle) {
        return `${modelText}\nSearchable by line or pattern: read_tool_output {"handle":"${outcome.handle}"}`;
      }
      return modelText;
    });
    if (/^error: file exceeds \d+ bytes$/.test(text)) {
      // Too large to read into memory here, but not too large to keep: say how.
      return errorResult(`${text.slice('error: '.length)}; capture it with evidence_runCommand (for example: cat ${JSON.stringify(relPath)}) and search it with read_tool_output`);
    }
    if (text.startsWith(RANGE_PREFIX) && !fitsModel(text)) {
      // A range of control characters grows up to 6x when JSON-escaped.
      return errorResult(`this range would exceed 8 KiB once JSON-escaped (${utf8Bytes(text)} bytes); request a smaller range`);
    }
    return textResult(text);
  }
}
