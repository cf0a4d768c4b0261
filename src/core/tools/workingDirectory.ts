/**
 * The one rule set for a command's working directory (docs/contracts.md §5.2). One refusal sentence whatever the
 * reason, because the reason would tell the model what exists outside the folder.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { BUILTIN_SECRET_RULES } from '../files/secretPaths.js';

export const CWD_REFUSED =
  'error: cwd must be a relative folder inside the workspace folder (no "..", ' +
  'no link leading out, not .git or another secret folder)';

const CWD_NOT_FOLDER = 'error: cwd is not a folder in the workspace';

function segmentsOf(p: string): string[] {
  return p.split(/[\\/]/).filter((s) => s !== '' && s !== '.');
}

/** The path returned is the one checked, so a link swapped afterwards cannot redirect the command. */
export async function resolveWorkingDirectory(
  folder: string,
  cwd: string | undefined,
): Promise<{ dir: string } | { error: string }> {
  const root = await fsp.realpath(folder);
  if (cwd === undefined) return { dir: root };
  if (path.isAbsolute(cwd) || /^[A-Za-z]:/.test(cwd)) return { error: CWD_REFUSED };
  const asked = segmentsOf(cwd);
  if (asked.length === 0) return { dir: root };
  if (asked.includes('..') || BUILTIN_SECRET_RULES.isSecret(asked.join('/'))) return { error: CWD_REFUSED };
  const target = await fsp.realpath(path.join(root, ...asked)).catch(() => undefined);
  if (target === undefined) return { error: CWD_NOT_FOLDER };
  const rel = path.relative(root, target);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) || BUILTIN_SECRET_RULES.isSecret(rel))
    return { error: CWD_REFUSED };
  if (
    !(await fsp.stat(target).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return { error: CWD_NOT_FOLDER };
  return { dir: target };
}
