/**
 * Routing the agents' terminals through evidence (docs/architecture.md §2.4): the commands that write the hook files, after showing exactly what
 * they write and asking (modal), and remove only what they wrote. The file logic is the
 * core's (src/core/reach/hookConfig.ts, unit-tested); this file asks and reports.
 * - Workspace: `.github/hooks/bounded-evidence.json` (VS Code's agent reads it), with
 *   this workspace's storage baked in.
 * - User: `~/.copilot/hooks/bounded-evidence.json` and a `Bash` matcher group merged into
 *   `~/.claude/settings.json`; the storage then comes from the environment (the
 *   terminals', this extension host's) or `workspaces.json` by folder.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { editSettingsFile, mergeHook, removeHook, WORKSPACE_HOOK_FILE, type EditResult } from '../../core/reach/hookConfig.js';
import { quoteShellWord } from '../../core/reach/shellQuote.js';
import type { EvidenceSettings } from '../settings.js';
import type { CliEnvironment } from './terminalEnvironment.js';

/** What of the settings routing writes into the hooks: PostToolUse recording and its threshold. */
export type RoutingSettings = Pick<EvidenceSettings, 'recordOtherToolResults' | 'largeResultBytes'>;

/** Arguments the commands take from a caller (a test, another extension); the palette passes none. */
export interface RoutingArgs {
  /** false: do not ask (the caller has shown the person what is written). Default: ask, modal. */
  readonly confirm?: boolean;
  /** The home folder for the user-level files (default: the real one). */
  readonly home?: string;
}

/** What a routing command did. */
export interface RoutingResult {
  readonly written: string[];
  readonly removed: string[];
  readonly unchanged: string[];
  readonly errors: string[];
  /** True when the person declined. */
  readonly cancelled?: boolean;
}

/** One file a command edits. */
interface Target {
  readonly file: string;
  readonly what: string;
  readonly edit: (text: string | undefined) => EditResult;
}

function argsOf(arg: unknown): RoutingArgs {
  return typeof arg === 'object' && arg !== null ? arg as RoutingArgs : {};
}

/** The hook command: the shim with `hook`, the storage when it is one workspace's, and PostToolUse recording when set. */
export function hookCommand(env: CliEnvironment, withStorage: boolean, settings: RoutingSettings): string {
  return [
    quoteShellWord(env.shim), 'hook', ...(withStorage ? ['--storage', quoteShellWord(env.storage)] : []),
    ...(settings.recordOtherToolResults ? ['--record-post-tool-use', '--large-result-bytes', String(settings.largeResultBytes)] : []),
  ].join(' ');
}

/** The files of the workspace variant. */
export function workspaceTargets(folder: string, env: CliEnvironment, adding: boolean, settings: RoutingSettings): Target[] {
  const post = settings.recordOtherToolResults;
  const command = hookCommand(env, true, settings);
  return [{ file: path.join(folder, WORKSPACE_HOOK_FILE), what: WORKSPACE_HOOK_FILE, edit: adding ? (t) => mergeHook(t, command, WORKSPACE_HOOK_FILE, { recordPostToolUse: post }) : (t) => removeHook(t, WORKSPACE_HOOK_FILE) }];
}

/** The files of the user variant. */
export function userTargets(home: string, env: CliEnvironment, adding: boolean, settings: RoutingSettings): Target[] {
  const post = settings.recordOtherToolResults;
  const command = hookCommand(env, false, settings);
  const copilot = path.join(home, '.copilot', 'hooks', 'bounded-evidence.json');
  const claude = path.join(home, '.claude', 'settings.json');
  return [
    { file: copilot, what: '~/.copilot/hooks/bounded-evidence.json', edit: adding ? (t) => mergeHook(t, command, '~/.copilot/hooks/bounded-evidence.json', { recordPostToolUse: post }) : (t) => removeHook(t, '~/.copilot/hooks/bounded-evidence.json') },
    { file: claude, what: '~/.claude/settings.json', edit: adding ? (t) => mergeHook(t, command, '~/.claude/settings.json', { matcher: 'Bash', recordPostToolUse: post }) : (t) => removeHook(t, '~/.claude/settings.json') },
  ];
}

/** Reads a file's text, or undefined when it is missing or unreadable (the edit then reports it). */
async function textOf(file: string): Promise<string | undefined> {
  try {
    return Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.file(file))).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Shows what each file will contain (or that it will be deleted), asks, then edits each file. */
