/**
 * The editor keeps evidence under its storage folder, never in the user's folders. The tenant derives from that
 * location, so two workspaces never share handles.
 */
import { link, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { processExists, replaceFileText, tempNameFor } from './files/localFile.js';
import { sha256Hex } from './integrity/sha256.js';

export interface StorageLayout {
  readonly root: string;
  readonly logsDir: string;
  readonly blobsDir: string;
  /** The old layout of `evidence_readFile` artifacts: only read, to move them into the blob store. */
  readonly artifactsDir: string;
  readonly tenant: string;
  /** True when no folder is open and the global storage is used. */
  readonly global: boolean;
}

/** A hash, not the path: tenants appear in blob keys (S3 object names) and must reveal no host path. */
export function tenantFor(storageUri: string, global: boolean): string {
  return `${global ? 'g' : 'w'}${sha256Hex(storageUri).slice(0, 32)}`;
}

/**
 * A second window on one workspace gets `<id>-1/` … `<id>-9/` from VS Code while another holds the lock, and its
 * evidence would seem lost; the store takes several processes at once (§2.6), so it uses the base folder when that
 * exists.
 */
export function sharedWorkspaceStorage(storageDir: string, exists: (dir: string) => boolean): string {
  const windowDir = path.dirname(storageDir);
  const m = /^(.+)-([1-9])$/.exec(path.basename(windowDir));
  if (!m) return storageDir;
  const base = path.join(path.dirname(windowDir), m[1]!);
  return exists(base) ? path.join(base, path.basename(storageDir)) : storageDir;
}

export function layoutAt(storageDir: string, storageUri: string, global: boolean): StorageLayout {
  const root = path.join(storageDir, 'evidence');
  return {
    root,
    logsDir: path.join(root, 'logs'),
    blobsDir: path.join(root, 'blobs'),
    artifactsDir: path.join(root, 'artifacts'),
    tenant: tenantFor(storageUri, global),
    global,
  };
}

export async function ensureLayout(layout: StorageLayout): Promise<void> {
  for (const dir of [layout.logsDir, layout.blobsDir]) await mkdir(dir, { recursive: true });
}

/** VS Code's `Uri.file(fsPath).toString()`: unlike `encodeURIComponent` it also encodes `! ' ( ) *`. */
export function vscodeFileUri(fsPath: string): string {
  const encoded = fsPath
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
  return `file://${encoded.startsWith('/') ? '' : '/'}${encoded}`;
}

export function layoutOfFolder(storageDir: string, global: boolean): StorageLayout {
  const dir = path.resolve(storageDir);
  return layoutAt(dir, vscodeFileUri(dir), global);
}

/**
 * Records the folder's tenant once chosen (docs/contracts.md §2.6), so the tenant is the folder's own, not the
 * spelling of its path nor the winner of a race.
 */
export const TENANT_FILE = '.tenant-v1';

export const EDITOR_TENANT = /^[wg][0-9a-f]{32}$/;

/** Throws a sentence when the file holds anything but one editor-shaped tenant. */
export async function recordedTenant(root: string): Promise<string | undefined> {
  const file = path.join(root, TENANT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const tenant = text.trim();
  if (!EDITOR_TENANT.test(tenant) || text !== `${tenant}\n`)
    throw new Error(`${file} does not hold a tenant; remove it, or pass --tenant to choose one`);
  return tenant;
}

/**
 * Atomic: written under a temporary name, then hard-linked, which fails when the name exists. Returns the tenant
 * recorded first.
 */
export async function claimTenant(root: string, tenant: string): Promise<string> {
  if (!EDITOR_TENANT.test(tenant)) throw new RangeError('only an editor-shaped tenant is recorded');
  const file = path.join(root, TENANT_FILE);
  const temp = tempNameFor(file);
  await writeFile(temp, `${tenant}\n`, { flag: 'wx' });
  try {
    await link(temp, file);
    return tenant;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return (await recordedTenant(root))!;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Holds a running `mcp --http` server's URL and bearer token, mode 0600 (docs/contracts.md §4.2). */
export const MCP_HTTP_INFO_FILE = 'mcp-http.json';

export interface McpHttpInfo {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
}

/** Undefined when its process is gone: a killed server cannot remove its file. */
export async function runningMcpHttpServer(storageDir: string): Promise<McpHttpInfo | undefined> {
  let info: Partial<McpHttpInfo>;
  try {
    info = JSON.parse(await readFile(path.join(storageDir, MCP_HTTP_INFO_FILE), 'utf8')) as Partial<McpHttpInfo>;
  } catch {
    return undefined;
  }
  if (
    typeof info.url !== 'string' ||
    !/^http:\/\/127\.0\.0\.1:[0-9]+\/mcp$/.test(info.url) ||
    typeof info.token !== 'string' ||
    !/^[0-9a-f]{64}$/.test(info.token) ||
    !Number.isSafeInteger(info.pid)
  )
    return undefined;
  if (!processExists(info.pid!)) return undefined;
  return { url: info.url, token: info.token, pid: info.pid! };
}

/** Written aside, then renamed, so a reader never sees half a file nor the token under a wider mode. */
export async function writeMcpHttpInfo(storageDir: string, info: McpHttpInfo): Promise<string> {
  const file = path.join(storageDir, MCP_HTTP_INFO_FILE);
  await replaceFileText(file, `${JSON.stringify(info, null, 2)}\n`, 0o600);
  return file;
}

/** Unless another start on the same storage has written its own since. */
export async function removeMcpHttpInfo(storageDir: string, token: string): Promise<void> {
  const file = path.join(storageDir, MCP_HTTP_INFO_FILE);
  const current = await readFile(file, 'utf8').then(
    (t) => (JSON.parse(t) as McpHttpInfo).token,
    () => undefined,
  );
  if (current === token) await rm(file, { force: true });
}
