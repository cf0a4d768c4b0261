/**
 * The same storage the editor uses, opened from outside it. The editor keeps one
 * workspace's evidence under its storage folder (`ExtensionContext.storageUri`, see
 * src/core/storageLayout.ts): `<storage>/evidence/{logs,blobs,artifacts}`, with every
 * store under one tenant, `w` (workspace) or `g` (global) followed by 32 hex digits of
 * the sha256 of the storage URI. Handles resolve only within their tenant, so the
 * server must land on the editor's tenant exactly; it is chosen, in this order:
 * 1. `--tenant`, as given (the editor passes its own when it starts the server);
 * 2. the one tenant folder already under `<storage>/evidence/logs` (the editor creates
 *    it on activation; a storage folder belongs to one workspace, so there is one);
 * 3. derived as the editor derives it, from the folder's `file:` URI spelled the way
 *    VS Code's `Uri.toString()` spells it (so the editor, opened later, agrees).
 */
import { readdir } from 'node:fs/promises';
import { ensureLayout, isSafeSegment, layoutOfFolder, type StorageLayout } from '../core/index.js';

/** The editor's `StorageLayout` of the folder, with the tenant this server chose. */
export interface McpStorage extends StorageLayout {
  /** How the tenant was chosen. */
  readonly tenantSource: 'explicit' | 'existing' | 'derived';
}

/** The shape of every tenant the editor mints. */
const EDITOR_TENANT = /^[wg][0-9a-f]{32}$/;

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
export async function openStorage(storageDir: string, choice: StorageChoice = {}): Promise<McpStorage> {
  // The core's layout and derivation (the editor's), from the folder's `file:` URI as VS Code spells it.
  const derived = layoutOfFolder(storageDir, choice.global ?? false);
  await ensureLayout(derived);
  const withTenant = (tenant: string, tenantSource: McpStorage['tenantSource']): McpStorage => ({ ...derived, tenant, global: tenant.startsWith('g'), tenantSource });
  if (choice.tenant !== undefined) {
    if (!isSafeSegment(choice.tenant)) throw new Error('--tenant must be one safe path segment (letters, digits, ".", "_", "-")');
    return withTenant(choice.tenant, 'explicit');
  }
  const existing = (await readdir(derived.logsDir, { withFileTypes: true })).filter((e) => e.isDirectory() && EDITOR_TENANT.test(e.name)).map((e) => e.name);
  if (existing.length === 1 && (choice.global === undefined || existing[0]!.startsWith(choice.global ? 'g' : 'w'))) {
    return withTenant(existing[0]!, 'existing');
  }
  if (existing.length > 1 && !existing.includes(derived.tenant)) {
    throw new Error(`${existing.length} tenants are stored under ${derived.logsDir}; pass --tenant to choose one`);
  }
  return withTenant(derived.tenant, 'derived');
}
