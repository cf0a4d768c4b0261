/**
 * `evidence_runCommand`: runs a shell command in the workspace folder through the run
 * layer, which streams stdout and stderr to the store (capped per stream) and keeps the
 * exit value, each as an attachment with its own handle. The model gets the run layer's
 * bounded text. A side effect, so `prepareInvocation` asks for confirmation and shows the
 * exact command; cancelling the token aborts the call, which kills the process group.
 */
import { realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CallOutcome } from '../../core/index.js';
import { Ids } from '../ids.js';
import { inCallRun, runLabel, type ToolDeps } from './callRun.js';
import { checkRunCommand, type RunCommandInput } from '../../core/index.js';
import { errorResult, textResult } from './modelText.js';

/** Resolves a model-given cwd inside the folder (through symlinks), or says why not. */
export async function resolveCwd(folder: string, cwd: string | undefined): Promise<{ dir: string } | { error: string }> {
  if (cwd === undefined || cwd === '' || cwd === '.') return { dir: folder };
  if (path.isAbsolute(cwd)) return { error: 'cwd must be relative to the workspace folder' };
  const root = await realpath(folder);
  const target = await realpath(path.resolve(root, cwd)).catch(() => undefined);
  if (!target || !(await stat(target).then((s) => s.isDirectory(), () => false))) return { error: 'cwd is not a folder in the workspace' };
  const rel = path.relative(root, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return { error: 'cwd must stay inside the workspace folder' };
  return { dir: target };
}

/** A Markdown code fence longer than any backtick run in `text` (so a command cannot close it). */
export function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}sh\n${text}\n${fence}`;
}

/** The tool implementation. */
export class RunCommandTool implements vscode.LanguageModelTool<RunCommandInput> {
  constructor(private readonly deps: ToolDeps) {}

  /** Asks before running anything, and shows exactly what will run and where. */
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<RunCommandInput>): vscode.PreparedToolInvocation {
    const checked = checkRunCommand(options.input);
    const command = checked.ok ? checked.value.command : String((options.input as { command?: unknown } | undefined)?.command ?? '');
    const cwd = checked.ok && checked.value.cwd ? checked.value.cwd : '.';
    const message = new vscode.MarkdownString(`Run this command in the workspace folder (\`${cwd.replace(/`/g, "'")}\`) and keep its complete output as evidence?\n\n${fenced(command)}`);
    return {
      invocationMessage: `Running \`${oneLine(command)}\``,
      confirmationMessages: { title: 'Run command?', message },
    };
  }

  /** Runs the command in a recorded call; the result is the run layer's bounded text. */
  async invoke(options: vscode.LanguageModelToolInvocationOptions<RunCommandInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const checked = checkRunCommand(options.input);
    if (!checked.ok) return errorResult(checked.error);
    const input = checked.value;
    // Restricted Mode: a folder nobody trusted yet must not get commands run in it.
    if (!vscode.workspace.isTrusted) return errorResult('this workspace is not trusted, so no command runs here; ask the user to trust the folder');
    const services = await this.deps.host.get();
    if (!services.folder) return errorResult('no folder is open; open a folder to run commands in it');
    const cwd = await resolveCwd(services.folder, input.cwd);
    if ('error' in cwd) return errorResult(cwd.error);
    const outcome = await runCaptured(this.deps, services, { tool: Ids.tools.runCommand, input: options.input }, input.command, cwd.dir, input.timeoutMs ?? services.settings.commandTimeoutMs, token);
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    return textResult(outcome.modelText);
  }
}

/**
 * Runs a command in a recorded call (the tool and the palette command share this):
 * the token's cancellation aborts it, which kills its whole process group.
 */
export async function runCaptured(
  deps: ToolDeps,
  services: Awaited<ReturnType<ToolDeps['host']['get']>>,
  call: { readonly tool: string; readonly input: unknown } | undefined,
  command: string,
  cwd: string,
  timeoutMs: number,
  token: vscode.CancellationToken,
): Promise<CallOutcome & { runId: string }> {
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort());
  if (token.isCancellationRequested) abort.abort();
  try {
    return await inCallRun(deps, services, call, runLabel('run', command), async (run) => {
      const outcome = await run.runCommand(command, { cwd, timeoutMs, signal: abort.signal, tool: Ids.tools.runCommand });
      return { ...outcome, runId: run.runId };
    }, (o) => (abort.signal.aborted ? 'cancelled' : o.status === 'failed' ? 'failed' : 'completed'));
  } finally {
    sub.dispose();
  }
}

function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim().replace(/`/g, "'");
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
