/**
 * Any file, of any size, streamed into a recorded run. The record names the file by its base name only: no host path
 * in records a model may be shown.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { withRun } from '../../core/index.js';
import { Ids } from '../ids.js';
import { formatBytes } from '../../shared/bytes.js';
import type { CommandDeps } from './deps.js';

/** Not a model tool. */
const IMPORT_TOOL = 'import_file';

interface ImportFileArgs {
  readonly uri?: vscode.Uri | string;
  readonly path?: string;
  readonly openInspector?: boolean;
}

export interface ImportFileResult {
  readonly runId: string;
  readonly callId: string;
  readonly status: string;
  readonly handle?: string;
  readonly byteCount: number;
  readonly sha256: string;
  readonly binary: boolean;
}

function targetOf(arg: unknown): { uri?: vscode.Uri; openInspector: boolean } {
  if (arg instanceof vscode.Uri) return { uri: arg, openInspector: true };
  if (typeof arg === 'string') return { uri: vscode.Uri.file(arg), openInspector: true };
  if (typeof arg === 'object' && arg !== null) {
    const a = arg as ImportFileArgs;
    const uri =
      a.uri instanceof vscode.Uri
        ? a.uri
        : typeof a.uri === 'string'
          ? vscode.Uri.parse(a.uri)
          : typeof a.path === 'string'
            ? vscode.Uri.file(a.path)
            : undefined;
    return { ...(uri ? { uri } : {}), openInspector: a.openInspector !== false };
  }
  return { openInspector: true };
}

async function* pieces(
  file: string,
  total: number,
  progress: vscode.Progress<{ message?: string; increment?: number }>,
  token: vscode.CancellationToken,
): AsyncGenerator<Uint8Array> {
  let done = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    const piece = chunk as Buffer;
    done += piece.length;
    if (total > 0)
      progress.report({
        message: `${formatBytes(done)} of ${formatBytes(total)}`,
        increment: (piece.length / total) * 100,
      });
    yield piece;
  }
}

export async function importFile(deps: CommandDeps, arg?: unknown): Promise<ImportFileResult | undefined> {
  const target = targetOf(arg);
  let uri = target.uri;
  if (!uri) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      canSelectFolders: false,
      openLabel: 'Import as Evidence',
      title: 'Bounded Evidence: Import File as Evidence',
    });
    uri = picked?.[0];
  }
  if (!uri) return undefined;
  if (uri.scheme !== 'file') {
    void vscode.window.showErrorMessage(
      'Bounded Evidence: only files on the machine running the extension can be imported.',
    );
    return undefined;
  }
  const file = uri.fsPath;
  const st = await stat(file).catch(() => undefined);
  if (!st?.isFile()) {
    void vscode.window.showErrorMessage(`Bounded Evidence: ${path.basename(file)} is not a readable file.`);
    return undefined;
  }
  const services = await deps.host.get();
  const name = path.basename(file);
  return withRun(
    services.runs,
    { label: `import: ${name}`, source: { kind: 'command' } },
    async (run, finishAs) => {
      try {
        const outcome = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Importing ${name}`, cancellable: true },
          (progress, token) =>
            run.recordStream(IMPORT_TOOL, { file: name, sizeBytes: st.size }, pieces(file, st.size, progress, token)),
        );
        finishAs('completed');
        const result: ImportFileResult = {
          runId: run.runId,
          callId: outcome.callId,
          status: outcome.status,
          byteCount: outcome.record.resultBytes,
          sha256: outcome.record.sha256,
          binary: outcome.record.binary,
          ...(outcome.handle !== undefined ? { handle: outcome.handle } : {}),
        };
        deps.log.info(`imported ${name}: ${result.byteCount} bytes, sha256 ${result.sha256}, ${outcome.record.stored}`);
        if (target.openInspector)
          await vscode.commands.executeCommand(Ids.commands.openInspector, {
            runId: run.runId,
            ...(result.handle ? { handle: result.handle } : {}),
          });
        return result;
      } catch (e) {
        if (e instanceof vscode.CancellationError) {
          finishAs('cancelled');
          return undefined;
        }
        throw e;
      }
    },
    (e) => deps.log.error('a run could not be finished', e),
  );
}
