/**
 * Makes the command line reachable from every terminal and agent hook (docs/architecture.md §2.4): the shim, the
 * storage variables in terminals and in this host (agent hooks start here and inherit them), and a folder-to-storage
 * map in global storage and the per-user state folder for hooks started outside the editor.
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

export interface CliEnvironment {
  readonly shim: string;
  readonly cliScript: string;
  readonly storage: string;
  /** `ELECTRON_RUN_AS_NODE=1` needed. */
  readonly electron: boolean;
}

/** A running shim is never half-written. */
async function writeAtomic(file: string, text: string, mode: number): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await replaceFileText(file, text, mode);
}

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
  // The command line takes the storage folder itself, as the MCP server does.
  const storage = path.dirname(layout.root);
  if (folder) await recordWorkspace(home, folder, storage);
  // For terminals and agents outside the editor (src/core/reach/locate.ts).
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
