/**
 * `init` and `doctor` (docs/contracts.md §6.2): the command line's side of the agent adapters
 * (src/core/reach/agents/). This file builds the adapters' context from the process (home, working
 * directory, PATH, the command that starts this command line) and prints; the plans, the merging and
 * the undo journal are the core's, shared with the editor's command.
 */
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { machineContext } from '../core/reach/agents/context.js';
import { AGENTS, agentNamed } from '../core/reach/agents/index.js';
import { describeOutcome, displayPath, doctorRows, runInit } from '../core/reach/agents/init.js';
import type { AgentAdapter, AgentContext, Scope } from '../core/reach/agents/types.js';
import { quoteShellWord } from '../core/reach/shellQuote.js';
import { UsageError } from './args.js';
import { CLI_ENV, STORAGE_ENV } from './env.js';
import { cliCommand, storageForFolder } from './hook.js';
import type { CliIo } from './io.js';

/**
 * The adapters' context for this process: the storage is `--storage`, else the terminal's
 * `BOUNDED_EVIDENCE_STORAGE`, else the one the extension mapped to this folder; the hook and the MCP server
 * are started by the extension's shim when this runs in a VS Code terminal, else by this very Node and script.
 */
function processContext(
  io: CliIo,
  self: readonly string[],
  storageFlag: string | undefined,
  recordPostToolUse = false,
): AgentContext & { storage: string | undefined } {
  const home = io.env.HOME || os.homedir();
  const storage = storageFlag ?? (io.env[STORAGE_ENV] || undefined) ?? storageForFolder(io.env, io.cwd);
  const cli = cliCommand(io.env, self);
  const shim = io.env[CLI_ENV];
  return {
    storage,
    ...machineContext({
      home,
      project: io.cwd,
      env: io.env,
      recordOtherToolResults: recordPostToolUse,
      hookCommand: (agent, scope, extra = []) =>
        [
          cli,
          'hook',
          ...(agent ? ['--agent', agent] : []),
          ...(scope === 'project' && storage ? ['--storage', quoteShellWord(path.resolve(storage))] : []),
          ...(recordPostToolUse ? ['--record-post-tool-use'] : []),
          ...extra,
        ].join(' '),
      mcpServer: () =>
        storage
          ? {
              command: shim || self[0]!,
              args: [...(shim ? [] : [self[1]!]), 'mcp', '--storage', path.resolve(storage)],
            }
          : undefined,
    }),
  };
}

/** `--agent NAME…` / `--all` / the detected ones. */
function chooseAgents(
  ctx: AgentContext,
  names: readonly string[] | undefined,
  all: boolean | undefined,
  uninstall: boolean,
): AgentAdapter[] {
  if (names && names.length > 0) {
    const chosen: AgentAdapter[] = [];
    for (const n of names.flatMap((x) => x.split(','))) {
      const a = agentNamed(n.trim());
      if (!a)
        throw new UsageError(
          `unknown agent "${n.slice(0, 40)}" (known: ${AGENTS.map((x) => [x.id, ...(x.aliases ?? [])].join('/')).join(', ')})`,
        );
      if (!chosen.includes(a)) chosen.push(a);
    }
    return chosen;
  }
  // Uninstall without names: every agent (removing only what is ours is safe whether or not it is installed).
  if (all || uninstall) return [...AGENTS];
  return AGENTS.filter((a) => a.detect(ctx).installed);
}

