/**
 * Codex (docs/contracts.md §6.2), as codex-rs/hooks/src/engine/discovery.rs reads its configuration. Codex runs a
 * hook only when the user's `config.toml` trusts its current hash, without a word otherwise; running `init` for Codex
 * is the person's approval of exactly this hook, so init writes that entry (verified against the real Codex in
 * test/agents/codex.test.ts). The MCP server offers only `read_tool_output`: each listed tool's schema is sent to the
 * model.
 */
import * as path from 'node:path';
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import { codexVerdict } from '../codexPolicy.js';
import { projectRootOf } from '../locate.js';
import {
  commandHook,
  isOurMatcherGroup,
  MCP_NAME,
  NO_STORAGE_NOTE,
  TOML_MARKER,
  updatedInputAnswer,
} from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit, Scope, ToolRoute } from './types.js';

/** Loaded only when init or doctor reads a config: the hook, which loads this file too, never does. */
function parseToml(text: string): unknown {
  // smol-toml ships a CommonJS build (`exports.require`) whose types TypeScript reads as ESM only.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('smol-toml') as typeof SmolToml).parse(text);
}

/** Undefined when absent, unreadable or not TOML. */
function userConfig(ctx: AgentContext): Record<string, unknown> | undefined {
  const text = ctx.readText?.(path.join(codexHome(ctx), 'config.toml'));
  if (text === undefined) return undefined;
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const inside = (p: string, dir: string): boolean => {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

function writableRoots(cfg: Record<string, unknown> | undefined): string[] {
  const t = cfg?.sandbox_workspace_write;
  const roots = isRecord(t) ? t.writable_roots : undefined;
  return Array.isArray(roots) ? roots.filter((r): r is string => typeof r === 'string') : [];
}

/** src/core/reach/codexPolicy.ts. */
function sandboxWritable(
  storage: string,
  project: string | undefined,
  cfg: Record<string, unknown> | undefined,
): boolean {
  return [...(project ? [project] : []), '/tmp', ...writableRoots(cfg)].some((d) => inside(storage, d));
}

function trustKeys(ctx: AgentContext): string[] {
  if (!ctx.project) return [];
  return [...new Set([ctx.project, projectRootOf(ctx.project, ctx.exists)])];
}

/**
 * So workspace-write (the default of `codex exec`) can write the evidence storage. None when it can already, or when
 * the person has a table of that name (doctor says what to add).
 */
function sandboxEdit(ctx: AgentContext, file: string): ConfigEdit | undefined {
  const cfg = userConfig(ctx);
  if (!ctx.storage || sandboxWritable(ctx.storage, ctx.project, cfg)) return undefined;
  const text = ctx.readText?.(file) ?? '';
  const ours = text.includes(`${TOML_MARKER}\n[sandbox_workspace_write]`);
  if (cfg?.sandbox_workspace_write !== undefined && !ours) return undefined;
  const roots = [...new Set([...(ours ? writableRoots(cfg) : []), path.resolve(ctx.storage)])];
  return { kind: 'toml', file, table: ['sandbox_workspace_write'], value: { writable_roots: roots } };
}

const CODEX_MCP_TOOLS = ['read_tool_output'];

/** As Codex's `canonicalize` writes it before hashing (codex-rs/config/src/fingerprint.rs). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * codex-rs/hooks/src/engine/discovery.rs `command_hook_hash`: absent fields dropped (TOML has no null), `async`
 * false, the timeout as written.
 */
export function codexHookTrustHash(matcher: string, command: string, timeoutSec: number): string {
  const identity = {
    event_name: 'pre_tool_use',
    matcher,
    hooks: [{ type: 'command', command, timeout: timeoutSec, async: false }],
  };
  // init's half only: the hook never loads node:crypto for it.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(canonical(identity)))
    .digest('hex')}`;
}

function codexHome(ctx: Pick<AgentContext, 'env' | 'home'>): string {
  return ctx.env.CODEX_HOME || path.join(ctx.home, '.codex');
}

/** After the person's own groups (ours are replaced). */
function groupIndex(text: string | undefined): number {
  if (text === undefined) return 0;
  try {
    const doc = JSON.parse(text) as { hooks?: { PreToolUse?: unknown } };
    const list = doc.hooks?.PreToolUse;
    return Array.isArray(list) ? list.filter((g) => !isOurMatcherGroup(g)).length : 0;
  } catch {
    return 0;
  }
}

const CODEX_SANDBOX_NOTE =
  'Codex routes a command only where its sandbox lets the command write the evidence storage ' +
  '(danger-full-access, or workspace-write: init adds the storage to sandbox_workspace_write.writable_roots) ' +
  'and its approval policy is never, on-request or on-failure; under the read-only sandbox, `untrusted`, ' +
  'and for programs an exec-policy rule names, commands run as written.';

/** Both name the tool `Bash`; Codex sends the turn's id and the model's slug, Claude Code neither. */
function isCodexEvent(event: Record<string, unknown>): boolean {
  return typeof event.turn_id === 'string' && typeof event.model === 'string';
}

/**
 * Codex runs the rewritten form under its own policy and sandbox, so the hook routes only where that would run as the
 * original does (src/core/reach/codexPolicy.ts).
 */
const codexBash: ToolRoute = {
  event: 'PreToolUse',
  tool: 'Bash',
  agent: 'codex',
  prefilter: '"Bash"',
  claims: isCodexEvent,
  permit: (command, event, ctx) => {
    const session = ctx.codexSession?.(event);
    const verdict = codexVerdict(command, session?.turn, {
      storage: ctx.storage!,
      rules: session?.rules ?? [],
      tmpdir: session?.tmpdir,
    });
    return verdict.route ? { route: true, allow: true } : { route: false, reason: verdict.reason };
  },
  render: updatedInputAnswer('PreToolUse'),
  // `exec_command`'s default `yield_time_ms`: its event does not carry the model's own.
  limitMs: () => 10_000,
  after: 'PostToolUse',
  recordsAfter: isCodexEvent,
};

export const codex: AgentAdapter = {
  id: 'codex',
  displayName: 'Codex',
  routes: [codexBash],
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('codex');
    if (bin) return { installed: true, because: `codex on PATH (${bin})` };
    return ctx.exists(codexHome(ctx))
      ? { installed: true, because: `${codexHome(ctx)} exists` }
      : { installed: false, because: 'no codex on PATH and no ~/.codex' };
  },
  plan: (ctx, scope: Scope) => {
    const home = codexHome(ctx);
    const layer = scope === 'project' ? path.join(ctx.project!, '.codex') : home;
    const hooksFile = path.join(layer, 'hooks.json');
    const command = ctx.hookCommand('codex', scope);
    const hook = commandHook(command) as { timeout: number };
    const edits: ConfigEdit[] = [
      {
        kind: 'json',
        file: hooksFile,
        comments: false,
        path: ['hooks', 'PreToolUse', -1],
        value: { matcher: 'Bash', hooks: [hook] },
        ours: isOurMatcherGroup,
      },
      // Trust lives in the user's config.toml whatever the hook's layer (codex-rs reads user layers only).
      {
        kind: 'toml',
        file: path.join(home, 'config.toml'),
        table: ['hooks', 'state', `${hooksFile}:pre_tool_use:${groupIndex(ctx.readText?.(hooksFile))}:0`],
        value: { trusted_hash: codexHookTrustHash('Bash', command, hook.timeout) },
      },
    ];
    const sandbox = sandboxEdit(ctx, path.join(home, 'config.toml'));
    if (sandbox) edits.push(sandbox);
    const notes = [CODEX_SANDBOX_NOTE];
    const mcp = ctx.mcpServer(scope);
    if (mcp)
      edits.push({
        kind: 'toml',
        file: path.join(layer, 'config.toml'),
        table: ['mcp_servers', MCP_NAME],
        value: { command: mcp.command, args: [...mcp.args], enabled_tools: CODEX_MCP_TOOLS },
      });
    else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
  blockers: (ctx) => {
    const out: string[] = [];
    const cfg = userConfig(ctx);
    const projects = isRecord(cfg?.projects) ? cfg.projects : {};
    const keys = trustKeys(ctx);
    if (keys.length > 0 && !keys.some((k) => isRecord(projects[k]) && projects[k].trust_level === 'trusted'))
      out.push(
        `trust this folder in Codex (start codex here and trust it, ` +
          `or add [projects.${JSON.stringify(keys[keys.length - 1])}] ` +
          `trust_level = "trusted" to ~/.codex/config.toml): ` +
          `Codex runs no hook in an untrusted folder`,
      );
    if (ctx.storage && !sandboxWritable(ctx.storage, ctx.project, cfg))
      out.push(
        `add ${JSON.stringify(path.resolve(ctx.storage))} to sandbox_workspace_write.writable_roots ` +
          `in ~/.codex/config.toml: ` +
          `Codex's workspace-write sandbox cannot write the evidence storage`,
      );
    return out;
  },
};
