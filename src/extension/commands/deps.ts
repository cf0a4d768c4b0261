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
  readonly globalState: vscode.Memento;
}
