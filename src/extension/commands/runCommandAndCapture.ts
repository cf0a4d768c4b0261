/** Returns a summary so tests and other extensions can drive it without UI. */
import * as vscode from 'vscode';
import { Ids, type InspectorTarget } from '../ids.js';
import { EvidenceToolNames, runToolCall } from '../../core/index.js';
import { toolContext } from '../services.js';
import { formatBytes } from '../../shared/bytes.js';
import { outcomeFields } from '../inspector/mapping.js';
import { outcomeOf } from '../../shared/outcome.js';
import type { CommandDeps } from './deps.js';

interface RunCaptureArgs {
  readonly command: string;
  readonly cwd?: string;
  readonly timeoutMs?: number;
  readonly openInspector?: boolean;
  readonly label?: string;
}

interface CapturedAttachment {
  readonly name: string;
  readonly handle: string;
  readonly sizeBytes: number;
  readonly observedBytes: number;
  readonly truncated: boolean;
  readonly stored: string;
  readonly sha256: string;
}

export interface RunCaptureResult {
  readonly runId: string;
  readonly callId: string;
  readonly status: string;
  readonly handle?: string;
  readonly attachments: readonly CapturedAttachment[];
  readonly modelText: string;
}

function parseArgs(arg: unknown): Partial<RunCaptureArgs> {
  if (typeof arg === 'string') return { command: arg };
  if (typeof arg === 'object' && arg !== null) return arg as Partial<RunCaptureArgs>;
  return {};
}

export async function runCommandAndCapture(deps: CommandDeps, arg?: unknown): Promise<RunCaptureResult | undefined> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage(
      'Bounded Evidence: commands do not run in Restricted Mode; trust the folder first.',
    );
    return undefined;
  }
  const args = parseArgs(arg);
  const command =
    typeof args.command === 'string'
      ? args.command
      : await vscode.window.showInputBox({
          title: 'Bounded Evidence: Run Command and Capture',
          prompt: 'A shell command to run in the workspace folder; its complete output is kept as evidence.',
          placeHolder: 'node build-log.js',
          ignoreFocusOut: true,
        });
  if (command === undefined || command.trim() === '') return undefined;
  const services = await deps.host.get();
  if (!services.folder) {
    void vscode.window.showErrorMessage('Bounded Evidence: open a folder first; commands run in the workspace folder.');
    return undefined;
  }
  const timeoutMs =
    typeof args.timeoutMs === 'number' && args.timeoutMs > 0 ? args.timeoutMs : services.settings.commandTimeoutMs;
  const input = { command, ...(typeof args.cwd === 'string' ? { cwd: args.cwd } : {}), timeoutMs };
  // The same call runner as the tool (cwd rules, recording, cancellation).
  const answer = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Running ${command.length > 60 ? `${command.slice(0, 59)}…` : command}`,
      cancellable: true,
    },
    async (_progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      let follow: { dispose(): void } | undefined;
      try {
        return await runToolCall(EvidenceToolNames.runCommand, input, toolContext(services, abort.signal, deps.log), {
          source: { kind: 'command' },
          toModel: false,
          ...(typeof args.label === 'string' ? { labelSubject: args.label } : {}),
          // The inspector goes to the call as soon as it is recorded as started: a person sees it running.
          opened: (run) => {
            if (args.openInspector === false) return;
            follow = services.runs.onDidRecord((e) => {
              if (e.runId !== run.runId || e.record.type !== 'call_started') return;
              follow?.dispose();
              void vscode.commands.executeCommand(
                Ids.commands.openInspector,
                { runId: run.runId } satisfies InspectorTarget,
                { preserveFocus: true },
              );
            });
          },
        });
      } catch (e) {
        if (abort.signal.aborted) return undefined;
        throw e;
      } finally {
        follow?.dispose();
        sub.dispose();
      }
    },
  );
  const outcome = answer?.outcome;
  if (!answer || !outcome || answer.runId === undefined) {
    if (answer) void vscode.window.showErrorMessage(`Bounded Evidence: ${answer.text.replace(/^error: /, '')}.`);
    return undefined;
  }
  const record = outcome.record;
  const attachments = record.attachments.map((a) => ({
    name: a.name,
    handle: a.handle,
    sizeBytes: a.sizeBytes,
    observedBytes: a.observedBytes,
    truncated: a.truncated,
    stored: a.stored,
    sha256: a.sha256,
  }));
  const result: RunCaptureResult = {
    runId: answer.runId,
    callId: outcome.callId,
    status: outcome.status,
    attachments,
    modelText: outcome.modelText,
    ...(outcome.handle !== undefined ? { handle: outcome.handle } : {}),
  };
  const stdout = attachments.find((a) => a.name === 'stdout');
  const stderr = attachments.find((a) => a.name === 'stderr');
  const ended = outcomeOf({
    status: outcome.status,
    ...(record.error ? { errorMessage: record.error.message } : {}),
    ...outcomeFields(record.attachments),
  });
  deps.log.info(
    `captured run ${result.runId}: ${result.status} ` +
      `(${ended.label}), ${attachments.map((a) => `${a.name} ${a.sizeBytes} bytes`).join(', ')}`,
  );
  // A failed command opens on the stream that has something to say.
  const first =
    ended.kind === 'failed' && stderr && stderr.sizeBytes > 0 && (!stdout || stdout.sizeBytes === 0) ? stderr : stdout;
  if (args.openInspector !== false) {
    const target: InspectorTarget = {
      runId: result.runId,
      ...(first ? { handle: first.handle } : result.handle ? { handle: result.handle } : {}),
    };
    await vscode.commands.executeCommand(Ids.commands.openInspector, target);
  }
  if (ended.kind === 'failed') {
    // Not awaited: the command returns while the notification waits for the person.
    const said = /^exit (\d+)$/.exec(ended.label);
    // stderr is named (and offered) only when it has bytes.
    const verb = said
      ? `exited ${said[1]}`
      : ended.label === 'cancelled'
        ? 'was cancelled'
        : ended.label === 'interrupted'
          ? 'was interrupted'
          : ended.label;
    const hasStderr = stderr !== undefined && stderr.observedBytes > 0;
    const what =
      `Bounded Evidence: the ` +
      `command ${verb}${hasStderr ? ` — ${formatBytes(stderr.observedBytes)} of stderr` : ''}.`;
    const actions = hasStderr ? ['Show stderr'] : [];
    void vscode.window.showWarningMessage(what, ...actions).then((choice) => {
      if (choice === 'Show stderr' && stderr)
        void vscode.commands.executeCommand(Ids.commands.openInspector, {
          runId: result.runId,
          handle: stderr.handle,
        } satisfies InspectorTarget);
    });
  } else if (args.openInspector === false) {
    void vscode.window.setStatusBarMessage(
      `Bounded Evidence: captured ${formatBytes(stdout?.observedBytes ?? 0)} of stdout`,
      5000,
    );
  }
  return result;
}
