/**
 * `activate` only wires: each feature registers itself into `context.subscriptions`; the one shared state, the
 * current services, is a `ServicesHost` rebuilt when a setting changes.
 */
import * as vscode from 'vscode';
import type { BoundedEvidenceApi } from './api/api.js';
import { createApi } from './api/apiImpl.js';
import { registerArtifactDocuments } from './documents/artifactDocument.js';
import { registerCommands } from './commands/index.js';
import { registerEvidenceLinks } from './links/evidenceLinks.js';
import { registerEvidenceView } from './views/evidenceView.js';
import { openWalkthroughOnFirstStart } from './views/firstStart.js';
import { registerSavingsView } from './savings/savingsView.js';
import { readS3Credentials } from './commands/storageCommands.js';
import { Config } from './config.js';
import { registerInspector } from './inspector/inspectorPanel.js';
import { Log } from './log.js';
import { registerParticipant } from './participant/participant.js';
import { registerReach } from './reach/index.js';
import { pruneStorage } from './pruneStorage.js';
import { RunRouter } from './runRouter.js';
import { openServices, ServicesHost } from './services.js';
import { storageLayout } from './storage.js';
import { registerTeamEvidence, teamStoreEntries } from './team/index.js';
import { registerTools } from './tools/index.js';

export type { BoundedEvidenceApi } from './api/api.js';

export function activate(context: vscode.ExtensionContext): BoundedEvidenceApi {
  const log = Log.create();
  const config = new Config();
  context.subscriptions.push(log, config);
  const layout = storageLayout(context);
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  const host = new ServicesHost(
    () =>
      openServices(
        {
          layout,
          folder,
          log,
          s3Credentials: () => readS3Credentials(context.secrets),
          teamStores: () => teamStoreEntries(context.secrets, log),
        },
        config.settings,
      ),
    log,
  );
  const router = new RunRouter();
  context.subscriptions.push(
    host,
    config.onDidChange(() => {
      log.info('settings changed: reopening the evidence storage');
      host.rebuild().catch(() => undefined);
    }),
  );

  registerTools(context, { host, router, log });
  registerParticipant(context, { host, router, log });
  const commandDeps = {
    host,
    router,
    log,
    secrets: context.secrets,
    extensionPath: context.extensionPath,
    globalState: context.globalState,
  };
  registerCommands(context, commandDeps);
  const teamSynced = registerTeamEvidence(context, { host, log, secrets: context.secrets });
  const stored = registerEvidenceView(context, commandDeps, teamSynced);
  registerSavingsView(
    context,
    async () => (await host.get().catch(() => undefined))?.runs,
    stored,
    (m, e) => log.error(m, e),
  );
  registerArtifactDocuments(context, host);
  registerEvidenceLinks(context, host, log);
  void registerReach(context, { host, log });
  registerInspector(context, {
    runs: async () => (await host.get().catch(() => undefined))?.reads,
    log: log.channel,
    onDidChangeStore: host.onDidChange,
    onDidStore: stored,
  });

  void openWalkthroughOnFirstStart(context, log).catch((e: unknown) =>
    log.error('first start: opening the walkthrough failed', e),
  );

  // Retention at start-up, once per activation, after the stores are open.
  host
    .get()
    .then((services) => pruneStorage(services, log))
    .catch((e: unknown) => log.error('start-up pruning failed', e));
  return createApi(host, context.subscriptions);
}

/** Every registration lives in `context.subscriptions`. */
export function deactivate(): void {}
