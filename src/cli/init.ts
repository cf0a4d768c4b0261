/**
 * `init` and `doctor` (docs/contracts.md §6.2): this file builds the adapters' context from the process and prints;
 * plans, merging and the undo journal are the core's, shared with the editor.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { machineContext, PORTABLE_MCP_SERVER, portableHookCommand } from '../core/reach/agents/context.js';
import { AGENTS, agentNamed } from '../core/reach/agents/index.js';
import {
  describeOutcome,
  displayPath,
  doctorRows,
  outcomeFollowUps,
  runInit,
  verdictText,
} from '../core/reach/agents/init.js';
import type { AgentAdapter, AgentContext, Scope } from '../core/reach/agents/types.js';
import { findStorage, isPortableCommand, recordWorkspace, type StorageSource } from '../core/reach/locate.js';
import { HELP, UsageError } from './args.js';
import type { CliIo } from './io.js';

/**
 * Portable commands (src/core/reach/locate.ts): nothing of this machine in any file init writes; the storage is found
 * as the hook will find it.
 */
function processContext(
  io: CliIo,
  storageFlag: string | undefined,
  recordPostToolUse = false,
): AgentContext & { storage: string | undefined; storageSource: StorageSource | undefined } {
  const home = io.env.HOME || os.homedir();
  const found = findStorage({ ...io.env, HOME: home }, io.cwd, storageFlag);
  return {
    storage: found?.dir,
    storageSource: found?.source,
    ...machineContext({
      home,
      project: io.cwd,
      env: io.env,
      recordOtherToolResults: recordPostToolUse,
      ...(found ? { storage: path.resolve(found.dir) } : {}),
      hookCommand: (agent, _scope, extra = []) =>
        portableHookCommand(agent, [...(recordPostToolUse ? ['--record-post-tool-use'] : []), ...extra]),
      mcpServer: () => PORTABLE_MCP_SERVER,
    }),
  };
}

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
          `unknown agent "${n.slice(0, 40)}" (known: ` +
            AGENTS.map((x) => [x.id, ...(x.aliases ?? [])].join('/')).join(', ') +
            ')',
        );
      if (!chosen.includes(a)) chosen.push(a);
    }
    return chosen;
  }
  // Removing only what is ours is safe whether or not an agent is installed.
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

/** Lists every adapter of the table, so an adapter added there is listed. */
export function initHelp(agents: readonly AgentAdapter[] = AGENTS): string {
  const width = Math.max(...agents.map((a) => a.id.length));
  const rows = agents.map((a) => {
    const names = a.aliases?.length ? ` (also ${a.aliases.join(', ')})` : '';
    const only = a.mcpOnly ? (a.rules ? ': MCP server and rules' : ': MCP server only') : '';
    return `  ${a.id.padEnd(width)}  ${a.displayName}${names}${only}`;
  });
  return `${HELP.init}\n\nAgents (--agent NAME):\n${rows.join('\n')}`;
}

/** Exit 1 when an agent could not be changed. */
export async function init(argv: readonly string[], io: CliIo): Promise<number> {
  const v = flags(argv);
  if (v.global && v.project) throw new UsageError('--global and --project exclude each other');
  if (v.all && v.agent?.length) throw new UsageError('--all and --agent exclude each other');
  const ctx = processContext(io, v.storage, v['record-post-tool-use'] ?? false);
  const agents = chooseAgents(ctx, v.agent, v.all, v.uninstall ?? false);
  if (agents.length === 0) {
    await io.out(
      `no agent detected (known: ${AGENTS.map((a) => a.id).join(', ')}); name one with --agent NAME or pass --all\n`,
    );
    return 0;
  }
  const scope: Scope | undefined = v.global ? 'global' : v.project ? 'project' : undefined;
  const opts = { agents, ...(scope ? { scope } : {}), dryRun: v['dry-run'] ?? false, uninstall: v.uninstall ?? false };
  // Codex's sandbox is given the storage as a writable root, which must exist.
  if (!opts.uninstall && !opts.dryRun && ctx.storage && ctx.storageSource === 'default')
    await mkdir(ctx.storage, { recursive: true, mode: 0o700 });
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
    if (!opts.uninstall && !o.error) {
      for (const f of outcomeFollowUps(ctx, o)) lines.push(`  ${f}`);
      for (const n of o.notes) lines.push(`  note: ${n}`);
    }
  }
  if (!opts.uninstall && !opts.dryRun) await mapProjectStorage(ctx);
  if (!opts.uninstall) lines.push(storageLine(ctx));
  await io.out(`${lines.join('\n')}\n`);
  return outcomes.some((o) => o.error) ? 1 : 0;
}

/** The project files name no storage: the portable hooks look it up in the per-user map. */
async function mapProjectStorage(ctx: ReturnType<typeof processContext>): Promise<void> {
  if (!ctx.project || !ctx.storage || (ctx.storageSource !== 'flag' && ctx.storageSource !== 'environment')) return;
  await recordWorkspace(ctx.stateDir, ctx.project, path.resolve(ctx.storage));
}

function storageLine(ctx: ReturnType<typeof processContext>): string {
  if (!ctx.storage) return 'no evidence storage known: no home folder to keep one in; pass --storage DIR';
  const why: Record<StorageSource, string> = {
    flag: 'named with --storage, recorded for this folder',
    environment: "this VS Code window's, recorded for this folder",
    editor: 'the one VS Code keeps for this folder',
    default: "this folder's own, made on first use",
  };
  return `evidence storage: ${displayPath(ctx, path.resolve(ctx.storage))} (${why[ctx.storageSource!]})`;
}

export async function doctor(argv: readonly string[], io: CliIo): Promise<number> {
  const v = flags(argv);
  const ctx = processContext(io, v.storage);
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
      const files = r.files.map((f) => `${displayPath(ctx, f.file)} ${f.state}`).join(', ');
      lines.push(`  ${r.scope}: ${verdictText(r.verdict)} (${files})`);
      for (const t of r.verdict.todo.slice(1)) lines.push(`    not routed until you also: ${t}`);
      if (r.verdict.word === 'off') continue;
      for (const c of r.verdict.cautions) lines.push(`    ${c}`);
      const hook = r.files.find((f) => f.hook)?.hook;
      if (hook && !isPortableCommand(hook)) lines.push(`    hook (an older install, names this machine): ${hook}`);
    }
    const names = agent.recordsAs ?? [agent.id];
    const run = names
      .map((n) => last.get(n))
      .filter((x) => x !== undefined)
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
    lines.push(
      '  last routed command: ' +
        (run
          ? `${run.startedAt} ${run.label ?? run.runId} (run ${run.runId})`
          : ctx.storage
            ? 'none in this storage'
            : 'unknown (no storage: pass --storage DIR)'),
    );
  }
  lines.push(storageLine(ctx));
  await io.out(`${lines.join('\n')}\n`);
  return 0;
}

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
