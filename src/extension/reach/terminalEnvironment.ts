/**
 * What makes the command line reachable from every terminal and every agent hook of this
 * window (docs/architecture.md §2.4):
 * - the shim in global storage (src/core/reach/shim.sh filled in by shim.ts), rewritten on each activation;
 * - `BOUNDED_EVIDENCE_STORAGE` (this workspace's storage folder: same tenant as the
 *   editor, so handles cross both ways) and `BOUNDED_EVIDENCE_CLI` (the shim) in every
 *   integrated terminal, through `environmentVariableCollection`;
 * - the same two variables in this extension host's own environment: agent hooks
 *   (the Evidence agent's, `.github/hooks`, the user's `~/.copilot/hooks`) are started by
 *   the chat extension in this process, and inherit it;
 * - `workspaces.json` in global storage, folder to storage, for a hook started outside
 *   the editor's terminals (a user-level Claude Code hook in another terminal);
 * - a copy of the shim and the same map in the per-user state folder (`~/.local/state/bounded-evidence`), where the
 *   portable hooks of committed project files and the installed command line look (src/core/reach/locate.ts).
 */
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StorageLayout } from '../../core/index.js';
import { replaceFileText } from '../../core/files/localFile.js';
import { ENV } from '../../core/processEnv.js';
import { recordWorkspace, STATE_CLI, userStateDir } from '../../core/reach/locate.js';
import { shimScript } from '../../core/reach/shim.js';

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

/**
 * Writes `text` to `file` (its folder made first) through a temporary file and a rename: a running shim is never
 * half-written.
 */
async function writeAtomic(file: string, text: string, mode: number): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await replaceFileText(file, text, mode);
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
  const shimText = shimScript({
    node: process.execPath,
    electron,
    cli: cliScript,
    extensionsDir: path.dirname(context.extensionPath),
    folderPrefix: `${context.extension.id.toLowerCase()}-`,
    home,
  });
  await writeAtomic(shim, shimText, 0o755);
  // layout.root is `<storage>/evidence`; the command line takes the storage folder itself, as the MCP server does.
  const storage = path.dirname(layout.root);
  if (folder) await recordWorkspace(home, folder, storage);
  // For terminals and agents outside the editor (src/core/reach/locate.ts): the portable hook finds this copy of the
  // shim in the per-user state folder, and the installed command line finds this folder's storage in its map.
  const state = userStateDir(process.env, os.homedir());
  if (state) {
    await writeAtomic(path.join(state, STATE_CLI), shimText, 0o755);
    if (folder) await recordWorkspace(state, folder, storage);
  }
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
