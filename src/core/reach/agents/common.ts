/** What the adapters share (docs/contracts.md §6.2). */
import { HOOK_TIMEOUT_SECONDS, isOurHookCommand } from '../hookConfig.js';
import * as path from 'node:path';
import { portableWords } from '../locate.js';
import type { AgentContext, HookContext, ToolRoute } from './types.js';

export const MCP_NAME = 'bounded-evidence';

/** Init's note where the MCP server cannot be registered. */
export const NO_STORAGE_NOTE =
  'MCP not registered: no evidence storage is known (pass --storage or run init in a VS Code terminal)';

/** Older forms too (the shim, the bundle started by Node): an older entry is replaced, not doubled. */
function isOurCommand(command: unknown): boolean {
  if (isOurHookCommand(command)) return true;
  if (typeof command === 'string' && portableWords(command)?.[0] === 'hook') return true;
  return (
    typeof command === 'string' &&
    /(?:^|\/)(?:cli|hook)\.js'?\s+hook(?:\s|$)/.test(command) &&
    /\bdist\/(?:cli|hook)\.js/.test(command)
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isOurHookEntry(v: unknown): boolean {
  return isRecord(v) && (isOurCommand(v.command) || isOurCommand(v.bash));
}

export function isOurMatcherGroup(v: unknown): boolean {
  return isRecord(v) && Array.isArray(v.hooks) && v.hooks.length > 0 && v.hooks.every(isOurHookEntry);
}

export function isOurMcpEntry(v: unknown): boolean {
  if (!isRecord(v) || typeof v.command !== 'string') return false;
  if (Array.isArray(v.args) && v.args.some((a) => typeof a === 'string' && portableWords(a)?.[0] === 'mcp'))
    return true;
  const words = [v.command, ...(Array.isArray(v.args) ? v.args : [])].filter((w): w is string => typeof w === 'string');
  return words.includes('mcp') && words.some((w) => /(?:^|\/)(?:bounded-evidence|cli\.js|mcp\.js)$/.test(w));
}

export function commandHook(command: string): Record<string, unknown> {
  return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
}

export function jsonFileText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Any version. */
export function isOurHookFile(text: string): boolean {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isRecord(doc) || !isRecord(doc.hooks)) return false;
  const entries = Object.values(doc.hooks).flatMap((l) => (Array.isArray(l) ? l : [l]));
  return entries.length > 0 && entries.every((e) => isOurHookEntry(e) || isOurMatcherGroup(e));
}

/** The person's own tables are never touched. */
export const TOML_MARKER = '# Added by bounded-evidence init; "bounded-evidence init --uninstall" removes it.';

/** Claude Code, Codex, Qwen Code and VS Code's Local harness answer this way. */
export function updatedInputAnswer(event: string): ToolRoute['render'] {
  return (updated, a) => ({
    hookSpecificOutput: {
      hookEventName: event,
      ...(a.allow ? { permissionDecision: 'allow' } : {}),
      ...(a.reason !== undefined ? { permissionDecisionReason: a.reason } : {}),
      updatedInput: updated,
    },
  });
}

/** No path where one is not needed. */
export function shellRead(ctx: HookContext): string {
  if (ctx.which?.('bounded-evidence')) return 'bounded-evidence read';
  if (ctx.env?.BOUNDED_EVIDENCE_CLI) return '"$BOUNDED_EVIDENCE_CLI" read';
  return `${ctx.cli} read`;
}

/** VS Code's (stable) user folder here, where an extension's global storage is; another editor keeps its own. */
export function vscodeUserDir(ctx: Pick<AgentContext, 'home' | 'env'>): string {
  if (process.platform === 'darwin') return path.join(ctx.home, 'Library', 'Application Support', 'Code', 'User');
  if (process.platform === 'win32')
    return path.join(ctx.env.APPDATA || path.join(ctx.home, 'AppData', 'Roaming'), 'Code', 'User');
  return path.join(ctx.env.XDG_CONFIG_HOME || path.join(ctx.home, '.config'), 'Code', 'User');
}
