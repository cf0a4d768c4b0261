/**
 * Factory Droid (docs/contracts.md §6.2), as its command line 0.225 reads its configuration: hooks from
 * `.factory/hooks.json` (project) or `~/.factory/hooks.json` (user), keyed by event name, and, only while that file
 * is absent, from the `hooks` key of `settings.json` beside it; MCP servers from `mcp.json` there
 * (`mcpServers.<name>: { type: 'stdio', command, args }`, as `droid mcp add` writes them). The home folder is
 * `FACTORY_HOME_OVERRIDE` when set. All three files are read as JSON with comments.
 */
import * as path from 'node:path';
import { droidVerdict } from '../droidPermissions.js';
import {
  commandHook,
  isOurMatcherGroup,
  isOurMcpEntry,
  MCP_NAME,
  NO_STORAGE_NOTE,
  updatedInputAnswer,
} from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit, HookContext, JsonPath, Scope, ToolRoute } from './types.js';

/**
 * The settings texts whose command lists Droid applies: the user's, and each folder's from the event's working folder
 * (and Droid's project folder) up to the root.
 */
function droidSettingsTexts(event: Record<string, unknown>, ctx: HookContext): (string | undefined)[] {
  const env = ctx.env ?? {};
  const dirs = new Set<string>();
  const home = env.FACTORY_HOME_OVERRIDE || env.HOME;
  if (home) dirs.add(path.join(home, '.factory'));
  for (const start of [env.FACTORY_PROJECT_DIR, typeof event.cwd === 'string' ? event.cwd : undefined]) {
    for (let d = start; d && path.isAbsolute(d); d = path.dirname(d)) {
      dirs.add(path.join(d, '.factory'));
      if (path.dirname(d) === d) break;
    }
  }
  return [...dirs].flatMap((d) => ['settings.json', 'settings.local.json'].map((f) => ctx.readText?.(path.join(d, f))));
}

function droidEvent(event: Record<string, unknown>): boolean {
  return typeof event.transcript_path === 'string' && event.transcript_path.includes('/.factory/');
}

/**
 * `PreToolUse` on `Execute`: Claude Code's event shape, answered with `hookSpecificOutput.updatedInput`, which Droid
 * merges over the model's arguments. Droid checks the routed form again, so only what it would run unasked is routed
 * (src/core/reach/droidPermissions.ts). `fireAndForget` commands keep running after the call: they stay as written.
 */
const droidExecute: ToolRoute = {
  event: 'PreToolUse',
  tool: 'Execute',
  agent: 'droid',
  prefilter: '"Execute"',
  input: (event) => {
    const input = event.tool_input;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'the event has no tool_input';
    const args = input as Record<string, unknown>;
    return args.fireAndForget === true ? 'fire-and-forget commands keep running: they stay as written' : args;
  },
  permit: (command, event, ctx) => droidVerdict(command, event.permission_mode, droidSettingsTexts(event, ctx)),
  render: updatedInputAnswer('PreToolUse'),
  // Execute's `timeout` in seconds, default 60: then it ends the command and gives the output so far.
  limitMs: (input) =>
    typeof input.timeout === 'number' && input.timeout > 0 ? Math.round(1000 * Math.min(input.timeout, 3600)) : 60_000,
  // Claude Code's events have the same shape: Droid's transcripts are under .factory (claimed before Claude Code's).
  claims: droidEvent,
  after: 'PostToolUse',
  recordsAfter: droidEvent,
};

/** The folder Droid reads for `scope`. */
function factoryDir(ctx: AgentContext, scope: Scope): string {
  const home = ctx.env.FACTORY_HOME_OVERRIDE || ctx.home;
  return path.join(scope === 'project' ? ctx.project! : home, '.factory');
}

/**
 * Where our hook goes, and its path there: `hooks.json` when it exists or nothing else declares hooks; else the
 * `hooks` key of `settings.json`, because creating `hooks.json` would silence the hooks Droid reads today
 * (`settings.json`'s and the legacy `hooks/hooks.json`).
 */
function hookPlace(ctx: AgentContext, dir: string): { file: string; at: (event: string) => JsonPath } {
  const hooksJson = path.join(dir, 'hooks.json');
  const settings = path.join(dir, 'settings.json');
  const inSettings = { file: settings, at: (event: string): JsonPath => ['hooks', event, -1] };
  if (ctx.exists(hooksJson)) return { file: hooksJson, at: (event) => [event, -1] };
  if (ctx.exists(path.join(dir, 'hooks', 'hooks.json'))) return inSettings;
  // A `"hooks"` member of the settings (a cheap look: a false match only picks the file Droid reads anyway).
  if (/"hooks"\s*:/.test(ctx.readText?.(settings) ?? '')) return inSettings;
  return { file: hooksJson, at: (event) => [event, -1] };
}

/** Droid defers MCP tools behind its ToolSearch, as Claude Code does. */
const DROID_NOTE =
  'Droid defers MCP tools behind ToolSearch: the first read by handle costs one extra call ' +
  '(its tool is bounded-evidence___read_tool_output); ' +
  'a handle can also be read with Execute: bounded-evidence read HANDLE.';

/** Droid rates the routed form as needing autonomy High; below that, the hook leaves commands as written. */
const AUTONOMY_CAUTION =
  'Droid routes only in autonomy High (droid exec --auto high, or Auto (High) in a session): ' +
  'at lower autonomy it would ask about the routed form, so commands run as written';

export const droid: AgentAdapter = {
  id: 'droid',
  aliases: ['factory-droid'],
  displayName: 'Factory Droid',
  routes: [droidExecute],
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('droid');
    if (bin) return { installed: true, because: `droid on PATH (${bin})` };
    return ctx.exists(factoryDir(ctx, 'global'))
      ? { installed: true, because: '~/.factory exists' }
      : { installed: false, because: 'no droid on PATH and no ~/.factory' };
  },
  plan: (ctx, scope) => {
    const dir = factoryDir(ctx, scope);
    const place = hookPlace(ctx, dir);
    const hook = commandHook(ctx.hookCommand('droid', scope));
    const edits: ConfigEdit[] = [
      {
        kind: 'json',
        file: place.file,
        comments: true,
        path: place.at('PreToolUse'),
        value: { matcher: 'Execute', hooks: [hook] },
        ours: isOurMatcherGroup,
      },
    ];
    if (ctx.recordOtherToolResults)
      edits.push({
        kind: 'json',
        file: place.file,
        comments: true,
        path: place.at('PostToolUse'),
        value: { matcher: '*', hooks: [hook] },
        ours: isOurMatcherGroup,
      });
    const notes = [DROID_NOTE];
    const mcp = ctx.mcpServer(scope);
    if (mcp)
      edits.push({
        kind: 'json',
        file: path.join(dir, 'mcp.json'),
        comments: true,
        path: ['mcpServers', MCP_NAME],
        value: { type: 'stdio', command: mcp.command, args: [...mcp.args], enabledTools: ['read_tool_output'] },
        ours: isOurMcpEntry,
      });
    else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
  cautions: () => [AUTONOMY_CAUTION],
};
