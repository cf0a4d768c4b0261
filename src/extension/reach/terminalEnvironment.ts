/**
 * What makes the command line reachable from every terminal and every agent hook of this
 * window (docs/architecture.md §2.4):
 * - the shim in global storage (src/core/reach/shim.ts), rewritten on each activation;
 * - `BOUNDED_EVIDENCE_STORAGE` (this workspace's storage folder: same tenant as the
 *   editor, so handles cross both ways) and `BOUNDED_EVIDENCE_CLI` (the shim) in every
 *   integrated terminal, through `environmentVariableCollection`;
 * - the same two variables in this extension host's own environment: agent hooks
 *   (the Evidence agent's, `.github/hooks`, the user's `~/.copilot/hooks`) are started by
 *   the chat extension in this process, and inherit it;
 * - `workspaces.json` in global storage, folder to storage, for a hook started outside
 *   the editor's terminals (a user-level Claude Code hook in another terminal).
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StorageLayout } from '../../core/index.js';
import { replaceFileText } from '../../core/files/localFile.js';
import { shimScript } from '../../core/reach/shim.js';

/** Environment variable names (the command line reads the same ones: src/cli/session.ts, src/cli/hook.ts). */
const ENV = {
  storage: 'BOUNDED_EVIDENCE_STORAGE',
  cli: 'BOUNDED_EVIDENCE_CLI',
  shell: 'BOUNDED_EVIDENCE_SHELL',
} as const;

/** Where the command line is and what it works on. */
export interface CliEnvironment {
  /** The shim (`BOUNDED_EVIDENCE_CLI`). */
  readonly shim: string;
  /** dist/cli.js of this extension. */
  readonly cliScript: string;
  /** This workspace's storage folder (`BOUNDED_EVIDENCE_STORAGE`). */
  readonly storage: string;
  /** True when the editor's Node is Electron (`ELECTRON_RUN_AS_NODE=1` needed). */
  readonly electron: boolean;
}

/** Writes `text` to `file` (its folder made first) through a temporary file and a rename: a running shim is never half-written. */
async function writeAtomic(file: string, text: string, mode: number): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await replaceFileText(file, text, mode);
}

/** Records `folder → storage` in `<home>/workspaces.json` (kept entries of other workspaces). */
async function recordWorkspace(home: string, folder: string, storage: string): Promise<void> {
  const file = path.join(home, 'workspaces.json');
  let map: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(await fsp.readFile(file, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) map = parsed as Record<string, string>;
  } catch {
    /* missing or unreadable: start a new map */
  }
  if (map[folder] === storage) return;
  map[folder] = storage;
  await writeAtomic(file, `${JSON.stringify(map, null, 2)}\n`, 0o600);
}

/** Installs the shim and sets the variables; returns what was set. */
export async function installCliEnvironment(
  context: vscode.ExtensionContext,
  layout: StorageLayout,
  folder: string | undefined,
): Promise<CliEnvironment> {
  const home = context.globalStorageUri.fsPath;
  const shim = path.join(home, 'bin', 'bounded-evidence');
  const cliScript = path.join(context.extensionPath, 'dist', 'cli.js');
  const electron = process.versions.electron !== undefined;
  await writeAtomic(
    shim,
    shimScript({
      node: process.execPath,
      electron,
      cli: cliScript,
      extensionsDir: path.dirname(context.extensionPath),
      folderPrefix: `${context.extension.id.toLowerCase()}-`,
      home,
    }),
    0o755,
  );
  // layout.root is `<storage>/evidence`; the command line takes the storage folder itself, as the MCP server does.
  const storage = path.dirname(layout.root);
  if (folder) await recordWorkspace(home, folder, storage);
  const env = context.environmentVariableCollection;
  env.description = 'Bounded Evidence: the evidence storage of this workspace and the `bounded-evidence` command line';
  env.replace(ENV.storage, storage);
  env.replace(ENV.cli, shim);
  process.env[ENV.storage] = storage;
  process.env[ENV.cli] = shim;
  // Hooks for run_in_terminal run in this process: they route only when the terminals' shell quotes as POSIX does.
  if (vscode.env.shell) process.env[ENV.shell] = vscode.env.shell;
  return { shim, cliScript, storage, electron };
}
