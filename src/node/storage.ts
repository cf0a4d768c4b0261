/**
 * The same storage the editor uses, opened from outside it. The editor keeps one
 * workspace's evidence under its storage folder (`ExtensionContext.storageUri`, see
 * src/core/storageLayout.ts): `<storage>/evidence/{logs,blobs,artifacts}`, with every
 * store under one tenant, `w` (workspace) or `g` (global) followed by 32 hex digits of
 * the sha256 of the storage URI. Handles resolve only within their tenant, so the
 * server must land on the editor's tenant exactly, whatever spelling of the folder's path
 * it was given and however many servers start at once (docs/contracts.md §2.6); it is
 * chosen, in this order:
 * 1. `--tenant`, as given (the editor passes its own when it starts the server);
 * 2. the tenant recorded in `<storage>/evidence/.tenant-v1` by the first process that
 *    chose one;
 * 3. the one tenant folder already under `<storage>/evidence/logs` (the editor creates
 *    it on activation; a storage folder belongs to one workspace, so there is one);
 * 4. derived as the editor derives it, from the `file:` URI of the folder's real path
 *    (symlinks resolved) spelled the way VS Code's `Uri.toString()` spells it (so the
 *    editor, opened later, agrees).
 * A choice by 3 or 4 is recorded (2) atomically; a process that loses that race takes
 * the winner's: two servers started together through two spellings of one folder (one a
 * symlink) must not choose two tenants, each then refusing the other's handles for ever.
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

/** The editor's `StorageLayout` of the folder, with the tenant this server chose. */
export interface OpenedStorage extends StorageLayout {
  /** How the tenant was chosen (`recorded`: read from the folder's tenant file). */
  readonly tenantSource: 'explicit' | 'recorded' | 'existing' | 'derived';
}

/** Options of `openStorage`. */
export interface StorageChoice {
  /** Use this tenant (one safe path segment). */
  readonly tenant?: string;
  /** Derive a global-storage tenant (`g…`) when nothing else decides. */
  readonly global?: boolean;
}

/**
 * Creates the layout's folders under `storageDir` and chooses the tenant; throws a
 * sentence for a person (it is a start-up failure, never shown to a model).
 */
export async function openStorage(storageDir: string, choice: StorageChoice = {}): Promise<OpenedStorage> {
  await ensureLayout(layoutOfFolder(storageDir, choice.global ?? false));
  // The core's layout and derivation (the editor's), from the `file:` URI of the folder's
  // real path: every spelling of it (a symlink, `..`, a trailing slash) is the same folder.
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
  // A recorded tenant of the other kind than `--global` asks for is not this choice's.
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

/** The tenant chosen when none is recorded: the one editor tenant folder stored, else the derived one. */
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
