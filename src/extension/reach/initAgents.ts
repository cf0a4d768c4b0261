/**
 * `init` from the editor (docs/contracts.md §6.2): a quick pick with what each choice writes, then the same `runInit`
 * as the command line. This file only asks and reports.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { machineContext, PORTABLE_MCP_SERVER, portableHookCommand } from '../../core/reach/agents/context.js';
import { AGENTS } from '../../core/reach/agents/index.js';
import { describeOutcome, displayPath, doctorRows, runInit, type AgentOutcome } from '../../core/reach/agents/init.js';
import type { AgentAdapter, AgentContext, Scope } from '../../core/reach/agents/types.js';
import { WORKSPACE_HOOK_FILE } from '../../core/reach/hookConfig.js';
import { relistHookFiles, type RoutingSettings } from './routing.js';
import type { CliEnvironment } from './terminalEnvironment.js';

/** For tests instead of picking. */
export interface InitAgentsArgs {
  readonly picks?: readonly string[];
  /** The older routing commands preselect. */
  readonly preselect?: readonly string[];
  readonly home?: string;
}

/** No path in any file init writes. */
export function editorContext(folder: string | undefined, home: string, settings?: RoutingSettings): AgentContext {
  const post = settings?.recordOtherToolResults
    ? ['--record-post-tool-use', '--large-result-bytes', String(settings.largeResultBytes)]
    : [];
  return machineContext({
    home,
    project: folder,
    env: { ...process.env, HOME: home },
    recordOtherToolResults: post.length > 0,
    // Portable (src/core/reach/locate.ts): the hooks find the shim and storage through the variables the extension
    // set, so another machine finds its own.
    hookCommand: (agent, _scope, extra = []) => portableHookCommand(agent, [...post, ...extra]),
    mcpServer: () => PORTABLE_MCP_SERVER,
  });
}

interface AgentPick extends vscode.QuickPickItem {
  readonly agent: AgentAdapter;
  readonly scope: Scope;
}

/** Ticked when detected and not yet routed. */
export async function initPicks(ctx: AgentContext, uninstall: boolean): Promise<AgentPick[]> {
  const rows = await doctorRows(ctx, AGENTS);
  const items: AgentPick[] = [];
  for (const row of rows) {
    const [plan] = await runInit(ctx, { agents: [row.agent], scope: row.scope, dryRun: true, uninstall });
    const files = (plan?.files ?? [])
      .map((f) => `${displayPath(ctx, f.file)}${f.action === 'unchanged' ? ' (unchanged)' : ` (${f.action})`}`)
      .join(', ');
    items.push({
      agent: row.agent,
      scope: row.scope,
      label: `${row.routed ? '$(check) ' : ''}${row.agent.displayName}`,
      description:
        `${row.scope === 'project' ? 'this folder' : 'every folder (user)'}` +
        `${row.detected ? '' : ' · not detected'}`,
      detail: plan?.error ? `cannot: ${plan.error}` : `${uninstall ? 'removes from' : 'writes'} ${files}`,
      picked: !uninstall && row.detected && !row.routed && row.scope === (ctx.project ? 'project' : 'global'),
    });
  }
  return items;
}

export interface InitAgentsResult {
  readonly agent: string;
  readonly scope: Scope;
  readonly files: readonly { file: string; action: string }[];
  readonly error?: string;
}

export async function initAgentsCommand(
  // Awaited by the caller so the shim and storage map exist before a hook that finds them is written.
  _env: CliEnvironment,
  folder: string | undefined,
  settings: RoutingSettings,
  arg: unknown,
  uninstall: boolean,
): Promise<InitAgentsResult[]> {
  const args: InitAgentsArgs = typeof arg === 'object' && arg !== null ? (arg as InitAgentsArgs) : {};
  const ctx = editorContext(folder, args.home ?? os.homedir(), settings);
  let chosen: { agent: AgentAdapter; scope: Scope }[];
  if (args.picks) {
    chosen = args.picks.map((p) => {
      const [id, scope] = p.split(':');
      const agent = AGENTS.find((a) => a.id === id);
      if (!agent || (scope !== 'project' && scope !== 'global')) throw new Error(`unknown pick "${p}"`);
      return { agent, scope };
    });
  } else {
    const items = await initPicks(ctx, uninstall);
    const preselect = args.preselect;
    const shown = preselect
      ? items.map((i) => ({ ...i, picked: preselect.includes(`${i.agent.id}:${i.scope}`) }))
      : items;
    const picked = await vscode.window.showQuickPick(shown, {
      canPickMany: true,
      title: uninstall
        ? 'Stop routing agents: remove what Bounded Evidence wrote'
        : 'Route agents through Bounded Evidence',
      placeHolder: uninstall
        ? 'Each choice shows the files it gives back'
        : 'Each choice shows the files it writes (merged into yours; undo with Stop Routing Agents…)',
    });
    if (!picked || picked.length === 0) return [];
    chosen = picked.map((p) => ({ agent: p.agent, scope: p.scope }));
  }
  const outcomes: AgentOutcome[] = [];
  for (const c of chosen) outcomes.push(...(await runInit(ctx, { agents: [c.agent], scope: c.scope, uninstall })));
  // VS Code's agent lists hook files again only when told; the Copilot CLI reads them per session.
  if (outcomes.some((o) => o.files.some((f) => f.file.endsWith(WORKSPACE_HOOK_FILE) && f.action !== 'unchanged')))
    await relistHookFiles();
  const lines = outcomes.map((o) => describeOutcome(ctx, o, { uninstall }));
  const failed = outcomes.filter((o) => o.error);
  if (failed.length)
    void vscode.window.showErrorMessage(
      `Bounded Evidence: ${failed.map((o) => describeOutcome(ctx, o, { uninstall })).join(' ')}`,
    );
  if (lines.length > failed.length)
    void vscode.window.showInformationMessage(
      `Bounded Evidence: ${lines.filter((_, i) => !outcomes[i]!.error).join(' ')}`,
    );
  return outcomes.map((o) => ({
    agent: o.agent.id,
    scope: o.scope,
    files: o.files.map((f) => ({ file: f.file, action: f.action })),
    ...(o.error ? { error: o.error } : {}),
  }));
}
