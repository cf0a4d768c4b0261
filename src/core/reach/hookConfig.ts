/**
 * What every hook configuration has in common (docs/architecture.md §2.4): the hook's timeout,
 * the workspace hook file's name, how our hook command is recognised. Writing and removing
 * each agent's files is `bounded-evidence init`'s (src/core/reach/agents/, one engine that
 * merges without clobbering). `workspaceHookFileText` is the older VS Code format the routing
 * commands wrote before they became init's rows: init recognises and replaces such a file.
 */
/** Seconds an agent waits for the hook (it only rewrites a command: well under a second). */
export const HOOK_TIMEOUT_SECONDS = 15;

/** The file routing writes in a workspace (VS Code's agent reads every `.github/hooks/*.json`). */
export const WORKSPACE_HOOK_FILE = '.github/hooks/bounded-evidence.json';

/** True for a hook command this extension wrote: its shim (or the bin entry) called with `hook`. */
export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(?:^|\/)bounded-evidence'?\s+hook(?:\s|$)/.test(command);
}

type Json = Record<string, unknown>;

/** One hook, as both shapes spell a command hook. */
function commandHook(command: string): Json {
  return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
}

/** The events routing registers: PreToolUse always, PostToolUse when large results of other tools are recorded. */
function routedEvents(recordPostToolUse: boolean): string[] {
  return recordPostToolUse ? ['PreToolUse', 'PostToolUse'] : ['PreToolUse'];
}

/** The whole VS Code hook file routing writes (pretty JSON with a final newline). */
export function workspaceHookFileText(hookCommand: string, recordPostToolUse = false): string {
  const hooks: Json = {};
  for (const e of routedEvents(recordPostToolUse)) hooks[e] = [commandHook(hookCommand)];
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}
