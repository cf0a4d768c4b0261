/**
 * The same storage the editor uses, opened from outside it. The editor keeps one
 * workspace's evidence under its storage folder (`ExtensionContext.storageUri`, see
 * src/extension/storage.ts): `<storage>/evidence/{logs,blobs,artifacts}`, with every
 * store under one tenant, `w` (workspace) or `g` (global) followed by 32 hex digits of
 * the sha256 of the storage URI. Handles resolve only within their tenant, so the
 * server must land on the editor's tenant exactly; it is chosen, in this order:
 * 1. `--tenant`, as given (the editor passes its own when it starts the server);
 * 2. the one tenant folder already under `<storage>/evidence/logs` (the editor creates
 *    it on activation; a storage folder belongs to one workspace, so there is one);
 * 3. derived as the editor derives it, from the folder's `file:` URI spelled the way
 *    VS Code's `Uri.toString()` spells it (so the editor, opened later, agrees).
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { isSafeSegment } from '../core/index.js';

/** The folders of one workspace's evidence and its tenant (the editor's `StorageLayout`). */
export interface McpStorage {
  /** `<storage>/evidence` */
  readonly root: string;
  /** Run logs: `<root>/logs/<tenant>/<runId>.jsonl`. */
  readonly logsDir: string;
  /** Filesystem blobs: `<root>/blobs/<tenant>/…`. */
  readonly blobsDir: string;
  /** Artifacts of `evidence_readFile`: `<root>/artifacts/<tenant>/artifact-…`. */
  readonly artifactsDir: string;
  readonly tenant: string;
  /** How the tenant was chosen. */
  readonly tenantSource: 'explicit' | 'existing' | 'derived';
}

/** The shape of every tenant the editor mints. */
const EDITOR_TENANT = /^[wg][0-9a-f]{32}$/;

/**
 * `Uri.file(fsPath).toString()` of VS Code for a POSIX path: every character but
 * `A-Z a-z 0-9 - . _ ~` and `/` is percent-encoded as UTF-8 with upper-case hex
 * (`encodeURIComponent` leaves `! ' ( ) *` alone; VS Code does not).
 */
export function vscodeFileUri(fsPath: string): string {
  const encoded = fsPath.split('/').map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('/');
  return `file://${encoded.startsWith('/') ? '' : '/'}${encoded}`;
}

/** The tenant the editor derives for a storage folder (`global`: no folder was open). */
export function derivedTenant(storageDir: string, global: boolean): string {
  const uri = vscodeFileUri(path.resolve(storageDir));
  return `${global ? 'g' : 'w'}${createHash('sha256').update(uri).digest('hex').slice(0, 32)}`;
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
export async function openStorage(storageDir: string, choice: StorageChoice = {}): Promise<McpStorage> {
  const root = path.join(path.resolve(storageDir), 'evidence');
  const logsDir = path.join(root, 'logs');
  const blobsDir = path.join(root, 'blobs');
  const artifactsDir = path.join(root, 'artifacts');
  for (const dir of [logsDir, blobsDir, artifactsDir]) await mkdir(dir, { recursive: true });
  const layout = { root, logsDir, blobsDir, artifactsDir };
  if (choice.tenant !== undefined) {
    if (!isSafeSegment(choice.tenant)) throw new Error('--tenant must be one safe path segment (letters, digits, ".", "_", "-")');
    return { ...layout, tenant: choice.tenant, tenantSource: 'explicit' };
  }
  const derived = derivedTenant(storageDir, choice.global ?? false);
  const existing = (await readdir(logsDir, { withFileTypes: true })).filter((e) => e.isDirectory() && EDITOR_TENANT.test(e.name)).map((e) => e.name);
  if (existing.length === 1 && (choice.global === undefined || existing[0]!.startsWith(choice.global ? 'g' : 'w'))) {
    return { ...layout, tenant: existing[0]!, tenantSource: 'existing' };
  }
  if (existing.length > 1 && !existing.includes(derived)) {
    throw new Error(`${existing.length} tenants are stored under ${logsDir}; pass --tenant to choose one`);
  }
  return { ...layout, tenant: derived, tenantSource: 'derived' };
}
