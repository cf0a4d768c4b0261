/**
 * Reach (docs/architecture.md §2.4): the command line in every terminal and the routing
 * commands. `activate` calls `registerReach` once; everything it registers lives in
 * `context.subscriptions`. No MCP server definition is registered with VS Code: every
 * harness of the editor gets the evidence tools once, as language-model tools (§2.4).
 */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
import type { Log } from '../log.js';
import type { ServicesHost } from '../services.js';
import { initAgentsCommand, type InitAgentsArgs } from './initAgents.js';
import { installCliEnvironment, type CliEnvironment } from './terminalEnvironment.js';

/** What reach needs from `activate`. */
export interface ReachDeps {
  readonly host: ServicesHost;
  readonly log: Log;
}

/** The older routing commands as rows of init's table: the command, its picks, whether it removes. */
const LEGACY_ROUTING: readonly (readonly [string, readonly string[], boolean])[] = [
  [Ids.commands.routeAgentTerminals, ['copilot:project'], false],
  [Ids.commands.stopRouting, ['copilot:project'], true],
  [Ids.commands.routeAgentTerminalsForUser, ['copilot:global', 'claude:global'], false],
  [Ids.commands.stopRoutingForUser, ['copilot:global', 'claude:global'], true],
];

/**
 * An older command's arguments as init's: `{ confirm: false }` (a caller that showed the person what is written)
 * runs its picks; otherwise init's quick pick opens with them ticked, so nothing is written unasked.
 */
function legacyArgs(arg: unknown, picks: readonly string[]): InitAgentsArgs {
  const a = (typeof arg === 'object' && arg !== null ? arg : {}) as { confirm?: unknown; home?: unknown };
  const home = typeof a.home === 'string' ? { home: a.home } : {};
  return a.confirm === false ? { picks, ...home } : { preselect: picks, ...home };
}

/** Installs the command line's environment and registers the routing commands. */
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
    // The older routing commands (deprecated, hidden from the palette; kept so keybindings and scripts keep working):
    // what they routed, as rows of init's table. A hook file they wrote in the older format is still read by VS Code
    // and by the hook, and init recognises it as ours (it replaces it, Stop Routing Agents… removes it).
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
