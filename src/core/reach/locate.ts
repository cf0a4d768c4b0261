/**
 * Where the product and a folder's storage are found on THIS machine, at run time, so a committed project file names
 * neither (docs/contracts.md §6.2 "Portable project files").
 */
// Not node:crypto: it would be the largest load of a hook outside the editor.
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { replaceFileText } from '../files/localFile.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Undefined without a home. */
export function userStateDir(env: Env, home = env.HOME): string | undefined {
  const base = env.XDG_STATE_HOME || (home ? path.join(home, '.local', 'state') : undefined);
  return base ? path.join(base, 'bounded-evidence') : undefined;
}

/** A copy of the editor's shim for terminals outside it. */
export const STATE_CLI = path.join('bin', 'bounded-evidence');
const WORKSPACES_FILE = 'workspaces.json';

/**
 * Each is run only when it is an executable file: `command -v` alone says yes to a non-executable file in some
 * shells.
 */
const FINDER =
  'for be in "${BOUNDED_EVIDENCE_CLI-}" "$(command -v bounded-evidence)" ' +
  '"${XDG_STATE_HOME:-$HOME/.local/state}/bounded-evidence/bin/bounded-evidence"; ' +
  'do [ -f "$be" ] && [ -x "$be" ] && exec "$be"';

/**
 * Nothing in it reads stdin, so the piped event reaches the command line whole; with no command line found it exits 0
 * and prints nothing.
 */
export function portableCommand(words: readonly string[]): string {
  for (const w of words)
    if (!/^[A-Za-z0-9._=-]+$/.test(w)) throw new Error(`portableCommand takes plain words only, not ${w}`);
  return `${FINDER} ${words.join(' ')}; done; exit 0`;
}

export function isPortableCommand(command: unknown): boolean {
  return typeof command === 'string' && command.startsWith(FINDER);
}

export function portableWords(command: string): string[] | undefined {
  if (!isPortableCommand(command)) return undefined;
  const m = /^ ([^;]*); done; exit 0$/.exec(command.slice(FINDER.length));
  return m ? m[1]!.split(' ').filter(Boolean) : undefined;
}

/** Doctor says which. */
export type StorageSource = 'flag' | 'environment' | 'editor' | 'default';

export function projectRootOf(cwd: string, exists: (p: string) => boolean = existsSync): string {
  let dir = path.resolve(cwd);
  for (;;) {
    if (exists(path.join(dir, '.git'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(cwd);
    dir = up;
  }
}

/**
 * Keyed by the project root, so the hook, the command line and every agent's MCP server share one tenant. Undefined
 * without a home.
 */
export function defaultStorageFor(env: Env, cwd: string, exists?: (p: string) => boolean): string | undefined {
  const data = env.XDG_DATA_HOME || (env.HOME ? path.join(env.HOME, '.local', 'share') : undefined);
  if (!data) return undefined;
  const root = projectRootOf(cwd, exists);
  const name = (path.basename(root) || 'root').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  const hash = bytesToHex(sha256(utf8ToBytes(root))).slice(0, 16);
  return path.join(data, 'bounded-evidence', 'workspaces', `${name}-${hash}`);
}

function mappedStorage(mapFile: string, cwd: string): string | undefined {
  let map: unknown;
  try {
    map = JSON.parse(readFileSync(mapFile, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof map !== 'object' || map === null) return undefined;
  let best: [string, string] | undefined;
  for (const [folder, storage] of Object.entries(map)) {
    if (typeof storage !== 'string') continue;
    const inside = cwd === folder || cwd.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
    if (inside && (!best || folder.length > best[0].length)) best = [folder, storage];
  }
  return best?.[1];
}

/** Undefined only without a home. */
export function findStorage(
  env: Env,
  cwd: string | undefined,
  flag?: string,
): { dir: string; source: StorageSource } | undefined {
  if (flag) return { dir: flag, source: 'flag' };
  if (env.BOUNDED_EVIDENCE_STORAGE) return { dir: env.BOUNDED_EVIDENCE_STORAGE, source: 'environment' };
  if (!cwd) return undefined;
  const state = userStateDir(env);
  for (const home of [env.BOUNDED_EVIDENCE_HOME, state]) {
    const dir = home ? mappedStorage(path.join(home, WORKSPACES_FILE), cwd) : undefined;
    if (dir) return { dir, source: 'editor' };
  }
  const dir = defaultStorageFor(env, cwd);
  return dir ? { dir, source: 'default' } : undefined;
}

/** Other folders' entries kept; written through a rename. */
export async function recordWorkspace(dir: string, folder: string, storage: string): Promise<void> {
  const file = path.join(dir, WORKSPACES_FILE);
  let map: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(await fsp.readFile(file, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) map = parsed as Record<string, string>;
  } catch {
    /* missing or unreadable: start a new map */
  }
  if (map[folder] === storage) return;
  map[folder] = storage;
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  await replaceFileText(file, `${JSON.stringify(map, null, 2)}\n`, 0o600);
}
