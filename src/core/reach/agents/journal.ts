/**
 * Every write through a temporary file and a rename, and the folders init created recorded, so uninstall gives back
 * every byte and leaves no empty folder.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { replaceFileText } from '../../files/localFile.js';
import type { Scope } from './types.js';
import type { TextEdit } from './engine.js';

const JOURNAL_FILE = 'init-journal.json';

export interface JournalStep {
  readonly agent: string;
  readonly scope: Scope;
  readonly undo: readonly TextEdit[];
}
interface JournalFile {
  existed: boolean;
  after: string;
  steps: JournalStep[];
  /** The person changed the file since: uninstall edits semantically. */ stale?: boolean;
}
export interface Journal {
  version: 1;
  files: Record<string, JournalFile>;
  /** Uninstall removes each once it is empty. */
  dirs?: string[];
}

export const sha = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

export async function readText(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}): it was left unchanged`, {
      cause: e,
    });
  }
}

/** Deepest first. */
async function makeDirs(dir: string, mode?: number): Promise<string[]> {
  const first = await fsp.mkdir(dir, { recursive: true, ...(mode !== undefined ? { mode } : {}) });
  if (first === undefined) return [];
  const made: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    made.push(d);
    if (d === first || path.dirname(d) === d) return made;
  }
}

/** A crash never leaves half a settings file; undefined deletes it. */
export async function writeText(file: string, text: string | undefined): Promise<string[]> {
  if (text === undefined) {
    await fsp.rm(file, { force: true });
    return [];
  }
  const made = await makeDirs(path.dirname(file));
  let mode = 0o644;
  try {
    mode = (await fsp.stat(file)).mode & 0o777;
  } catch {
    /* a new file */
  }
  await replaceFileText(file, text, mode);
  return made;
}

export async function readJournal(stateDir: string): Promise<Journal> {
  try {
    const j = JSON.parse(await fsp.readFile(path.join(stateDir, JOURNAL_FILE), 'utf8')) as Journal;
    if (j && j.version === 1 && typeof j.files === 'object') return j;
  } catch {
    /* none yet, or unreadable: uninstall then edits semantically */
  }
  return { version: 1, files: {} };
}

export async function writeJournal(stateDir: string, j: Journal): Promise<void> {
  const made = await makeDirs(stateDir, 0o700);
  if (made.length > 0) j.dirs = [...(j.dirs ?? []), ...made];
  await replaceFileText(path.join(stateDir, JOURNAL_FILE), `${JSON.stringify(j, null, 1)}\n`, 0o600);
}

/** Never a folder that existed before init or that holds anything. */
export async function tidyAfterUninstall(stateDir: string, j: Journal): Promise<void> {
  const removeEmpty = async (dirs: readonly string[]): Promise<string[]> => {
    const kept: string[] = [];
    const byDepth = [...new Set(dirs)].sort((a, b) => b.split(path.sep).length - a.split(path.sep).length);
    for (const d of byDepth) {
      try {
        await fsp.rmdir(d);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') kept.push(d);
      }
    }
    return kept;
  };
  const inState = (d: string): boolean => d === stateDir || stateDir.startsWith(d + path.sep);
  const dirs = await removeEmpty((j.dirs ?? []).filter((d) => !inState(d)));
  const stateDirs = (j.dirs ?? []).filter(inState);
  // Nothing of ours left anywhere: a folder still holding something is the person's now.
  if (Object.keys(j.files).length === 0) {
    await fsp.rm(path.join(stateDir, JOURNAL_FILE), { force: true });
    await removeEmpty(stateDirs);
    return;
  }
  j.dirs = [...dirs, ...stateDirs];
  await replaceFileText(path.join(stateDir, JOURNAL_FILE), `${JSON.stringify(j, null, 1)}\n`, 0o600);
}
