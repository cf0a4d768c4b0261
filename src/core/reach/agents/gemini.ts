/**
 * Gemini CLI (docs/contracts.md §6.2), as its settings are read (docs/hooks/reference.md,
 * docs/reference/configuration.md of google-gemini/gemini-cli): `settings.json` in `~/.gemini/` for the user,
 * `<project>/.gemini/` for the project (JSON with comments). The hook: a `run_shell_command` matcher group in
 * `hooks.BeforeTool` (timeouts in milliseconds); the answer is Gemini's own `hookSpecificOutput.tool_input`
 * (`geminiShell` below). The MCP server: `mcpServers.bounded-evidence`, offering only `read_tool_output`
 * (`includeTools`).
 */
import * as path from 'node:path';
import { HOOK_TIMEOUT_SECONDS } from '../hookConfig.js';
import { isOurHookEntry, isOurMatcherGroup, isOurMcpEntry, MCP_NAME } from './common.js';
import type { AgentAdapter, ConfigEdit, ToolRoute } from './types.js';

/** Gemini CLI asks a project's hooks again whenever their name or command changes; a user's hooks run as written. */
const GEMINI_NOTE =
  "Gemini CLI checks its policy on the routed command (the original's commands plus `bounded-evidence keep`): " +
  'an allow-list that names only the original may ask; deny rules still match. ' +
  'Gemini CLI warns once before running a project hook it has not seen.';

/**
 * True when Gemini CLI refuses to run `command` after its hooks ("Command injection detected"): `$(`, a backtick, or
 * `<(` / `>(` outside quotes. Its check as 0.61 runs it (`detectBashSubstitution`), so a command it will refuse is left
 * as written: routed, it would leave a spool that nothing ever runs, and the refusal is the same.
 */
function geminiRefuses(command: string): boolean {
  let single = false;
  let double = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "'" && !double) single = !single;
    else if (c === '"' && !single) double = !double;
    else if (single) continue;
    else if (c === '\\' && i + 1 < command.length) {
      if (!double || ['$', '`', '"', '\\', '\n'].includes(command[i + 1]!)) i++;
    } else if (c === '$' && command[i + 1] === '(') return true;
    else if (!double && (c === '<' || c === '>') && command[i + 1] === '(') return true;
    else if (c === '`') return true;
  }
  return false;
}

/** `BeforeTool` on `run_shell_command`, answered with Gemini's own `hookSpecificOutput.tool_input`. */
const geminiShell: ToolRoute = {
  event: 'BeforeTool',
  tool: 'run_shell_command',
  agent: 'gemini',
  prefilter: '"run_shell_command"',
  permit: (command) =>
    geminiRefuses(command)
      ? { route: false, reason: 'Gemini CLI refuses command substitution: it refuses the command as written' }
      : { route: true },
  render: (updated) => ({ hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: updated } }),
  after: 'AfterTool',
  recordsAfter: (event) => event.hook_event_name === 'AfterTool',
};

export const gemini: AgentAdapter = {
  id: 'gemini',
  aliases: ['gemini-cli'],
  displayName: 'Gemini CLI',
  routes: [geminiShell],
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('gemini');
    if (bin) return { installed: true, because: `gemini on PATH (${bin})` };
    return ctx.exists(path.join(ctx.home, '.gemini'))
      ? { installed: true, because: '~/.gemini exists' }
      : { installed: false, because: 'no gemini on PATH and no ~/.gemini' };
  },
  plan: (ctx, scope) => {
    const settings = path.join(scope === 'project' ? ctx.project! : ctx.home, '.gemini', 'settings.json');
    const hook = {
      type: 'command',
      name: MCP_NAME,
      command: ctx.hookCommand('gemini', scope),
      timeout: HOOK_TIMEOUT_SECONDS * 1000,
    };
    const edits: ConfigEdit[] = [
      {
        kind: 'json',
        file: settings,
        comments: true,
        path: ['hooks', 'BeforeTool', -1],
        value: { matcher: 'run_shell_command', hooks: [hook] },
        ours: (v) => isOurMatcherGroup(v) || isOurHookEntry(v),
      },
    ];
    // Other tools' large results too, when asked (Gemini CLI's after-tool event is AfterTool; hookCommand carries the
    // flag).
    if (ctx.recordOtherToolResults)
      edits.push({
        kind: 'json',
        file: settings,
        comments: true,
        path: ['hooks', 'AfterTool', -1],
        value: { matcher: '*', hooks: [hook] },
        ours: (v) => isOurMatcherGroup(v) || isOurHookEntry(v),
      });
    const notes = [GEMINI_NOTE];
    const mcp = ctx.mcpServer(scope);
    if (mcp)
      edits.push({
        kind: 'json',
        file: settings,
        comments: true,
        path: ['mcpServers', MCP_NAME],
        value: { command: mcp.command, args: [...mcp.args], includeTools: ['read_tool_output'] },
        ours: isOurMcpEntry,
      });
    else
      notes.unshift(
        'MCP not registered: no evidence storage is known (pass --storage or run init in a VS Code terminal).',
      );
    return { edits, notes };
  },
};