export async function applyTargets(targets: readonly Target[], verb: 'route' | 'stop', args: RoutingArgs): Promise<RoutingResult> {
  const result: RoutingResult = { written: [], removed: [], unchanged: [], errors: [] };
  const planned: string[] = [];
  for (const t of targets) {
    const preview = t.edit(await textOf(t.file));
    if (!preview.ok) planned.push(`${t.what}: ${preview.error}`);
    else if (!preview.changed) planned.push(`${t.what}: already ${verb === 'route' ? 'routed' : 'without our hook'}, unchanged`);
    else planned.push(preview.text === undefined ? `${t.what}: deleted (it holds nothing else)` : `${t.what} will contain:\n${preview.text}`);
  }
  if (args.confirm !== false) {
    const action = verb === 'route' ? 'Write' : 'Remove';
    const title = verb === 'route'
      ? 'Route agent terminal commands through Bounded Evidence? Each command an agent runs is kept whole as evidence; the agent sees the bounded observation.'
      : 'Stop routing agent terminal commands? Only the hooks Bounded Evidence wrote are removed.';
    const answer = await vscode.window.showWarningMessage(title, { modal: true, detail: planned.join('\n\n') }, action);
    if (answer !== action) return { ...result, cancelled: true };
  }
  for (const t of targets) {
    const done = await editSettingsFile(t.file, t.edit).catch((e: unknown) => ({ ok: false as const, error: `${t.what}: ${e instanceof Error ? e.message : String(e)}` }));
    if (!done.ok) result.errors.push(done.error);
    else if (!done.changed) result.unchanged.push(t.file);
    else (done.deleted ? result.removed : result.written).push(t.file);
  }
  return result;
}

/** Routes this workspace's agents (`.github/hooks/bounded-evidence.json`). */
export async function routeWorkspace(env: CliEnvironment, folder: string | undefined, settings: RoutingSettings, arg: unknown, verb: 'route' | 'stop'): Promise<RoutingResult> {
  if (!folder) {
    void vscode.window.showErrorMessage('Bounded Evidence: open a folder first; routing writes .github/hooks/bounded-evidence.json in it.');
    return { written: [], removed: [], unchanged: [], errors: ['no folder is open'] };
  }
  const r = await applyTargets(workspaceTargets(folder, env, verb === 'route', settings), verb, argsOf(arg));
  if (r.written.length || r.removed.length) await relistHookFiles();
  return report(r);
}

/**
 * Makes VS Code list the hook files again now, so routing applies to the agent's very next
 * command (docs/architecture.md §5.1): VS Code finds them through a file watcher that misses a
 * file in a folder it did not watch yet (a new `.github/hooks/`), but lists them again when
 * `chat.useHooks` changes. The user's own value is put back exactly (set false, then back to
 * what it was, `undefined` removing the key again); a user who turned hooks off is left alone.
 */
export async function relistHookFiles(): Promise<void> {
  const chat = vscode.workspace.getConfiguration('chat');
  const value = chat.inspect<boolean>('useHooks')?.globalValue;
  if (value === false) return;
  try {
    await chat.update('useHooks', false, vscode.ConfigurationTarget.Global);
  } finally {
    await chat.update('useHooks', value, vscode.ConfigurationTarget.Global);
  }
}

/** Routes the user's agents in every workspace (`~/.copilot/hooks`, `~/.claude/settings.json`). */
export async function routeUser(env: CliEnvironment, settings: RoutingSettings, arg: unknown, verb: 'route' | 'stop'): Promise<RoutingResult> {
  const args = argsOf(arg);
  return report(await applyTargets(userTargets(args.home ?? os.homedir(), env, verb === 'route', settings), verb, args));
}

/** Tells the person what happened (errors first: a file left alone must be noticed). */
function report(r: RoutingResult): RoutingResult {
  if (r.cancelled) return r;
  if (r.errors.length) void vscode.window.showErrorMessage(`Bounded Evidence: ${r.errors.join('; ')}`);
  const done = [...r.written.map((f) => `wrote ${f}`), ...r.removed.map((f) => `removed ${f}`)];
  if (done.length) void vscode.window.showInformationMessage(`Bounded Evidence: ${done.join('; ')}.`);
  else if (!r.errors.length) void vscode.window.showInformationMessage('Bounded Evidence: nothing to change.');
  return r;
}
