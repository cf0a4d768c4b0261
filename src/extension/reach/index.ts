/**
 * Reach (docs/architecture.md §2.4): the command line in every terminal and the routing commands. No MCP server
 * definition is registered with VS Code: the editor already offers the tools as language-model tools.
 */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
import type { Log } from '../log.js';
import type { ServicesHost } from '../services.js';
import { initAgentsCommand, type InitAgentsArgs } from './initAgents.js';
import { installCliEnvironment, type CliEnvironment } from './terminalEnvironment.js';

export interface ReachDeps {
  readonly host: ServicesHost;
  readonly log: Log;
}

const LEGACY_ROUTING: readonly (readonly [string, readonly string[], boolean])[] = [
  [Ids.commands.routeAgentTerminals, ['copilot:project'], false],
  [Ids.commands.stopRouting, ['copilot:project'], true],
  [Ids.commands.routeAgentTerminalsForUser, ['copilot:global', 'claude:global'], false],
  [Ids.commands.stopRoutingForUser, ['copilot:global', 'claude:global'], true],
];

/**
 * `{ confirm: false }` runs the picks; otherwise init's quick pick opens with them ticked, so nothing is written
 * unasked.
 */
function legacyArgs(arg: unknown, picks: readonly string[]): InitAgentsArgs {
  const a = (typeof arg === 'object' && arg !== null ? arg : {}) as { confirm?: unknown; home?: unknown };
  const home = typeof a.home === 'string' ? { home: a.home } : {};
  return a.confirm === false ? { picks, ...home } : { preselect: picks, ...home };
}

export function registerReach(context: vscode.ExtensionContext, deps: ReachDeps): Promise<CliEnvironment> {
  const env = deps.host.get().then((s) => installCliEnvironment(context, s.layout, s.folder));
  env.then(
    (e) => deps.log.info(`command line: ${e.shim} (storage ${e.storage})`),
    (e: unknown) => deps.log.error('the command line could not be installed', e),
  );
  const services = (): ReturnType<ServicesHost['get']> => deps.host.get();
  const c = Ids.commands;
  const table: [string, (arg: unknown) => Promise<unknown>][] = [
    [
      c.initAgents,
      async (arg) => {
        const s = await services();
        return initAgentsCommand(await env, s.folder, s.settings, arg, false);
      },
    ],
    [
      c.uninstallAgents,
      async (arg) => {
        const s = await services();
        return initAgentsCommand(await env, s.folder, s.settings, arg, true);
      },
    ],
    // Deprecated and hidden, kept so keybindings and scripts keep working; a hook file in the older format is still
    // read and recognised as ours.
    ...LEGACY_ROUTING.map(([id, picks, uninstall]): [string, (arg: unknown) => Promise<unknown>] => [
      id,
      async (arg) => {
        const s = await services();
        return initAgentsCommand(await env, s.folder, s.settings, legacyArgs(arg, picks), uninstall);
      },
    ]),
  ];
  for (const [id, fn] of table) {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (arg?: unknown) => {
        try {
          return await fn(arg);
        } catch (e) {
          deps.log.error(`${id} failed`, e);
          throw e;
        }
      }),
    );
  }
  return env;
}
