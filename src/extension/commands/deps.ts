/** What the palette commands need (passed by `activate`; nothing is module state). */
import type * as vscode from 'vscode';
import type { Log } from '../log.js';
import type { RunRouter } from '../runRouter.js';
import type { ServicesHost } from '../services.js';

/** Dependencies of the commands. */
export interface CommandDeps {
  readonly host: ServicesHost;
  readonly router: RunRouter;
  readonly log: Log;
  readonly secrets: vscode.SecretStorage;
  /** Where the extension is installed (dist/mcp.js is under it). */
  readonly extensionPath: string;
}
