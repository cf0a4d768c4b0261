/**
 * Where one workspace's evidence lives, and whose it is, for every front end: the editor
 * keeps it under its storage folder (`storageUri`, or the global storage when no folder
 * is open), never in the user's folders, and the MCP server opens the same folder from
 * outside. The tenant is derived from that location, so two workspaces never share
 * handles even when their run ids collide, and a handle copied from another workspace is
 * access denied.
 */
import { link, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { processExists, replaceFileText, tempNameFor } from './files/localFile.js';
import { sha256Hex } from './integrity/sha256.js';

/** The folders of one workspace's evidence and its tenant. */
export interface StorageLayout {
  /** `<storage>/evidence` */
  readonly root: string;
  /** Run logs: `<root>/logs/<tenant>/<runId>.jsonl`. */
  readonly logsDir: string;
  /**
   * Filesystem blobs: `<root>/blobs/<tenant>/<runId>/…`, and artifacts at `<root>/blobs/<tenant>/artifacts/<sha256>`.
   */
  readonly blobsDir: string;
  /**
   * Where artifacts of `evidence_readFile` lived in the old layout (`<root>/artifacts/<tenant>/artifact-…`):
   * only read, to move what is there into the blob store on first read; no longer created.
   */
  readonly artifactsDir: string;
  /** One safe path segment naming this workspace's storage. */
  readonly tenant: string;
  /** True when no folder is open and the global storage is used. */
  readonly global: boolean;
}

/**
 * The tenant of a storage location: `w` (workspace) or `g` (global) and 32 hex digits of
 * the sha256 of its URI. A hash, not the path itself, because tenants appear in blob
 * keys (S3 object names) and must be safe segments that reveal no host path.
 */
export function tenantFor(storageUri: string, global: boolean): string {
  return `${global ? 'g' : 'w'}${sha256Hex(storageUri).slice(0, 32)}`;
}

/**
 * The workspace storage folder every window of one workspace shares. When another window's
 * extension host holds the lock of `<workspaceStorage>/<id>/`, VS Code gives this window
 * `<id>-1/` … `<id>-9/` instead (extensionHostProcess `_getWorkspaceStorageURI`): a second browser
 * tab on the same folder, or a reload while the server keeps the old host for reconnection.
 * Its evidence would then start empty and the first window's runs would seem lost. The evidence
 * store is made for several processes at once (§2.6), so such a window uses the base folder's
 * storage: `storageDir` is `<workspaceStorage>/<id>-<n>/<extension>`; the base is used only when
 * `<workspaceStorage>/<id>/` exists (`exists` is asked of that one path), else `storageDir` stays.
 */
export function sharedWorkspaceStorage(storageDir: string, exists: (dir: string) => boolean): string {
  const windowDir = path.dirname(storageDir);
  const m = /^(.+)-([1-9])$/.exec(path.basename(windowDir));
  if (!m) return storageDir;
  const base = path.join(path.dirname(windowDir), m[1]!);
  return exists(base) ? path.join(base, path.basename(storageDir)) : storageDir;
}

/** The layout under a storage folder (nothing is created). */
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

/** Creates the layout's folders (the tenant folders are made by the stores). */
export async function ensureLayout(layout: StorageLayout): Promise<void> {
  for (const dir of [layout.logsDir, layout.blobsDir]) await mkdir(dir, { recursive: true });
}

/**
 * `Uri.file(fsPath).toString()` of VS Code for a POSIX path: every character but
 * `A-Z a-z 0-9 - . _ ~` and `/` is percent-encoded as UTF-8 with upper-case hex
 * (`encodeURIComponent` leaves `! ' ( ) *` alone; VS Code does not).
 */
export function vscodeFileUri(fsPath: string): string {
  const encoded = fsPath
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
  return `file://${encoded.startsWith('/') ? '' : '/'}${encoded}`;
}

/** The layout the editor derives for a storage folder given as a path (`global`: no folder was open). */
export function layoutOfFolder(storageDir: string, global: boolean): StorageLayout {
  const dir = path.resolve(storageDir);
  return layoutAt(dir, vscodeFileUri(dir), global);
}

/**
 * The file under `<storage>/evidence` that records the folder's tenant once chosen
 * (docs/contracts.md §2.6): written once, by whichever process chooses first, and read by
 * every later one, so the tenant is the folder's own and not the spelling of its path, nor
 * the winner of a race between processes starting together.
 */
export const TENANT_FILE = '.tenant-v1';

/** The shape of every tenant the editor derives: `w` or `g` and 32 hex digits. */
export const EDITOR_TENANT = /^[wg][0-9a-f]{32}$/;

/**
 * The tenant recorded under `root` (`<storage>/evidence`), or undefined when none is.
 * Throws a sentence when the file holds anything but one editor-shaped tenant (it is
 * only ever written whole: `claimTenant`).
 */
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
 * Records `tenant` as the tenant of `root` unless one is recorded already, atomically:
 * the whole file is written under a temporary name, then hard-linked to its name, which
 * fails when the name exists (an exclusive create whose content is never seen half
 * written). Returns the tenant now recorded: `tenant`, or the one another process
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

/**
 * Where a running `mcp --http` server leaves its URL and bearer token, in the storage
 * folder (beside `evidence/`), mode 0600, removed on its clean exit (docs/contracts.md §4.2).
 */
export const MCP_HTTP_INFO_FILE = 'mcp-http.json';

/** What `mcp-http.json` holds. */
export interface McpHttpInfo {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
}

/**
 * The HTTP server running on `storageDir`, for Copy MCP Server Configuration: undefined
 * when there is no file, it is not this shape, or its process is gone (a killed server
 * cannot remove its file).
 */
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

/**
 * Writes `mcp-http.json` for a server that just started listening: aside, then renamed, so a
 * reader never sees half a file nor the token under a wider mode. Returns the file's path.
 */
export async function writeMcpHttpInfo(storageDir: string, info: McpHttpInfo): Promise<string> {
  const file = path.join(storageDir, MCP_HTTP_INFO_FILE);
  await replaceFileText(file, `${JSON.stringify(info, null, 2)}\n`, 0o600);
  return file;
}

/** Removes `mcp-http.json` on a clean exit, unless another start on the same storage has written its own since. */
export async function removeMcpHttpInfo(storageDir: string, token: string): Promise<void> {
  const file = path.join(storageDir, MCP_HTTP_INFO_FILE);
  const current = await readFile(file, 'utf8').then(
    (t) => (JSON.parse(t) as McpHttpInfo).token,
    () => undefined,
  );
  if (current === token) await rm(file, { force: true });
}
