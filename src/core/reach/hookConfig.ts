/**
 * What every hook configuration shares (docs/architecture.md §2.4); writing each agent's files is init's
 * (src/core/reach/agents/). `workspaceHookFileText` is the older VS Code format, which init recognises and replaces.
 */
/** It only rewrites a command: well under a second. */
export const HOOK_TIMEOUT_SECONDS = 15;

/** VS Code's agent reads every `.github/hooks/*.json`. */
export const WORKSPACE_HOOK_FILE = '.github/hooks/bounded-evidence.json';

export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(?:^|\/)bounded-evidence'?\s+hook(?:\s|$)/.test(command);
}

type Json = Record<string, unknown>;

function commandHook(command: string): Json {
  return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
}

function routedEvents(recordPostToolUse: boolean): string[] {
  return recordPostToolUse ? ['PreToolUse', 'PostToolUse'] : ['PreToolUse'];
}

export function workspaceHookFileText(hookCommand: string, recordPostToolUse = false): string {
  const hooks: Json = {};
  for (const e of routedEvents(recordPostToolUse)) hooks[e] = [commandHook(hookCommand)];
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}
