/**
 * Cline's command line (npm `cline` 3.x; docs/contracts.md §6.2), as its bundled core reads hooks: every file named
 * after an event in `<project>/.cline/hooks/` or `~/.cline/hooks/` (`CLINE_DIR`) runs with the event on stdin, by its
 * `#!` line; the last line it prints is its answer, and `overrideInput` replaces the tool's input. The extension reads
 * `.clinerules/hooks/` and answers no input, so ours stays out of it. MCP servers are the user's
 * (`data/settings/cline_mcp_settings.json`): `--global` only.
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME, NO_STORAGE_NOTE, shellRead, TOML_MARKER } from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit, HookContext, Scope, ToolRoute } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function clineHome(env: Readonly<Record<string, string | undefined>>, home: string | undefined): string | undefined {
  return env.CLINE_DIR || (home ? path.join(home, '.cline') : undefined);
}

/** Where Cline's command line, and its VS Code extension's SDK bundle, read the user's MCP servers. */
export function clineMcpSettingsFile(
  env: Readonly<Record<string, string | undefined>>,
  home: string | undefined,
): string | undefined {
  if (env.CLINE_MCP_SETTINGS_PATH) return env.CLINE_MCP_SETTINGS_PATH;
  const data = env.CLINE_DATA_DIR || (clineHome(env, home) ? path.join(clineHome(env, home)!, 'data') : undefined);
  return data ? path.join(data, 'settings', 'cline_mcp_settings.json') : undefined;
}

/** `--auto-approve false` makes Cline ask about the routed form: the command then runs as written. */
function asksFirst(args: readonly string[] | undefined): boolean {
  if (!args) return false;
  return args.some((a, i) => a === '--auto-approve=false' || (a === '--auto-approve' && args[i + 1] === 'false'));
}

/**
 * `run_commands` with `{ commands: [...] }`, each run in its own shell at once: each is routed on its own. Cline echoes
 * the command that ran (200 characters) as the result's `query`, so the routed text names the storage by its variable
 * where the hook's environment has it.
 */
const clineRunCommands: ToolRoute = {
  event: 'tool_call',
  tool: 'run_commands',
  agent: 'cline',
  prefilter: '"run_commands"',
  eventName: (event) => (event.hookName === 'tool_call' && isRecord(event.tool_call) ? 'tool_call' : undefined),
  toolName: (event) => (isRecord(event.tool_call) ? (event.tool_call.name as string | undefined) : undefined),
  input: (event) => {
    const input = isRecord(event.tool_call) ? event.tool_call.input : undefined;
    return isRecord(input) ? input : 'the event has no tool_call.input object';
  },
  commands: (input) => (Array.isArray(input.commands) ? input.commands : 'tool_call.input.commands is not a list'),
  permit: (_command, _event, ctx) =>
    !ctx.allow && asksFirst(ctx.clientArgs?.())
      ? { route: false, reason: 'Cline asks before each command (--auto-approve false): it runs as written' }
      : { route: true },
  render: (updated) => ({ overrideInput: updated }),
  byVariables: true,
  readWith: (ctx: HookContext) => {
    const file = clineMcpSettingsFile(ctx.env ?? {}, ctx.env?.HOME);
    let servers: unknown;
    try {
      servers = (JSON.parse(ctx.readText?.(file ?? '') ?? '{}') as { mcpServers?: unknown }).mcpServers;
    } catch {
      servers = undefined;
    }
    return isRecord(servers) && isOurMcpEntry(servers[MCP_NAME]) ? undefined : shellRead(ctx);
  },
};

const HOOK_MARK = TOML_MARKER;
const MCP_TIMEOUT_SECONDS = 60;

/** The same entry in every `cline_mcp_settings.json`: the command line's, and either bundle of the extension's. */
export function clineMcpEdit(file: string, mcp: { command: string; args: readonly string[] }): ConfigEdit {
  return {
    kind: 'json',
    file,
    comments: false,
    path: ['mcpServers', MCP_NAME],
    // Cline gives a stdio server 3 s to start unless a timeout is set: ours starts Node, slower on a busy machine.
    value: { command: mcp.command, args: [...mcp.args], timeout: MCP_TIMEOUT_SECONDS },
    ours: isOurMcpEntry,
  };
}

/** Found by its name; `sh` runs it (its `#!` line), and the portable command finds the product or prints nothing. */
export function clineHookText(hookCommand: string): string {
  return `#!/bin/sh\n${HOOK_MARK}\n${hookCommand}\n`;
}

function hooksDir(ctx: AgentContext, scope: Scope): string {
  return scope === 'project'
    ? path.join(ctx.project!, '.cline', 'hooks')
    : path.join(clineHome(ctx.env, ctx.home)!, 'hooks');
}

const CLINE_NOTE =
  'Cline runs each command of a run_commands call in its own shell; each is routed on its own. ' +
  'The extension (saoudrizwan.claude-dev) reads .clinerules/hooks and cannot change a command: ' +
  'this routes the cline command line; init --agent cline-vscode gives the extension MCP + a rule.';

export const cline: AgentAdapter = {
  id: 'cline',
  aliases: ['cline-cli'],
  displayName: 'Cline (command line)',
  routes: [clineRunCommands],
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('cline');
    if (bin) return { installed: true, because: `cline on PATH (${bin})` };
    return ctx.exists(clineHome(ctx.env, ctx.home)!)
      ? { installed: true, because: '~/.cline exists' }
      : { installed: false, because: 'no cline on PATH and no ~/.cline' };
  },
  plan: (ctx, scope) => {
    const text = clineHookText(ctx.hookCommand('cline', scope));
    const edits: ConfigEdit[] = [
      {
        kind: 'file',
        file: path.join(hooksDir(ctx, scope), 'PreToolUse'),
        text,
        ours: (t) => t.startsWith('#!/bin/sh\n') && t.includes(HOOK_MARK),
      },
    ];
    const notes = [CLINE_NOTE];
    const mcp = scope === 'global' ? ctx.mcpServer(scope) : undefined;
    if (mcp) edits.push(clineMcpEdit(clineMcpSettingsFile(ctx.env, ctx.home)!, mcp));
    else if (scope === 'project')
      notes.push(
        "Cline's MCP servers are the user's (init --global registers ours): " +
          'in a project, a handle is read with run_commands: bounded-evidence read HANDLE.',
      );
    else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
  cautions: () => [
    'Cline asks about the routed form when started with --auto-approve false: commands then run as written',
  ],
};
