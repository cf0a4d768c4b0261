/**
 * Team evidence in the editor (docs/contracts.md §7): the stores of the user's settings with their credentials, for
 * the services to open; **Add Team Evidence…** and **Remove Team Evidence…**; and the listings (after each open,
 * when the window gets focus, and on Refresh), which say when a store brought new runs so that the inspector and the
 * Runs view read again.
 */
import * as vscode from 'vscode';
import type { TeamCredentials } from '../../core/index.js';
import { Ids } from '../ids.js';
import type { Log } from '../log.js';
import type { EvidenceServices, ServicesHost, TeamStoreEntry } from '../services.js';
import { addTeamEvidence, TEAM_STORES_KEY } from './addTeamEvidence.js';
import { removeTeamEvidence } from './removeTeamEvidence.js';
import { readTeamStores, teamSecretKey } from './teamSettings.js';

/** The stores of the user's settings, with their keys from SecretStorage; each problem is a line of the log. */
export async function teamStoreEntries(secrets: vscode.SecretStorage, log: Log): Promise<TeamStoreEntry[]> {
  const inspected = vscode.workspace.getConfiguration(Ids.configSection).inspect(TEAM_STORES_KEY);
  const { stores, problems } = readTeamStores(inspected, process.env);
  for (const p of problems) log.warn(p);
  const entries: TeamStoreEntry[] = [];
  for (const { setting, location } of stores) {
    if (setting.credentials !== 'secretStorage') {
      entries.push({ name: setting.name, location });
      continue;
    }
    const credentials = parseKeys(await secrets.get(teamSecretKey(setting.name)));
    if (credentials) entries.push({ name: setting.name, location, credentials });
    else log.warn(`team store ${setting.name} left out: its access keys are not in SecretStorage (add it again)`);
  }
  return entries;
}

function parseKeys(raw: string | undefined): TeamCredentials | undefined {
  try {
    const v = JSON.parse(raw ?? '') as Record<string, unknown>;
    return typeof v.accessKeyId === 'string' && typeof v.secretAccessKey === 'string'
      ? { accessKeyId: v.accessKeyId, secretAccessKey: v.secretAccessKey }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Lists every team store of `services` and mirrors its new runs; true when any store added or refused a run. */
async function syncTeams(services: EvidenceServices, log: Log): Promise<boolean> {
  const reports = await Promise.all(
    services.teams.map((t) =>
      t.sync().then(
        (r) => {
          log.info(`team store ${t.name}: ${r.listed} runs listed, ${r.added} new, ${r.refused.length} refused`);
          for (const id of r.refused)
            log.warn(`team store ${t.name}: run ${id} refused: artifact digest does not match its recorded identity`);
          return r.added + r.refused.length > 0;
        },
        (e: unknown) => {
          log.warn(`team store ${t.name} could not be listed: ${e instanceof Error ? e.message : String(e)}`);
          return false;
        },
      ),
    ),
  );
  return reports.some(Boolean);
}

/** Registers the command and the listings; the event fires when a listing brought something new. */
export function registerTeamEvidence(
  context: vscode.ExtensionContext,
  deps: { host: ServicesHost; log: Log; secrets: vscode.SecretStorage },
): vscode.Event<void> {
  const synced = new vscode.EventEmitter<void>();
  const sync = async (): Promise<void> => {
    const services = await deps.host.get().catch(() => undefined);
    if (services && services.teams.length > 0 && (await syncTeams(services, deps.log))) synced.fire();
  };
  context.subscriptions.push(
    synced,
    vscode.commands.registerCommand(Ids.commands.addTeamEvidence, (given?: Record<string, unknown>) =>
      addTeamEvidence(deps.secrets, deps.log, given),
    ),
    vscode.commands.registerCommand(Ids.commands.removeTeamEvidence, (given?: Record<string, unknown>) =>
      removeTeamEvidence(deps, given),
    ),
    vscode.commands.registerCommand(Ids.commands.refreshTeamEvidence, sync),
    deps.host.onDidChange(() => void sync()),
    vscode.window.onDidChangeWindowState((s) => {
      if (s.focused) void sync();
    }),
  );
  void sync();
  return synced.event;
}
