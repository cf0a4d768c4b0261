/**
 * `init` from the editor (docs/contracts.md §6.2): a quick pick with what each choice writes, then the same `runInit`
 * as the command line. This file only asks and reports.
 */
import { rmdir } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
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

/**
 * The quick pick's items: each agent in each scope, what it writes (or removes), ticked when detected, `usable` (signed
 * in, where that is known) and not yet routed. Stopping lists only the rows with something of ours to remove.
 */
export async function initPicks(
  ctx: AgentContext,
  uninstall: boolean,
  usable: (agent: AgentAdapter) => boolean = () => true,
  extensionInstalled: (id: string) => boolean = (id) => vscode.extensions.getExtension(id) !== undefined,
): Promise<AgentPick[]> {
  const rows = await doctorRows(ctx, AGENTS);
  const items: AgentPick[] = [];
  for (const row of rows) {
    const [plan] = await runInit(ctx, { agents: [row.agent], scope: row.scope, dryRun: true, uninstall });
    if (uninstall && !plan?.error && (plan?.files ?? []).every((f) => f.action === 'unchanged')) continue;
    const files = (plan?.files ?? [])
      .filter((f) => !uninstall || f.action !== 'unchanged')
      .map((f) => `${displayPath(ctx, f.file)}${f.action === 'unchanged' ? ' (unchanged)' : ` (${f.action})`}`)
      .join(', ');
    // A folder's row that also writes the person's home folder (Codex's trust, opencode's plugin) says so.
    const home = row.scope === 'project' && (plan?.files ?? []).some((f) => isUnder(f.file, ctx.home, ctx.project));
    const ext = row.agent.vscodeExtension;
    const inEditor = ext !== undefined && extensionInstalled(ext) ? ` · installed in this editor (${ext})` : '';
    items.push({
      agent: row.agent,
      scope: row.scope,
      label: `${row.routed ? '$(check) ' : ''}${row.agent.displayName}`,
      description:
        `${row.scope === 'project' ? 'this folder' : 'every folder (user)'}` +
        `${home ? ' · also your home folder' : ''}${inEditor || (row.detected ? '' : ' · not detected')}`,
      detail: plan?.error ? `cannot: ${plan.error}` : `${uninstall ? 'removes from' : 'writes'} ${files}`,
      picked:
        !uninstall &&
        (row.detected || inEditor !== '') &&
        usable(row.agent) &&
        !row.routed &&
        row.scope === (ctx.project ? 'project' : 'global'),
    });
  }
  return items;
}

/** True when `file` is in `home` and not in the project (which may itself be under home). */
function isUnder(file: string, home: string, project: string | undefined): boolean {
  const inside = (dir: string): boolean => !path.relative(dir, file).startsWith('..');
  return inside(home) && !(project !== undefined && inside(project));
}

/**
 * Whether an agent can be used here, where the editor knows better than a file on disk: Copilot's VS Code agent needs
 * a GitHub sign-in (a `code` on PATH alone says nothing), unless the Copilot CLI is installed.
 */
async function usableAgents(ctx: AgentContext): Promise<(agent: AgentAdapter) => boolean> {
  const signedIn = await Promise.resolve(
    vscode.authentication.getSession('github', ['user:email'], { silent: true }),
  ).then(
    (s) => s !== undefined,
    () => false,
  );
  const cli = ctx.which('copilot') !== undefined;
  return (agent) => agent.id !== 'copilot' || signedIn || cli;
}

/** Removes the folders a removed file leaves empty, up to the project (no empty `.github/hooks/` stays behind). */
async function dropEmptyFolders(file: string, project: string | undefined): Promise<void> {
  if (project === undefined) return;
  for (let dir = path.dirname(file); dir !== project && !path.relative(project, dir).startsWith('..');) {
    // rmdir refuses a folder with anything in it: nothing of the person's goes.
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      return;
    dir = path.dirname(dir);
  }
}

/** What the command returns (to a caller; the person gets the messages). */
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
    const items = await initPicks(ctx, uninstall, await usableAgents(ctx));
    if (uninstall && items.length === 0) {
      void vscode.window.showInformationMessage('Bounded Evidence: no agent is routed here; there is nothing to stop.');
      return [];
    }
    const preselect = args.preselect;
    const shown = preselect
      ? items.map((i) => ({ ...i, picked: preselect.includes(`${i.agent.id}:${i.scope}`) }))
      : items;
    const picked = await vscode.window.showQuickPick(shown, {
      canPickMany: true,
      // The title says in one line what routing does (whole at 900 px wide); the rows say where.
      title: uninstall
        ? 'Stop routing agents: remove what Bounded Evidence wrote'
        : "Routed agents' commands keep every byte; their model sees a bounded view",
      placeHolder: uninstall ? 'The agents routed here, with the files each gives back' : 'Tick the agents to route',
    });
    if (!picked || picked.length === 0) return [];
    chosen = picked.map((p) => ({ agent: p.agent, scope: p.scope }));
  }
  const outcomes: AgentOutcome[] = [];
  for (const c of chosen) outcomes.push(...(await runInit(ctx, { agents: [c.agent], scope: c.scope, uninstall })));
  // VS Code's agent lists hook files again only when told; the Copilot CLI reads them per session.
  if (outcomes.some((o) => o.files.some((f) => f.file.endsWith(WORKSPACE_HOOK_FILE) && f.action !== 'unchanged')))
    await relistHookFiles();
  if (uninstall)
    for (const o of outcomes)
      for (const f of o.files) if (f.action === 'deleted') await dropEmptyFolders(f.file, ctx.project);
  // The undo is a button that runs Stop Routing Agents… on the same rows, not a command line to copy.
  const lines = outcomes.map((o) => describeOutcome(ctx, o, { uninstall }).replace(/; undo: [^;]*$/, ''));
  const failed = outcomes.filter((o) => o.error);
  if (failed.length)
    void vscode.window.showErrorMessage(
      `Bounded Evidence: ${failed.map((o) => describeOutcome(ctx, o, { uninstall })).join(' ')}`,
    );
  const done = outcomes.filter((o) => !o.error);
  const stop = 'Stop Routing Agents…';
  if (done.length > 0)
    void vscode.window
      .showInformationMessage(
        `Bounded Evidence: ${lines.filter((_, i) => !outcomes[i]!.error).join(' ')}`,
        ...(uninstall ? [] : [stop]),
      )
      .then((choice) => {
        if (choice === stop)
          void vscode.commands.executeCommand(Ids.commands.uninstallAgents, {
            preselect: done.map((o) => `${o.agent.id}:${o.scope}`),
          } satisfies InitAgentsArgs);
      });
  return outcomes.map((o) => ({
    agent: o.agent.id,
    scope: o.scope,
    files: o.files.map((f) => ({ file: f.file, action: f.action })),
    ...(o.error ? { error: o.error } : {}),
  }));
}
