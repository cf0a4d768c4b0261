/**
 * `init`, `--uninstall`, `--dry-run` and `doctor` over the adapters' plans (docs/contracts.md §6.2), with the undo
 * journal that makes uninstall give back every byte.
 */
import * as path from 'node:path';
import {
  readJournal,
  readText,
  sha,
  tidyAfterUninstall,
  writeJournal,
  writeText,
  type JournalStep,
} from './journal.js';
import { STATE_CLI } from '../locate.js';
import { applyToText, applyUndo, isApplied, ourJsonEntry, removeFromText, type TextEdit } from './engine.js';
import { TOML_MARKER } from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit, Scope } from './types.js';

interface FileOutcome {
  readonly file: string;
  readonly action: 'created' | 'updated' | 'deleted' | 'restored' | 'unchanged';
  /** Dry run: what it would be. */
  readonly text?: string;
}

export interface AgentOutcome {
  readonly agent: AgentAdapter;
  readonly scope: Scope;
  readonly detected: boolean;
  readonly because: string;
  readonly files: readonly FileOutcome[];
  readonly notes: readonly string[];
  readonly error?: string;
}

export interface InitOptions {
  readonly agents: readonly AgentAdapter[];
  /** undefined: `project` when there is a project folder, else `global`. */
  readonly scope?: Scope;
  readonly dryRun?: boolean;
  readonly uninstall?: boolean;
}

function scopeFor(agent: AgentAdapter, ctx: AgentContext, wanted: Scope | undefined): Scope | undefined {
  const s = wanted ?? (ctx.project !== undefined && agent.scopes.includes('project') ? 'project' : 'global');
  if (s === 'project' && ctx.project === undefined) return undefined;
  return agent.scopes.includes(s) ? s : undefined;
}

function byFile(edits: readonly ConfigEdit[]): Map<string, ConfigEdit[]> {
  const m = new Map<string, ConfigEdit[]>();
  for (const e of edits) m.set(e.file, [...(m.get(e.file) ?? []), e]);
  return m;
}

