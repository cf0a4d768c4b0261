/**
 * GitHub Copilot (docs/contracts.md §6.2): one hook file in the Copilot CLI's format serves VS Code's Local harness,
 * VS Code's Copilot harness and the Copilot CLI; the hook tells them apart by the event. VS Code gets the evidence
 * tools from the extension itself, or they would be listed twice.
 */
import * as path from 'node:path';
import { HOOK_TIMEOUT_SECONDS, WORKSPACE_HOOK_FILE } from '../hookConfig.js';
import { isOurHookFile, isOurMcpEntry, jsonFileText, MCP_NAME, shellRead } from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit, Scope, ToolRoute } from './types.js';
import { vscodeTerminal } from './vscode.js';

function copilotHome(ctx: AgentContext): string {
  return ctx.env.COPILOT_HOME || path.join(ctx.home, '.copilot');
}

/** `postToolUse` too when other tools' results are kept. */
export function copilotHookFileText(hookCommand: string, postToolUse = false): string {
  const entry = [{ type: 'command', bash: hookCommand, timeoutSec: HOOK_TIMEOUT_SECONDS }];
  return jsonFileText({ version: 1, hooks: { preToolUse: entry, ...(postToolUse ? { postToolUse: entry } : {}) } });
}

/** `toolArgs` without `toolResult` is `preToolUse`, with it `postToolUse`. */
function copilotCliEventName(event: Record<string, unknown>): string | undefined {
  if (event.hook_event_name !== undefined || event.hookEventName !== undefined || !('toolArgs' in event))
    return undefined;
  return 'toolResult' in event ? 'postToolUse' : 'preToolUse';
}

/** True when a process's arguments are the Copilot CLI's (its binary, or its npm loader), not VS Code's agent host. */
function isCopilotCli(args: readonly string[]): boolean {
  return args.slice(0, 2).some((a) => /(?:^|\/)copilot$|@github\/copilot(?:-[a-z0-9-]+)?\//.test(a));
}

/**
 * True when the Copilot CLI's flags allow every shell command (`--allow-all-tools`, `--allow-all`, `--yolo`,
 * `--allow-tool shell`): it then runs the routed form without asking. Otherwise it checks its rules against the routed
 * form, which names our command line, and denies or asks where the command as written would run.
 */
function allowsEveryShellCommand(args: readonly string[]): boolean {
  return args.some((a, i) => {
    if (a === '--allow-all-tools' || a === '--allow-all' || a === '--yolo') return true;
    const value = a.startsWith('--allow-tool=') ? a.slice(13) : args[i - 1] === '--allow-tool' ? a : undefined;
    return value !== undefined && value.split(',').some((v) => v.trim() === 'shell');
  });
}

/**
 * The Copilot CLI and VS Code's Copilot harness (recorded from @github/copilot 1.0.102,
 * test/agents/copilotCli.test.ts); `toolArgs` may be a JSON text, read either way.
 */
const copilotCliBash: ToolRoute = {
  event: 'preToolUse',
  tool: 'bash',
  agent: 'copilot-cli',
  // Its events are compact JSON: a file read that merely mentions "bash" needs no Node.
  prefilter: '"toolName":"bash"',
  eventName: copilotCliEventName,
  input: (event) => {
    let input = event.toolArgs;
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch {
        input = undefined;
      }
    }
    return typeof input === 'object' && input !== null && !Array.isArray(input)
      ? (input as Record<string, unknown>)
      : 'the event has no toolArgs object';
  },
  permit: (_command, _event, ctx) => {
    const args = ctx.clientArgs?.();
    if (ctx.allow || !args || !isCopilotCli(args) || allowsEveryShellCommand(args)) return { route: true };
    return {
      route: false,
      reason: 'the Copilot CLI would ask about it (no --allow-all-tools): it decides on the command as written',
    };
  },
  render: (updated, a) => ({ ...(a.allow ? { permissionDecision: 'allow' } : {}), modifiedArgs: updated }),
  // A sync call returns at `initial_wait` seconds, never before 30, the command left running (test/agents).
  limitMs: (input) =>
    typeof input.initial_wait === 'number' && input.initial_wait > 30
      ? Math.round(1000 * Math.min(input.initial_wait, 3600))
      : 30_000,
  // It records `modifiedArgs` as the call the model made and replays them: no path in them where a variable serves.
  byVariables: true,
  // Its MCP servers are the user's `mcp-config.json` (init --global): without ours it has no read_tool_output.
  readWith: (ctx) => {
    const home = ctx.env?.COPILOT_HOME || (ctx.env?.HOME ? path.join(ctx.env.HOME, '.copilot') : undefined);
    const config = home ? ctx.readText?.(path.join(home, 'mcp-config.json')) : undefined;
    let servers: unknown;
    try {
      servers = config === undefined ? undefined : (JSON.parse(config) as { mcpServers?: unknown }).mcpServers;
    } catch {
      servers = undefined;
    }
    const ours =
      typeof servers === 'object' && servers !== null && isOurMcpEntry((servers as Record<string, unknown>)[MCP_NAME]);
    return ours ? undefined : shellRead(ctx);
  },
  after: 'postToolUse',
  recordsAfter: (event) => 'toolArgs' in event,
};

