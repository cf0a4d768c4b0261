/**
 * **Remove Team Evidence…** (docs/contracts.md §7.3): picks a store of the user's settings, confirms, then takes it
 * out of the settings, deletes its keys from SecretStorage and this storage's local index of it. The bucket is not
 * touched. `{ name, confirmed: true }` skips the questions.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { teamStoreId } from '../../core/index.js';
import { Ids } from '../ids.js';
import type { Log } from '../log.js';
import type { ServicesHost } from '../services.js';
import { TEAM_STORES_KEY } from './addTeamEvidence.js';
import { teamSecretKey, teamStoreNames, withoutTeamStore } from './teamSettings.js';

const title = 'Bounded Evidence: Remove Team Evidence';

/** The removed store's name, or undefined when cancelled or there was nothing to remove (said so). */
export async function removeTeamEvidence(
  deps: { host: ServicesHost; log: Log; secrets: vscode.SecretStorage },
  given?: { name?: unknown; confirmed?: unknown },
): Promise<string | undefined> {
  const config = vscode.workspace.getConfiguration(Ids.configSection);
  const current = config.inspect<unknown[]>(TEAM_STORES_KEY)?.globalValue;
  const names = teamStoreNames(current);
  if (names.length === 0) {
    void vscode.window.showInformationMessage(`${title}: no team store is added in your user settings.`);
    return undefined;
  }
  const name =
    typeof given?.name === 'string'
      ? given.name
      : (
          await vscode.window.showQuickPick(
            names.map((n) => ({ label: n })),
            // A focus change (a listing's refresh, the inspector) must not close it unanswered.
            { title, placeHolder: 'The team store to remove (its bucket is not touched)', ignoreFocusOut: true },
          )
        )?.label;
  if (name === undefined) return undefined;
  const cut = withoutTeamStore(current, name, process.env);
  if (!cut) {
    void vscode.window.showErrorMessage(`${title}: no team store named ${name} is added. Nothing was removed.`);
    return undefined;
  }
  const confirmed =
    given?.confirmed === true ||
    (await vscode.window
      .showWarningMessage(
        `Remove team store ${name}?`,
        {
          modal: true,
          detail:
            'Its runs leave the inspector and the Runs view, its access keys leave SecretStorage and its local ' +
            'index is deleted. Nothing in the bucket is touched; adding it again lists its runs again.',
        },
        'Remove',
      )
      .then(
        (choice) => choice === 'Remove',
        () => false,
      ));
  if (!confirmed) return undefined;
  await config.update(TEAM_STORES_KEY, cut.remaining, vscode.ConfigurationTarget.Global);
  await deps.secrets.delete(teamSecretKey(name));
  // The services reopen without it first, so its catalogs are closed before their folder goes.
  const services = await deps.host.rebuild().then(
    () => deps.host.get(),
    () => undefined,
  );
  if (cut.removed && services) {
    const id = teamStoreId(cut.removed);
    // Another entry naming the same bucket and prefix shares the index.
    if (!services.teams.some((t) => t.id === id))
      await fsp.rm(path.join(services.layout.root, 'team', id), { recursive: true, force: true });
  }
  deps.log.info(`team store ${name} removed`);
  void vscode.window.showInformationMessage(`Bounded Evidence: team store ${name} removed. The bucket is not touched.`);
  return name;
}