function flags(argv: readonly string[]): {
  agent?: string[];
  all?: boolean;
  global?: boolean;
  project?: boolean;
  'dry-run'?: boolean;
  uninstall?: boolean;
  storage?: string;
  'record-post-tool-use'?: boolean;
} {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        agent: { type: 'string', multiple: true },
        all: { type: 'boolean' },
        global: { type: 'boolean' },
        project: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        uninstall: { type: 'boolean' },
        storage: { type: 'string' },
        'record-post-tool-use': { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
}

/** `init [--agent NAME…|--all] [--global|--project] [--dry-run] [--uninstall] [--storage DIR]`. Exit 1 when an agent could not be changed. */
export async function init(argv: readonly string[], io: CliIo, self: readonly string[]): Promise<number> {
  const v = flags(argv);
  if (v.global && v.project) throw new UsageError('--global and --project exclude each other');
  if (v.all && v.agent?.length) throw new UsageError('--all and --agent exclude each other');
  const ctx = processContext(io, self, v.storage, v['record-post-tool-use'] ?? false);
  const agents = chooseAgents(ctx, v.agent, v.all, v.uninstall ?? false);
  if (agents.length === 0) {
    await io.out(
      `no agent detected (known: ${AGENTS.map((a) => a.id).join(', ')}); name one with --agent NAME or pass --all\n`,
    );
    return 0;
  }
  const scope: Scope | undefined = v.global ? 'global' : v.project ? 'project' : undefined;
  const opts = { agents, ...(scope ? { scope } : {}), dryRun: v['dry-run'] ?? false, uninstall: v.uninstall ?? false };
  const outcomes = await runInit(ctx, opts);
  const lines: string[] = [];
  for (const o of outcomes) {
    lines.push(describeOutcome(ctx, o, opts));
    if (opts.dryRun)
      for (const f of o.files)
        if (f.action !== 'unchanged')
          lines.push(
            f.text === undefined
              ? `  ${displayPath(ctx, f.file)}: deleted`
              : `  ${displayPath(ctx, f.file)} would contain:\n${f.text.replace(/^/gm, '    ')}`,
          );
    if (!opts.uninstall && !o.error) for (const n of o.notes) lines.push(`  note: ${n}`);
  }
  if (!ctx.storage && !opts.uninstall)
    lines.push(
      `no evidence storage known: hooks find it per folder (VS Code maps each workspace); pass --storage DIR to name one`,
    );
  await io.out(`${lines.join('\n')}\n`);
  return outcomes.some((o) => o.error) ? 1 : 0;
}

/** `doctor [--storage DIR]`: per agent, routing on/off per scope, the hook and storage it uses, the last routed command. */
export async function doctor(argv: readonly string[], io: CliIo, self: readonly string[]): Promise<number> {
  const v = flags(argv);
  const ctx = processContext(io, self, v.storage);
  const rows = await doctorRows(ctx, AGENTS);
  const last = await lastRoutedByAgent(ctx.storage);
  const lines: string[] = [];
  for (const agent of AGENTS) {
    const mine = rows.filter((r) => r.agent === agent);
    const d = agent.detect(ctx);
    lines.push(
      `${agent.displayName} [${agent.id}]: ${d.installed ? `detected: ${d.because}` : `not detected: ${d.because}`}`,
    );
    for (const r of mine) {
      const hook = r.present.find((p) => p.hook)?.hook;
      const files = r.present.map((p) => `${displayPath(ctx, p.file)} ${p.present ? 'ok' : 'missing'}`).join(', ');
      const storage = hook
        ? (/--storage ('(?:[^']|'\\'')*'|\S+)/.exec(hook)?.[1] ??
          'found per folder (workspaces.json) or $BOUNDED_EVIDENCE_STORAGE')
        : undefined;
      lines.push(
        `  ${r.scope}: routing ${r.routed ? 'on' : r.present.some((p) => p.present) ? 'partly on' : 'off'} (${files})${hook ? `; hook: ${hook}; storage: ${storage}` : ''}`,
      );
    }
    const names = agent.recordsAs ?? [agent.id];
    const run = names
      .map((n) => last.get(n))
      .filter((x) => x !== undefined)
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
    lines.push(
      `  last routed command: ${run ? `${run.startedAt} ${run.label ?? run.runId} (run ${run.runId})` : ctx.storage ? 'none in this storage' : 'unknown (no storage: pass --storage DIR)'}`,
    );
  }
  lines.push(`storage: ${ctx.storage ? path.resolve(ctx.storage) : 'none known here'}`);
  await io.out(`${lines.join('\n')}\n`);
  return 0;
}

/** The newest run each agent's hook recorded in `storage` (none when there is no storage or it cannot be opened). */
async function lastRoutedByAgent(
  storage: string | undefined,
): Promise<Map<string, { runId: string; startedAt: string; label?: string }>> {
  const out = new Map<string, { runId: string; startedAt: string; label?: string }>();
  if (!storage || !existsSync(storage)) return out;
  try {
    const { openSession } = await import('./session.js');
    const session = await openSession(storage);
    for (const r of await session.runs.listRuns()) {
      const agent = r.source?.kind === 'hook' ? r.source.agent : undefined;
      if (!agent || out.has(agent)) continue;
      out.set(agent, { runId: r.runId, startedAt: r.startedAt, ...(r.label ? { label: r.label } : {}) });
    }
  } catch {
    /* a storage that cannot be opened: doctor says none */
  }
  return out;
}
