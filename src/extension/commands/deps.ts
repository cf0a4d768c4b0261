/** Passed by `activate`; nothing is module state. */
import type * as vscode from 'vscode';
import type { Log } from '../log.js';
import type { RunRouter } from '../runRouter.js';
import type { ServicesHost } from '../services.js';

export interface CommandDeps {
  readonly host: ServicesHost;
  readonly router: RunRouter;
  readonly log: Log;
  readonly secrets: vscode.SecretStorage;
  readonly extensionPath: string;
  /** The last folder saved into (documents/saveFolder.ts). */
  readonly globalState: vscode.Memento;
}
