/**
 * Opening a file inside a root exactly once, and proving afterwards that what was opened
 * lies inside the root (docs/contracts.md §5.3).
 *
 * Checking a path and then opening it by name again is a race: a folder swapped for a
 * symlink in between hands back a file from anywhere. Node has no
 * `openat`, so instead the descriptor itself is checked after the open: on Linux its own
 * path from `/proc/self/fd/<fd>` (the kernel's name for the opened file, not a second
 * lookup), confirmed by device and inode against `fstat`; elsewhere the real path is
 * resolved again and must name the same device and inode. The last component is opened
 * with `O_NOFOLLOW`, and `O_NONBLOCK | O_NOCTTY` so a FIFO or a terminal cannot hang or
 * capture the caller. A file with more than one hard link is refused: its other names
 * may lie outside the root and cannot be found cheaply.
 */
import { constants, promises as fsp, type Stats } from 'node:fs';
import * as path from 'node:path';
import type { SecretPathRules } from './secretPaths.js';

/** Why an open was refused. */
export type ConfinedOpenRefusal = 'notFound' | 'escapes' | 'secret' | 'isFolder' | 'notRegular' | 'hardLinked';

/** An open regular file proven to lie inside the root; the caller closes `handle`. */
export interface ConfinedFile {
  readonly handle: fsp.FileHandle;
  readonly stat: Stats;
}

const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** True when `child` is `root` or below it (both absolute, normalized). */
function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Opens `abs` (already resolved and checked by name) once and proves the descriptor lies
 * inside `root` (a real path) under a name `rules` allows. Never throws for a refusal.
 */
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

/**
 * Where the opened file is now: its descriptor's own path (Linux), or its real path when
 * that names the same device and inode; undefined when it was removed or replaced.
 */
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
