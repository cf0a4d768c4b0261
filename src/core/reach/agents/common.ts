/**
 * What the adapters share (docs/contracts.md §6.2): recognising our hook commands and MCP entries whatever the
 * install path, and the shapes of a command hook.
 */
import { HOOK_TIMEOUT_SECONDS, isOurHookCommand } from '../hookConfig.js';
import { portableWords } from '../locate.js';
import type { HookContext, ToolRoute } from './types.js';

/** The MCP server's name in every agent's configuration. */
export const MCP_NAME = 'bounded-evidence';

/**
 * True for a hook command this product wrote: the portable finder starting `hook` (what init writes now), the shim
 * (`…/bounded-evidence hook`), or the command line's own bundle started by Node
 * (`… '/…/dist/cli.js' hook --agent …`, as older versions wrote it): an older entry is replaced, not doubled.
 */
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

/** True for a command-hook object (`{ type: 'command', command | bash: … }`) that is ours. */
export function isOurHookEntry(v: unknown): boolean {
  return isRecord(v) && (isOurCommand(v.command) || isOurCommand(v.bash));
}

/** True for a Claude Code style matcher group all of whose hooks are ours. */
export function isOurMatcherGroup(v: unknown): boolean {
  return isRecord(v) && Array.isArray(v.hooks) && v.hooks.length > 0 && v.hooks.every(isOurHookEntry);
}

/** True for an MCP server entry that starts our command line's `mcp`. */
export function isOurMcpEntry(v: unknown): boolean {
  if (!isRecord(v) || typeof v.command !== 'string') return false;
  if (Array.isArray(v.args) && v.args.some((a) => typeof a === 'string' && portableWords(a)?.[0] === 'mcp'))
    return true;
  const words = [v.command, ...(Array.isArray(v.args) ? v.args : [])].filter((w): w is string => typeof w === 'string');
  return words.includes('mcp') && words.some((w) => /(?:^|\/)(?:bounded-evidence|cli\.js|mcp\.js)$/.test(w));
}

/** A Claude Code / Codex command hook. */
export function commandHook(command: string): Record<string, unknown> {
  return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
}

/** The text of a JSON file that is wholly ours (pretty, final newline). */
export function jsonFileText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** True when `text` is JSON whose hooks are all ours (a hook file this product wrote, any version). */
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

/** The line that marks a TOML block as ours (the person's own tables are never touched). */
export const TOML_MARKER = '# Added by bounded-evidence init; "bounded-evidence init --uninstall" removes it.';

/**
 * The answer in Claude Code's shape (Claude Code, Codex, Qwen Code, VS Code's Local harness):
 * `hookSpecificOutput.updatedInput` with the whole tool input, the command replaced.
 */
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

/**
 * The shell words that read a handle in the agent's shell, with no path where one is not needed: `bounded-evidence`
 * when it is on PATH (the installed command line), else the shim VS Code's terminals name, else the command line the
 * hook itself was started as (`cli`, already quoted).
 */
export function shellRead(ctx: HookContext): string {
  if (ctx.which?.('bounded-evidence')) return 'bounded-evidence read';
  if (ctx.env?.BOUNDED_EVIDENCE_CLI) return '"$BOUNDED_EVIDENCE_CLI" read';
  return `${ctx.cli} read`;
}
