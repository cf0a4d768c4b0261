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
import { initAgentsCommand } from './initAgents.js';
import { routeUser, routeWorkspace } from './routing.js';
import { installCliEnvironment, type CliEnvironment } from './terminalEnvironment.js';

/** What reach needs from `activate`. */
export interface ReachDeps {
  readonly host: ServicesHost;
  readonly log: Log;
}

/** Installs the command line's environment and registers the routing commands. */
export function registerReach(context: vscode.ExtensionContext, deps: ReachDeps): Promise<CliEnvironment> {
  const env = deps.host.get().then((s) => installCliEnvironment(context, s.layout, s.folder));
  env.then((e) => deps.log.info(`command line: ${e.shim} (storage ${e.storage})`), (e: unknown) => deps.log.error('the command line could not be installed', e));
  const services = (): ReturnType<ServicesHost['get']> => deps.host.get();
  const c = Ids.commands;
  const table: [string, (arg: unknown) => Promise<unknown>][] = [
    [c.routeAgentTerminals, async (arg) => { const s = await services(); return routeWorkspace(await env, s.folder, s.settings, arg, 'route'); }],
    [c.stopRouting, async (arg) => { const s = await services(); return routeWorkspace(await env, s.folder, s.settings, arg, 'stop'); }],
    [c.routeAgentTerminalsForUser, async (arg) => routeUser(await env, (await services()).settings, arg, 'route')],
    [c.stopRoutingForUser, async (arg) => routeUser(await env, (await services()).settings, arg, 'stop')],
    [c.initAgents, async (arg) => { const s = await services(); return initAgentsCommand(await env, s.folder, s.settings, arg, false); }],
    [c.uninstallAgents, async (arg) => { const s = await services(); return initAgentsCommand(await env, s.folder, s.settings, arg, true); }],
  ];
  for (const [id, fn] of table) {
    context.subscriptions.push(vscode.commands.registerCommand(id, async (arg?: unknown) => {
      try {
        return await fn(arg);
      } catch (e) {
        deps.log.error(`${id} failed`, e);
        throw e;
      }
    }));
  }
  return env;
}
