/**
 * GitHub Copilot (docs/contracts.md §6.2): one hook file in the Copilot CLI's format serves VS Code's Local harness,
 * VS Code's Copilot harness and the Copilot CLI; the hook tells them apart by the event. VS Code gets the evidence
 * tools from the extension itself, or they would be listed twice.
 */
import * as path from 'node:path';
import { HOOK_TIMEOUT_SECONDS, WORKSPACE_HOOK_FILE } from '../hookConfig.js';
import { isOurHookFile, isOurMcpEntry, jsonFileText, MCP_NAME, shellRead } from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit, HookContext, KeptResult, Scope, ToolRoute } from './types.js';
import { vscodeTerminal } from './vscode.js';

function copilotHome(ctx: AgentContext): string {
  return ctx.env.COPILOT_HOME || path.join(ctx.home, '.copilot');
}

/** `postToolUse` keeps the Copilot CLI's commands (and other tools' results when asked). */
export function copilotHookFileText(hookCommand: string): string {
  const entry = [{ type: 'command', bash: hookCommand, timeoutSec: HOOK_TIMEOUT_SECONDS }];
  return jsonFileText({ version: 1, hooks: { preToolUse: entry, postToolUse: entry } });
}

/** `toolArgs` without `toolResult` is `preToolUse`, with it `postToolUse`. */
function copilotCliEventName(event: Record<string, unknown>): string | undefined {
  if (event.hook_event_name !== undefined || event.hookEventName !== undefined || !('toolArgs' in event))
    return undefined;
  return 'toolResult' in event ? 'postToolUse' : 'preToolUse';
}

/** `toolArgs` may be a JSON text: read either way. */
function toolArgsOf(event: Record<string, unknown>): Record<string, unknown> | undefined {
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
    : undefined;
}

/** The line the CLI ends a finished command's result with. */
const FINISHED = /<shellId: [^<>\n]+ completed with exit code (\d+)>$/;
/** Over its own limit the CLI saves the whole output (both streams) to a file in its temporary folder. */
const SAVED = /^Output too large to read at once \([^)\n]*\)\. Saved to: (\/[^\n]+)\n/;
const SAVED_NAME = /^\d+-copilot-tool-output-[A-Za-z0-9-]+\.txt$/;

/** The CLI's finished bash result: the output it gave its model (or the file it saved it in) and the exit code. */
function finishedCommand(event: Record<string, unknown>, ctx: HookContext): KeptResult | string {
  const command = toolArgsOf(event)?.command;
  const result = event.toolResult;
  const text =
    typeof result === 'object' && result !== null ? (result as Record<string, unknown>).textResultForLlm : undefined;
  if (typeof command !== 'string' || command.trim() === '' || typeof text !== 'string')
    return 'the event has no command and result text';
  const end = FINISHED.exec(text);
  if (!end) return 'the command has not finished (no exit code in its result)';
  const body = text.slice(0, end.index);
  const saved = SAVED.exec(body)?.[1];
  // Only the CLI's own file: a command that prints the same words names no file of its choosing.
  const tmp = (ctx.env?.TMPDIR || '/tmp').replace(/(.)\/+$/, '$1');
  if (saved !== undefined && (path.dirname(saved) !== tmp || !SAVED_NAME.test(path.basename(saved))))
    return "the saved output is not in the CLI's temporary folder";
  const trailer = end[0];
  return {
    command,
    output: saved !== undefined ? { file: saved } : { text: body },
    exitCode: Number(end[1]),
    answer: (observation) => ({
      modifiedResult: {
        resultType: 'success',
        textResultForLlm: `${observation}${observation.endsWith('\n') ? '' : '\n'}${trailer}`,
      },
    }),
  };
}

/**
 * The Copilot CLI and VS Code's Copilot harness (recorded from @github/copilot 1.0.102,
 * test/agents/copilotCli.test.ts). It shows its model the arguments a hook rewrote as the call it made, so the command
 * runs as written and `postToolUse` keeps what it printed; a large result is replaced by the bounded observation.
 */
const copilotCliBash: ToolRoute = {
  event: 'preToolUse',
  tool: 'bash',
  agent: 'copilot-cli',
  // Its events are compact JSON: a file read that merely mentions "bash" needs no Node.
  prefilter: '"toolName":"bash"',
  eventName: copilotCliEventName,
  keepResult: finishedCommand,
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
        text: copilotHookFileText(ctx.hookCommand(undefined, scope)),
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
  cautions: (ctx, scope) => promptModeCaution(ctx, scope),
};

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
