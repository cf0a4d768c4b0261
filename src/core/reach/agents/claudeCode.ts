/**
 * Claude Code (docs/contracts.md §6.2): a `Bash` matcher group in `PreToolUse` of its settings and the MCP server.
 * Settings files are strict JSON.
 */
import * as path from 'node:path';
import { bashRulesOf, claudeVerdict, commandLineRules } from '../claudePermissions.js';
import {
  commandHook,
  isOurMatcherGroup,
  isOurMcpEntry,
  MCP_NAME,
  NO_STORAGE_NOTE,
  updatedInputAnswer,
} from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit, Scope, ToolRoute } from './types.js';

/**
 * Claude Code defers MCP tools behind its ToolSearch (a handle read took a third call); routed commands do not need
 * it, since a handle can be read with Bash.
 */
const TOOL_SEARCH_NOTE =
  'Claude Code defers MCP tools behind ToolSearch: the first read by handle costs one extra call ' +
  "(set ENABLE_TOOL_SEARCH=false to offer them directly); a routed command's observation " +
  'can also be read with Bash: bounded-evidence read HANDLE where the command line is installed, ' +
  '"$BOUNDED_EVIDENCE_CLI" read HANDLE in a VS Code terminal.';

/**
 * Claude Code checks its permission rules against the routed form, so the hook decides for the original
 * (src/core/reach/claudePermissions.ts); a command that would need approval stays as written, so the prompt names it.
 * opencode's plugin sends the same shape.
 */
const claudeBash: ToolRoute = {
  event: 'PreToolUse',
  tool: 'Bash',
  agent: 'claude',
  prefilter: '"Bash"',
  permit: (command, event, ctx) => {
    if (ctx.allow || !ctx.claudeSettings) return { route: true };
    const mode = event.permission_mode;
    if (mode === 'bypassPermissions') return { route: true };
    // Rules given on its command line reach no hook any other way: read from the client's own command line.
    const args = ctx.clientArgs?.();
    const flags = args ? commandLineRules(args) : undefined;
    const verdict = claudeVerdict(command, [...ctx.claudeSettings(event), flags]);
    if (verdict === 'allow') return { route: true, allow: true };
    if (verdict === 'leave')
      return {
        route: false,
        reason: 'a permission rule asks or denies: Claude Code applies it to the command as written',
      };
    if (typeof mode !== 'string') return { route: true };
    return {
      route: false,
      reason: `no allow rule covers it in permission mode ${mode}: Claude Code decides on it as written`,
    };
  },
  render: updatedInputAnswer('PreToolUse'),
  // Bash's `timeout`, else its default of two minutes; opencode's bash has the same parameter and default.
  limitMs: (input) =>
    typeof input.timeout === 'number' && input.timeout > 0 ? Math.min(input.timeout, 600_000) : 120_000,
  after: 'PostToolUse',
  // Claude Code sends its permission mode with every event.
  recordsAfter: (event) => 'permission_mode' in event,
};

export const claudeCode: AgentAdapter = {
  id: 'claude',
  aliases: ['claude-code'],
  displayName: 'Claude Code',
  routes: [claudeBash],
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('claude');
    if (bin) return { installed: true, because: `claude on PATH (${bin})` };
    const dir = path.join(ctx.home, '.claude');
    return ctx.exists(dir)
      ? { installed: true, because: '~/.claude exists' }
      : { installed: false, because: 'no claude on PATH and no ~/.claude' };
  },
  plan: (ctx, scope) => {
    const base = scope === 'project' ? ctx.project! : ctx.home;
    const settings = path.join(base, '.claude', 'settings.json');
    const edits: ConfigEdit[] = [
      {
        kind: 'json',
        file: settings,
        comments: false,
        path: ['hooks', 'PreToolUse', -1],
        value: { matcher: 'Bash', hooks: [commandHook(ctx.hookCommand('claude', scope))] },
        ours: isOurMatcherGroup,
      },
    ];
    if (ctx.recordOtherToolResults) {
      edits.push({
        kind: 'json',
        file: settings,
        comments: false,
        path: ['hooks', 'PostToolUse', -1],
        value: { matcher: '*', hooks: [commandHook(ctx.hookCommand('claude', scope))] },
        ours: isOurMatcherGroup,
      });
    }
    const mcp = ctx.mcpServer(scope);
    const notes = [TOOL_SEARCH_NOTE];
    if (mcp) {
      edits.push({
        kind: 'json',
        file: scope === 'project' ? path.join(base, '.mcp.json') : path.join(ctx.home, '.claude.json'),
        comments: false,
        path: ['mcpServers', MCP_NAME],
        value: { type: 'stdio', command: mcp.command, args: [...mcp.args] },
        ours: isOurMcpEntry,
      });
    } else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
  // Claude Code starts a project's .mcp.json server only once the person approved it (routing itself does not need it).
  cautions: (ctx, scope) => [...approvalCaution(ctx), ...mcpCaution(ctx, scope)],
};

/** Which commands route outside bypassPermissions: those the settings' allow rules cover (unless one allows all). */
function approvalCaution(ctx: AgentContext): string[] {
  const project = ctx.project;
  const texts = [
    ctx.readText?.(path.join(ctx.home, '.claude', 'settings.json')),
    project ? ctx.readText?.(path.join(project, '.claude', 'settings.json')) : undefined,
    project ? ctx.readText?.(path.join(project, '.claude', 'settings.local.json')) : undefined,
  ];
  if (texts.some((t) => bashRulesOf(t).allow.some((p) => p.trim() === '*' || p.trim() === ''))) return [];
  return [
    'Claude Code routes only what would not ask: bypassPermissions mode, or commands an allow rule of its ' +
      'settings files or --allowedTools covers (e.g. "Bash(npm test:*)"); others, and those allowed during a ' +
      'session (invisible to a hook), run as written',
  ];
}

function mcpCaution(ctx: AgentContext, scope: Scope): string[] {
  if (scope !== 'project' || !ctx.project) return [];
  const json = (f: string): Record<string, unknown> => {
    try {
      const v = JSON.parse(ctx.readText?.(f) ?? '{}') as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  const projects = json(path.join(ctx.home, '.claude.json')).projects as Record<string, unknown> | undefined;
  const approvals = [
    json(path.join(ctx.project, '.claude', 'settings.local.json')),
    json(path.join(ctx.project, '.claude', 'settings.json')),
    json(path.join(ctx.home, '.claude', 'settings.json')),
    (projects?.[ctx.project] as Record<string, unknown> | undefined) ?? {},
  ];
  const approved = approvals.some(
    (a) =>
      a.enableAllProjectMcpServers === true ||
      (Array.isArray(a.enabledMcpjsonServers) && a.enabledMcpjsonServers.includes(MCP_NAME)),
  );
  return approved
    ? []
    : [
        `Claude Code asks once before it starts .mcp.json's ${MCP_NAME} server: approve it ` +
          `(or add "enabledMcpjsonServers": ["${MCP_NAME}"] to .claude/settings.local.json); ` +
          `routed commands work without it`,
      ];
}
