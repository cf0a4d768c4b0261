/**
 * Opens a file inside a root once, then proves the descriptor lies inside (docs/contracts.md §5.3): checking a path
 * and opening it again is a race a swapped symlink wins, and Node has no `openat`. A file with several hard links is
 * refused: its other names may lie outside.
 */
import { constants, promises as fsp, type Stats } from 'node:fs';
import * as path from 'node:path';
import type { SecretPathRules } from './secretPaths.js';

export type ConfinedOpenRefusal = 'notFound' | 'escapes' | 'secret' | 'isFolder' | 'notRegular' | 'hardLinked';

/** The caller closes `handle`. */
export interface ConfinedFile {
  readonly handle: fsp.FileHandle;
  readonly stat: Stats;
}

const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Never throws for a refusal. */
export async function openConfined(
  root: string,
  abs: string,
  rules: SecretPathRules,
): Promise<ConfinedFile | { readonly refused: ConfinedOpenRefusal }> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(abs, OPEN_FLAGS);
  } catch (e) {
    // ELOOP: the last component became a link after it was resolved.
    return { refused: (e as NodeJS.ErrnoException).code === 'ELOOP' ? 'escapes' : 'notFound' };
  }
  let keep = false;
  try {
    const stat = await handle.stat();
    const where = await descriptorPath(handle, abs, stat);
    if (where === undefined) return { refused: 'notFound' };
    if (!isInside(root, where)) return { refused: 'escapes' };
    if (rules.isSecret(path.relative(root, where))) return { refused: 'secret' };
    if (stat.isDirectory()) return { refused: 'isFolder' };
    if (!stat.isFile()) return { refused: 'notRegular' };
    if (stat.nlink > 1) return { refused: 'hardLinked' };
    keep = true;
    return { handle, stat };
  } finally {
    if (!keep) await handle.close().catch(() => undefined);
  }
}

/** Undefined when it was removed or replaced. */
async function descriptorPath(handle: fsp.FileHandle, abs: string, stat: Stats): Promise<string | undefined> {
  let where: string | undefined;
  if (process.platform === 'linux') {
    where = await fsp.readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (where?.endsWith(' (deleted)')) return undefined;
  }
  where ??= await fsp.realpath(abs).catch(() => undefined);
  if (where === undefined) return undefined;
  const named = await fsp.lstat(where).catch(() => undefined);
  return named && named.dev === stat.dev && named.ino === stat.ino ? where : undefined;
}
