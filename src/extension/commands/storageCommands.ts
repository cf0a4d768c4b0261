/** S3 credentials are kept in SecretStorage, never in settings, never logged. */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
import { formatBytes } from '../../shared/bytes.js';
import { clearAll, pruneStorage, type PruneOverrides, type RetentionReport } from '../pruneStorage.js';
import type { CommandDeps } from './deps.js';

export async function pruneCommand(deps: CommandDeps, arg?: unknown): Promise<RetentionReport> {
  const overrides = (typeof arg === 'object' && arg !== null ? arg : {}) as PruneOverrides;
  const report = await pruneStorage(await deps.host.get(), deps.log, overrides);
  void vscode.window.showInformationMessage(
    report.deletedRuns.length === 0
      ? 'Bounded Evidence: nothing to prune; every run is within the retention settings.'
      : `Bounded Evidence: pruned ${report.deletedRuns.length} run(s) ` +
          `and ${report.deletedArtifacts} artifact(s), ` +
          `freed ${formatBytes(report.freedBytes)}.`,
  );
  return report;
}

/**
 * The confirmation is skipped only for `{ confirmed: true }`; in a test host, where modal dialogs are refused, an
 * unconfirmed call deletes nothing.
 */
export async function clearAllCommand(deps: CommandDeps, arg?: unknown): Promise<RetentionReport | undefined> {
  const confirmed =
    (arg as { confirmed?: unknown } | undefined)?.confirmed === true ||
    (await vscode.window
      .showWarningMessage(
        'Delete every recorded run and all evidence of this workspace?',
        {
          modal: true,
          detail: 'Handles and artifacts become unreadable. Runs still in progress are kept. This cannot be undone.',
        },
        'Delete All',
      )
      .then(
        (choice) => choice === 'Delete All',
        () => false,
      ));
  if (!confirmed) return undefined;
  const report = await clearAll(await deps.host.get(), deps.log);
  // The inspector and other listeners re-read the (now empty) store.
  await deps.host.rebuild();
  void vscode.window.showInformationMessage(
    `Bounded Evidence: deleted ${report.deletedRuns.length} run(s), ` +
      `freed ${formatBytes(report.freedBytes)}` +
      `${report.skippedRuns.length ? `; ${report.skippedRuns.length} running run(s) kept` : ''}.`,
  );
  return report;
}

export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export async function readS3Credentials(secrets: vscode.SecretStorage): Promise<S3Credentials | undefined> {
  const raw = await secrets.get(Ids.s3CredentialsSecret);
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<S3Credentials>;
    return typeof v.accessKeyId === 'string' && typeof v.secretAccessKey === 'string'
      ? { accessKeyId: v.accessKeyId, secretAccessKey: v.secretAccessKey }
      : undefined;
  } catch {
    return undefined;
  }
}

/** An empty key id removes them. */
export async function setS3CredentialsCommand(deps: CommandDeps, arg?: unknown): Promise<boolean> {
  const given = arg as Partial<S3Credentials> | undefined;
  const accessKeyId =
    typeof given?.accessKeyId === 'string'
      ? given.accessKeyId
      : await vscode.window.showInputBox({
          title: 'Bounded Evidence: S3 access key id',
          prompt: 'Leave empty to remove the stored credentials.',
          ignoreFocusOut: true,
        });
  if (accessKeyId === undefined) return false;
  if (accessKeyId === '') {
    await deps.secrets.delete(Ids.s3CredentialsSecret);
    deps.log.info('S3 credentials removed');
  } else {
    const secretAccessKey =
      typeof given?.secretAccessKey === 'string'
        ? given.secretAccessKey
        : await vscode.window.showInputBox({
            title: 'Bounded Evidence: S3 secret access key',
            password: true,
            ignoreFocusOut: true,
          });
    if (!secretAccessKey) return false;
    await deps.secrets.store(Ids.s3CredentialsSecret, JSON.stringify({ accessKeyId, secretAccessKey }));
    deps.log.info('S3 credentials stored in SecretStorage');
  }
  // So the next call uses the new credentials.
  await deps.host.rebuild();
  return true;
}
