/**
 * Gemini CLI (docs/contracts.md §6.2), as google-gemini/gemini-cli documents its settings (JSON with comments); hook
 * timeouts are in milliseconds. The MCP server offers only `read_tool_output`.
 */
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { HOOK_TIMEOUT_SECONDS } from '../hookConfig.js';
import { isOurHookEntry, isOurMatcherGroup, isOurMcpEntry, MCP_NAME, NO_STORAGE_NOTE } from './common.js';
import type { AgentAdapter, ConfigEdit, HookContext, ToolRoute } from './types.js';

const GEMINI_NOTE =
  "Gemini CLI checks its policy on the routed command (the original's commands plus `bounded-evidence keep`): " +
  'an allow-list that names only the original may ask; deny rules still match. ' +
  'Gemini CLI warns once before running a project hook it has not seen.';

/**
 * Gemini's own check (`detectBashSubstitution`): a command it will refuse is left as written, since routed it would
 * leave a spool nothing runs.
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

/**
 * `tools.shell.inactivityTimeout` (seconds, default 300; 0 or less: none): Gemini CLI ends a command that has written
 * nothing for that long. System settings override the project's, which override the user's.
 */
function geminiInactivityMs(event: Record<string, unknown>, ctx: HookContext): number | undefined {
  const env = ctx.env ?? {};
  const files = [
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || '/etc/gemini-cli/settings.json',
    ...(typeof event.cwd === 'string' ? [path.join(event.cwd, '.gemini', 'settings.json')] : []),
    ...(env.HOME ? [path.join(env.HOME, '.gemini', 'settings.json')] : []),
  ];
  for (const file of files) {
    const text = ctx.readText?.(file);
    const doc =
      text === undefined ? undefined : (parse(text) as { tools?: { shell?: { inactivityTimeout?: unknown } } });
    const seconds = doc?.tools?.shell?.inactivityTimeout;
    if (typeof seconds === 'number' && Number.isFinite(seconds))
      return seconds > 0 ? Math.min(Math.round(seconds * 1000), 2 ** 31 - 1) : undefined;
  }
  return 300_000;
}

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
  limitMs: (_input, event, ctx) => geminiInactivityMs(event, ctx),
  limitIdle: true,
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
    // Gemini CLI's after-tool event is AfterTool; hookCommand carries the flag.
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
    else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
};