export const copilot: AgentAdapter = {
  id: 'copilot',
  aliases: ['vscode', 'copilot-cli'],
  recordsAs: ['copilot', 'copilot-cli'],
  displayName: 'GitHub Copilot (VS Code agent: Local and Copilot harness; Copilot CLI)',
  routes: [vscodeTerminal, copilotCliBash],
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('copilot');
    if (bin) return { installed: true, because: `copilot on PATH (${bin})` };
    for (const p of ['code', 'code-insiders', 'code-server']) {
      const c = ctx.which(p);
      if (c) return { installed: true, because: `${p} on PATH (${c})` };
    }
    if (ctx.env.TERM_PROGRAM === 'vscode' || ctx.env.BOUNDED_EVIDENCE_CLI)
      return { installed: true, because: 'running in a VS Code terminal' };
    return ctx.exists(copilotHome(ctx))
      ? { installed: true, because: '~/.copilot exists' }
      : { installed: false, because: 'no copilot or code on PATH and no ~/.copilot' };
  },
  plan: (ctx, scope) => {
    const file =
      scope === 'project'
        ? path.join(ctx.project!, WORKSPACE_HOOK_FILE)
        : path.join(copilotHome(ctx), 'hooks', 'bounded-evidence.json');
    const edits: ConfigEdit[] = [
      {
        kind: 'file',
        file,
        text: copilotHookFileText(ctx.hookCommand(undefined, scope), ctx.recordOtherToolResults),
        ours: isOurHookFile,
      },
    ];
    const notes: string[] = [];
    const mcp = ctx.mcpServer(scope);
    if (scope === 'global' && mcp) {
      edits.push({
        kind: 'json',
        file: path.join(copilotHome(ctx), 'mcp-config.json'),
        comments: false,
        path: ['mcpServers', MCP_NAME],
        value: { type: 'local', command: mcp.command, args: [...mcp.args], tools: ['*'] },
        ours: isOurMcpEntry,
      });
    } else if (scope === 'project')
      notes.push(
        'MCP: VS Code gets the evidence tools from the extension; for the Copilot CLI run init --global ' +
          '(it reads ~/.copilot/mcp-config.json).',
      );
    else notes.push('MCP not registered for the Copilot CLI: no evidence storage is known (pass --storage).');
    return { edits, notes };
  },
  // The Copilot CLI in prompt mode (-p) skips a repository's hooks in a folder it does not trust, unless told.
  cautions: (ctx, scope) => [APPROVAL_CAUTION, ...promptModeCaution(ctx, scope)],
};

/** Where the Copilot CLI would ask, the command runs as written (its rules would see our form). */
const APPROVAL_CAUTION =
  'Copilot CLI: routed with --allow-all-tools (or --allow-all, --yolo, --allow-tool shell); otherwise its commands ' +
  'run as written, so its prompt shows them as written (VS Code routes either way)';

function promptModeCaution(ctx: AgentContext, scope: Scope): string[] {
  if (scope !== 'project' || !ctx.project || ctx.env.GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS === 'true') return [];
  let trusted: unknown;
  try {
    trusted = (
      JSON.parse(ctx.readText?.(path.join(copilotHome(ctx), 'config.json')) ?? '{}') as Record<string, unknown>
    ).trusted_folders;
  } catch {
    trusted = undefined;
  }
  const project = ctx.project;
  if (
    Array.isArray(trusted) &&
    trusted.some((f) => typeof f === 'string' && (project + path.sep).startsWith(f.replace(/\/?$/, path.sep)))
  )
    return [];
  return [
    'Copilot CLI with -p: not routed in a folder it does not trust: ' +
      'export GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true (VS Code and an interactive copilot route)',
  ];
}