/** Never throws for one agent's trouble: its outcome carries the sentence. */
export async function runInit(ctx: AgentContext, opts: InitOptions): Promise<AgentOutcome[]> {
  const journal = await readJournal(ctx.stateDir);
  const out: AgentOutcome[] = [];
  let journalChanged = false;
  for (const agent of opts.agents) {
    const d = agent.detect(ctx);
    const scope = scopeFor(agent, ctx, opts.scope);
    if (!scope) {
      out.push({
        agent,
        scope: opts.scope ?? 'project',
        detected: d.installed,
        because: d.because,
        files: [],
        notes: [],
        error:
          `${agent.displayName} has no ${opts.scope ?? 'project'} configuration` +
          `${ctx.project === undefined ? ' (no project folder)' : ''}`,
      });
      continue;
    }
    const plan = agent.plan(ctx, scope);
    const files: FileOutcome[] = [];
    let error: string | undefined;
    // Nothing is written for an agent one of whose files cannot be edited.
    const pending: {
      file: string;
      before: string | undefined;
      after: string | undefined;
      undo: readonly TextEdit[];
      action: FileOutcome['action'];
    }[] = [];
    try {
      for (const [file, edits] of byFile(plan.edits)) {
        const before = await readText(file);
        const entry = journal.files[file];
        if (opts.uninstall) {
          const mine = entry?.steps.filter((s) => s.agent === agent.id) ?? [];
          const last = entry?.steps[entry.steps.length - 1];
          if (
            entry &&
            !entry.stale &&
            before !== undefined &&
            sha(before) === entry.after &&
            mine.length > 0 &&
            last?.agent === agent.id
          ) {
            // Still exactly as init left it: give back the bytes of before this agent's steps.
            let t = before;
            let steps = [...entry.steps];
            while (steps.length > 0 && steps[steps.length - 1]!.agent === agent.id) {
              t = applyUndo(t, steps[steps.length - 1]!.undo);
              steps = steps.slice(0, -1);
            }
            const gone = steps.length === 0 && !entry.existed;
            pending.push({
              file,
              before,
              after: gone ? undefined : t,
              undo: [],
              action: gone ? 'deleted' : 'restored',
            });
          } else {
            const r = removeFromText(before, edits, entry ? !entry.existed : false);
            if (!r.ok) throw new Error(r.error);
            pending.push({
              file,
              before,
              after: r.text,
              undo: [],
              action: !r.changed ? 'unchanged' : r.text === undefined ? 'deleted' : 'updated',
            });
          }
        } else {
          const r = applyToText(before, edits);
          if (!r.ok) throw new Error(r.error);
          pending.push({
            file,
            before,
            after: r.text,
            undo: r.undo,
            action: !r.changed ? 'unchanged' : before === undefined ? 'created' : 'updated',
          });
        }
      }
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    if (!error) {
      for (const p of pending) {
        files.push({ file: p.file, action: p.action, ...(p.after !== undefined ? { text: p.after } : {}) });
        if (opts.dryRun || p.action === 'unchanged') continue;
        const made = await writeText(p.file, p.after);
        if (made.length > 0) journal.dirs = [...(journal.dirs ?? []), ...made];
        journalChanged = true;
        const entry = journal.files[p.file];
        if (opts.uninstall) {
          if (p.after === undefined) delete journal.files[p.file];
          else if (entry) {
            const steps =
              p.action === 'restored'
                ? entry.steps.slice(0, entry.steps.length - trailing(entry.steps, agent.id))
                : entry.steps.filter((s) => s.agent !== agent.id);
            if (steps.length === 0) delete journal.files[p.file];
            else
              journal.files[p.file] = {
                ...entry,
                after: sha(p.after),
                steps,
                ...(p.action === 'restored' ? {} : { stale: true }),
              };
          }
        } else if (entry && !entry.stale && p.before !== undefined && sha(p.before) === entry.after) {
          journal.files[p.file] = {
            ...entry,
            after: sha(p.after!),
            steps: [...entry.steps, { agent: agent.id, scope, undo: p.undo }],
          };
        } else if (entry) {
          journal.files[p.file] = {
            ...entry,
            after: sha(p.after!),
            steps: [...entry.steps, { agent: agent.id, scope, undo: p.undo }],
            stale: true,
          };
        } else {
          journal.files[p.file] = {
            existed: p.before !== undefined,
            after: sha(p.after!),
            steps: [{ agent: agent.id, scope, undo: p.undo }],
          };
        }
      }
    }
    out.push({
      agent,
      scope,
      detected: d.installed,
      because: d.because,
      files,
      notes: plan.notes ?? [],
      ...(error ? { error } : {}),
    });
  }
  if (opts.uninstall && !opts.dryRun) await tidyAfterUninstall(ctx.stateDir, journal);
  else if (journalChanged) await writeJournal(ctx.stateDir, journal);
  return out;
}

function trailing(steps: readonly JournalStep[], agent: string): number {
  let n = 0;
  while (n < steps.length && steps[steps.length - 1 - n]!.agent === agent) n++;
  return n;
}

export function displayPath(ctx: AgentContext, file: string): string {
  if (ctx.project && file.startsWith(ctx.project + path.sep)) return file.slice(ctx.project.length + 1);
  if (file.startsWith(ctx.home + path.sep)) return `~/${file.slice(ctx.home.length + 1)}`;
  return file;
}

export function describeOutcome(
  ctx: AgentContext,
  o: AgentOutcome,
  opts: Pick<InitOptions, 'dryRun' | 'uninstall'>,
): string {
  const name = `${o.agent.displayName} [${o.agent.id}, ${o.scope}]`;
  if (o.error) return `${name}: not changed: ${o.error}`;
  const would = opts.dryRun ? 'would be ' : '';
  const changed = o.files.filter((f) => f.action !== 'unchanged');
  const list = (fs: readonly FileOutcome[]): string =>
    fs.map((f) => `${displayPath(ctx, f.file)} ${would}${f.action}`).join(', ');
  const flag = o.scope === 'global' ? ' --global' : ' --project';
  if (opts.uninstall)
    return changed.length === 0
      ? `${name}: nothing of ours to remove`
      : `${name}: ${list(changed)}; routing ${opts.dryRun ? 'would be ' : ''}off`;
  const undo = `undo: bounded-evidence init --uninstall --agent ${o.agent.id}${flag}`;
  const detected = o.detected ? '' : ` (not detected: ${o.because})`;
  const v = verdictText(verdictOf(o.agent, ctx, o.scope, 'ok'), opts.dryRun ?? false);
  if (changed.length === 0) return `${name}: nothing changed; ${v}${detected}; ${undo}`;
  return `${name}: ${list(changed)}; ${v}${detected}; ${undo}`;
}

/** In the portable hook's own order (src/core/reach/locate.ts). */
function productReachable(ctx: AgentContext): boolean {
  const cli = ctx.env.BOUNDED_EVIDENCE_CLI;
  return (
    (cli !== undefined && cli !== '' && ctx.exists(cli)) ||
    ctx.which('bounded-evidence') !== undefined ||
    ctx.exists(path.join(ctx.stateDir, STATE_CLI))
  );
}

/** Without it the hook answers nothing: commands run as written. */
const INSTALL_TODO =
  'install the command line (npm install -g bounded-evidence) ' +
  'or open this folder in VS Code with the Bounded Evidence extension: ' +
  'the hook finds neither, so commands run as written';

export interface Verdict {
  readonly word: 'routed' | 'not routed' | 'MCP only' | 'MCP + rules' | 'off';
  readonly todo: readonly string[];
  readonly cautions: readonly string[];
}

/** Reads the client's own configuration through the adapter; the same on a plain and a VS Code terminal. */
function verdictOf(
  agent: AgentAdapter,
  ctx: AgentContext,
  scope: Scope,
  files: 'ok' | 'partial' | 'off',
  fix?: string,
): Verdict {
  if (files === 'off') return { word: 'off', todo: [], cautions: [] };
  const rerun = fix ?? `run bounded-evidence init --agent ${agent.id} --${scope}`;
  if (agent.mcpOnly) {
    const word = agent.rules ? 'MCP + rules' : 'MCP only';
    const todo = files === 'ok' ? (agent.blockers?.(ctx, scope) ?? []) : [rerun];
    return { word: todo.length === 0 ? word : 'not routed', todo, cautions: [] };
  }
  const todo = [
    ...(files === 'partial' ? [rerun] : []),
    ...(productReachable(ctx) ? [] : [INSTALL_TODO]),
    ...(agent.blockers?.(ctx, scope) ?? []),
  ];
  return { word: todo.length === 0 ? 'routed' : 'not routed', todo, cautions: agent.cautions?.(ctx, scope) ?? [] };
}

export function verdictText(v: Verdict, dryRun = false): string {
  const would = dryRun ? 'would be ' : '';
  if (v.word === 'not routed') return `${dryRun ? 'would not be routed' : 'not routed'}: ${v.todo[0]}`;
  if (v.word === 'MCP + rules') return `${would}MCP + rules (depends on the model following the rule)`;
  return v.word === 'routed' ? `${would}routed` : v.word === 'MCP only' ? `${would}MCP only` : 'off';
}

export function outcomeFollowUps(ctx: AgentContext, o: AgentOutcome): string[] {
  if (o.error) return [];
  const v = verdictOf(o.agent, ctx, o.scope, 'ok');
  return [...v.todo.slice(1).map((t) => `not routed until you also: ${t}`), ...v.cautions];
}

export interface DoctorRow {
  readonly agent: AgentAdapter;
  readonly scope: Scope;
  readonly detected: boolean;
  readonly routed: boolean;
  readonly files: readonly { file: string; state: 'ok' | 'missing' | 'no entry' | 'older entry'; hook?: string }[];
  readonly verdict: Verdict;
  readonly notes: readonly string[];
}

/** Reads only. */
export async function doctorRows(ctx: AgentContext, agents: readonly AgentAdapter[]): Promise<DoctorRow[]> {
  const rows: DoctorRow[] = [];
  for (const agent of agents) {
    const d = agent.detect(ctx);
    for (const scope of agent.scopes) {
      if (scope === 'project' && ctx.project === undefined) continue;
      const plan = agent.plan(ctx, scope);
      const files: DoctorRow['files'][number][] = [];
      for (const [file, edits] of byFile(plan.edits)) {
        let text: string | undefined;
        try {
          text = await readText(file);
        } catch {
          text = undefined;
        }
        const hook = edits.map((e) => hookOf(e, text)).find((h) => h !== undefined);
        const state =
          text === undefined
            ? 'missing'
            : edits.every((e) => isApplied(text, e))
              ? 'ok'
              : edits.some((e) => ourEntryThere(text, e))
                ? 'older entry'
                : 'no entry';
        files.push({ file, state, ...(hook ? { hook } : {}) });
      }
      const ok = files.length > 0 && files.every((f) => f.state === 'ok');
      const some = files.some((f) => f.state === 'ok' || f.state === 'older entry');
      rows.push({
        agent,
        scope,
        detected: d.installed,
        routed: ok,
        files,
        verdict: verdictOf(agent, ctx, scope, ok ? 'ok' : some ? 'partial' : 'off'),
        notes: plan.notes ?? [],
      });
    }
  }
  return rows;
}

/** Whatever its version. */
function ourEntryThere(text: string, e: ConfigEdit): boolean {
  if (e.kind === 'file') return e.ours(text);
  if (e.kind === 'json') return ourJsonEntry(text, e) !== undefined;
  return text.includes(TOML_MARKER);
}

function hookOf(e: ConfigEdit, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const v = e.kind === 'file' ? safeJson(text) : ourJsonEntry(text, e);
  const found = JSON.stringify(v ?? null).match(/"(?:command|bash)":"((?:[^"\\]|\\.)*\bhook\b(?:[^"\\]|\\.)*)"/);
  return found ? (JSON.parse(`"${found[1]!}"`) as string) : undefined;
}

function safeJson(t: string): unknown {
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}
