/**
 * The team stores this server reads handles through (docs/contracts.md §7.2), from the environment only, never a
 * file of the folder served. A store that cannot be opened is logged and left out: the local evidence is served
 * whatever the bucket does.
 */
import * as path from 'node:path';
import { configuredTeamStores, TeamStore } from '../core/index.js';
import type { DeclaredSettings } from '../node/resolveSettings.js';
import type { OpenedStorage } from '../node/openStorage.js';

/** Never throws. */
export async function openTeamStores(
  storage: OpenedStorage,
  settings: DeclaredSettings,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<TeamStore[]> {
  const teams: TeamStore[] = [];
  let named;
  try {
    named = configuredTeamStores(env);
  } catch (e) {
    log(`team stores left out: ${e instanceof Error ? e.message : String(e)}`);
    return teams;
  }
  for (const t of named) {
    try {
      const team = await TeamStore.open({
        name: t.name,
        location: t.location,
        teamDir: path.join(storage.root, 'team'),
        reader: { maxByteWindow: settings.maxRangeBytes, searchTimeoutMs: settings.searchTimeoutMs },
      });
      void team.sync().then(
        (r) => log(`team store ${t.name}: ${r.listed} runs listed, ${r.added} new, ${r.refused.length} refused`),
        (e: unknown) => log(`team store ${t.name} could not be listed: ${e instanceof Error ? e.message : String(e)}`),
      );
      teams.push(team);
    } catch (e) {
      log(`team store ${t.name} left out: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return teams;
}
