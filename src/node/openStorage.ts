/**
 * The editor's storage opened from outside. Handles resolve only within their tenant, so this must land on the
 * editor's exactly, whatever spelling of the path and however many servers start at once (docs/contracts.md §2.6):
 * `--tenant`, else the recorded one, else the one tenant folder there, else derived as the editor does; a derived
 * choice is recorded atomically and a loser of that race takes the winner's.
 */
import { readdir, realpath } from 'node:fs/promises';
import {
  claimTenant,
  EDITOR_TENANT,
  ensureLayout,
  isSafeSegment,
  layoutOfFolder,
  recordedTenant,
  type StorageLayout,
} from '../core/index.js';

export interface OpenedStorage extends StorageLayout {
  readonly tenantSource: 'explicit' | 'recorded' | 'existing' | 'derived';
}

export interface StorageChoice {
  readonly tenant?: string;
  readonly global?: boolean;
}

/** Throws a sentence for a person: a start-up failure, never shown to a model. */
export async function openStorage(storageDir: string, choice: StorageChoice = {}): Promise<OpenedStorage> {
  await ensureLayout(layoutOfFolder(storageDir, choice.global ?? false));
  // From the folder's real path: every spelling of it is the same folder.
  const derived = layoutOfFolder(await realpath(storageDir), choice.global ?? false);
  const withTenant = (tenant: string, tenantSource: OpenedStorage['tenantSource']): OpenedStorage => ({
    ...derived,
    tenant,
    global: tenant.startsWith('g'),
    tenantSource,
  });
  if (choice.tenant !== undefined) {
    if (!isSafeSegment(choice.tenant))
      throw new Error('--tenant must be one safe path segment (letters, digits, ".", "_", "-")');
    return withTenant(choice.tenant, 'explicit');
  }
  const fits = (tenant: string): boolean => choice.global === undefined || tenant.startsWith(choice.global ? 'g' : 'w');
  const recorded = await recordedTenant(derived.root);
  if (recorded !== undefined && fits(recorded)) return withTenant(recorded, 'recorded');
  const candidate = await candidateTenant(derived, fits);
  if (recorded !== undefined) return withTenant(candidate.tenant, candidate.source);
  // Another process may have recorded its choice since: then that one is the folder's.
  const claimed = await claimTenant(derived.root, candidate.tenant);
  return claimed !== candidate.tenant && fits(claimed)
    ? withTenant(claimed, 'recorded')
    : withTenant(candidate.tenant, candidate.source);
}

async function candidateTenant(
  derived: StorageLayout,
  fits: (tenant: string) => boolean,
): Promise<{ tenant: string; source: 'existing' | 'derived' }> {
  const existing = (await readdir(derived.logsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && EDITOR_TENANT.test(e.name))
    .map((e) => e.name);
  if (existing.length === 1 && fits(existing[0]!)) return { tenant: existing[0]!, source: 'existing' };
  if (existing.length > 1 && !existing.includes(derived.tenant)) {
    throw new Error(`${existing.length} tenants are stored under ${derived.logsDir}; pass --tenant to choose one`);
  }
  return { tenant: derived.tenant, source: 'derived' };
}
