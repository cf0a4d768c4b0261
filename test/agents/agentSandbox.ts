/**
 * What every real-agent test here shares (docs/architecture.md §5.1): the 3 MB build log the scripted model
 * runs, a private sandbox (HOME, TMPDIR, workspace, evidence storage, the command line's shim as the extension
 * installs it), the runs the storage holds, and starting an agent's command line with a time limit that kills
 * its whole process group.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PORTABLE_MCP_SERVER, portableHookCommand } from '../../src/core/reach/agents/context.js';
import { shimScript } from '../../src/core/reach/shim.js';
import type { RunSummary } from '../../src/core/index.js';
import { repoRoot } from '../harness/tools.js';
import { toolResultText, type MessagesRequest, type ScriptedReply } from './anthropicServer.js';
import type { AgentContext, ConfigEdit } from '../../src/core/reach/agents/types.js';

/** 38,400 lines of demo/build-log.js: 3,002,891 bytes on stdout, the error on line 19,201, exit 1. */
export const LOG_LINES = 38400;
export const LOG_BYTES = 3_002_891;
export const ERROR_LINE = LOG_LINES / 2 + 1;
export const NEEDLE =
  "src/ledger/reconcile.ts(412,17): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Cents'.";

export function sh(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command the scripted model asks the agent's shell tool to run. */
export const buildCommand = `node ${sh(path.join(repoRoot, 'demo', 'build-log.js'))} ${LOG_LINES}`;

/** The built command line (dist/cli.js) and hook bundle (dist/hook.js). */
export const CLI = path.join(repoRoot, 'dist', 'cli.js');

export interface Sandbox {
  root: string;
  home: string;
  tmp: string;
  workspace: string;
  storage: string;
  shim: string;
}

export function makeSandbox(prefix: string): Sandbox {
  const root = mkdtempSync(path.join(os.tmpdir(), `be-${prefix}-`));
  const s = {
    root,
    home: path.join(root, 'home'),
    tmp: path.join(root, 'tmp'),
    workspace: path.join(root, 'workspace'),
    storage: path.join(root, 'storage'),
    shim: path.join(root, 'global-storage', 'bin', 'bounded-evidence'),
  };
  for (const d of [s.home, s.tmp, s.workspace, s.storage, path.dirname(s.shim)]) mkdirSync(d, { recursive: true });
  // The per-user map `init --storage` (or the editor) leaves, where a portable hook outside VS Code finds the storage.
  const state = path.join(s.home, '.local', 'state', 'bounded-evidence');
  mkdirSync(state, { recursive: true });
  writeFileSync(path.join(state, 'workspaces.json'), JSON.stringify({ [s.workspace]: s.storage }));
  writeFileSync(
    s.shim,
    shimScript({
      node: process.execPath,
      electron: false,
      cli: CLI,
      extensionsDir: path.dirname(repoRoot),
      folderPrefix: 'bounded-evidence.bounded-evidence-',
      home: path.dirname(path.dirname(s.shim)),
    }),
    { mode: 0o755 },
  );
  return s;
}

/** The runs recorded in the sandbox's storage, as `bounded-evidence list --json` prints them. */
export function listRuns(s: Sandbox): RunSummary[] {
  const r = spawnSync(process.execPath, [CLI, 'list', '--json', '--storage', s.storage], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as RunSummary[];
}

/** Waits (bounded) until `n` hook runs are recorded: a small output is kept in the background after the client has it. */
export async function runsRecorded(s: Sandbox, n: number): Promise<RunSummary[]> {
  const end = Date.now() + 30_000;
  for (;;) {
    const runs = listRuns(s).filter((r) => r.source?.kind === 'hook');
    if (runs.length >= n || Date.now() > end) return runs;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The exact `read_tool_output` pattern reply for the error line (docs/contracts.md §2.5), as the model must get it. */
export function errorLineReply(): string {
  const stdout = spawnSync('/bin/sh', ['-c', buildCommand], { maxBuffer: 1 << 30 }).stdout;
  const column = NEEDLE.indexOf('error TS');
  return JSON.stringify({
    total_matches: 1,
    content: `${ERROR_LINE}:${NEEDLE}`,
    matches: [{ line_number: ERROR_LINE, byte_offset: stdout.indexOf(NEEDLE) + column, column: column + 1 }],
  });
}

/**
 * The observation's stdout block for the build log: its line, then the error line first (docs/contracts.md §2.13),
 * whole, with its line number and the byte offset of the TypeScript rule's match (the line's start), then the previews.
 */
export function errorFirstStdout(handle: string): string {
  const stdout = spawnSync('/bin/sh', ['-c', buildCommand], { maxBuffer: 1 << 30 }).stdout;
  return `stdout: ${LOG_BYTES} bytes, ${LOG_LINES} lines, handle ${handle}. Error lines (1 of 1):\nline ${ERROR_LINE}, byte ${stdout.indexOf(NEEDLE)}: ${NEEDLE}\nPreview:\n`;
}

/** The same block with the newline before it, as it stands inside an observation. */
export function firstViewStdout(handle: string): string {
  return `\n${errorFirstStdout(handle)}`;
}

/** The stdout's handle in a text (`stdout: … handle out_…`: the model reads it from what it was given, as a model would). */
export function handleIn(text: string | undefined): string {
  return /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(text ?? '')?.[1] ?? 'no-handle-given';
}

/** Starts an agent's command line; resolves with its exit code and output, killing its process group after `timeoutMs`. */
export async function runAgent(
  file: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, opts.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The tool-use ids of the build and of the read in `buildThenRead`. */
export const BASH_ID = 'toolu_bash_1';
export const READ_ID = 'toolu_read_1';

/**
 * A plain terminal with the command line installed: its folder first on PATH (the sandbox's shim is named
 * `bounded-evidence`), no VS Code variables; the storage is found in the per-user map.
 */
export function pathWithCli(s: Sandbox): string {
  return `${path.dirname(s.shim)}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
}

/** What a VS Code integrated terminal has once the extension is active (docs/agents.md, "What routing does"). */
export function terminalEnvironment(s: Sandbox): Record<string, string> {
  return { BOUNDED_EVIDENCE_STORAGE: s.storage, BOUNDED_EVIDENCE_CLI: s.shim };
}

/** `bounded-evidence ARGS…` (init, doctor) as a person types it in a VS Code terminal of the sandbox's workspace. */
export function initInTerminal(s: Sandbox, ...args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: s.workspace,
    env: { PATH: process.env.PATH, HOME: s.home, ...terminalEnvironment(s) },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  return r.stdout;
}

/**
 * The scripted model of a routed turn: the shell tool runs the build, then the model reads the handle it was given
 * the way `read` says, then answers. `turns` are the main conversation's requests; `handle()` the handle it read.
 */
export function buildThenRead(
  isAgentTurn: (req: MessagesRequest) => boolean,
  shellTool: string,
  read: (handle: string) => { name: string; input: Record<string, unknown> },
): { script: (req: MessagesRequest) => ScriptedReply; turns: MessagesRequest[]; handle: () => string } {
  const turns: MessagesRequest[] = [];
  let handle = '';
  const script = (req: MessagesRequest): ScriptedReply => {
    if (!isAgentTurn(req)) return { text: 'ok' };
    turns.push(req);
    if (turns.length === 1)
      return {
        tool: { id: BASH_ID, name: shellTool, input: { command: buildCommand, description: 'Build the project' } },
      };
    if (turns.length === 2) {
      handle = handleIn(toolResultText(req, BASH_ID)?.text);
      return { tool: { id: READ_ID, ...read(handle) } };
    }
    return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
  };
  return { script, turns, handle: () => handle };
}

/**
 * The scripted model of a turn of shell commands: one `tool` call per command (ids `<prefix>_<i>`), then "done";
 * other requests (titles, side questions) get `other`. `turns` are the main conversation's requests.
 */
export function commandsInTurns(
  isAgentTurn: (req: MessagesRequest) => boolean,
  commands: readonly string[],
  prefix: string,
  other = 'ok',
  tool = 'bash',
): { script: (req: MessagesRequest) => ScriptedReply; turns: MessagesRequest[] } {
  const turns: MessagesRequest[] = [];
  const script = (req: MessagesRequest): ScriptedReply => {
    if (!isAgentTurn(req)) return { text: other };
    turns.push(req);
    const i = turns.length - 1;
    return i < commands.length
      ? { tool: { id: `${prefix}_${i}`, name: tool, input: { command: commands[i]!, description: 'Run' } } }
      : { text: 'done' };
  };
  return { script, turns };
}

/**
 * What `init` is given for an agent in this sandbox: the portable hook and MCP commands init writes (they find the
 * command line and the storage when they run). `BE_RECORD=<file>` also keeps every event the agent sends (`tee`), which is how the
 * recorded payloads of test/unit/core/reach/fixtures were taken.
 */
export function initContext(s: Sandbox, env: Readonly<Record<string, string | undefined>> = {}): AgentContext {
  return {
    home: s.home,
    project: s.workspace,
    stateDir: path.join(s.root, 'state'),
    env,
    exists: () => true,
    which: () => undefined,
    readText: () => undefined,
    hookCommand: (agent) =>
      `${process.env.BE_RECORD ? `tee -a ${sh(process.env.BE_RECORD)} | ` : ''}${portableHookCommand(agent)}`,
    mcpServer: () => PORTABLE_MCP_SERVER,
  };
}

/** Applies an adapter's JSON edits to a fresh settings object (members set, `-1` appends), as init does to an absent file. */
export function applyJsonEdits(doc: Record<string, unknown>, edits: readonly ConfigEdit[]): Record<string, unknown> {
  for (const e of edits) {
    if (e.kind !== 'json') continue;
    let at: Record<string, unknown> | unknown[] = doc;
    e.path.forEach((key, i) => {
      const last = i === e.path.length - 1;
      if (key === -1) {
        (at as unknown[]).push(e.value);
        return;
      }
      const obj = at as Record<string, unknown>;
      if (last) obj[key] = e.value;
      else at = (obj[key] ??= e.path[i + 1] === -1 ? [] : {}) as Record<string, unknown> | unknown[];
    });
  }
  return doc;
}

/**
 * Ten small routed commands, every other one failing (status 3, a line on stderr): what a client that kills the
 * command's process group as it ends would lose.
 */
export const SMALL_COMMANDS: readonly string[] = Array.from({ length: 10 }, (_, i) =>
  i % 2 === 0 ? `printf 'small ${i}\\n'` : `printf 'out ${i}\\n'; printf 'err ${i}\\n' >&2; (exit 3)`,
);

/** The spool folders left in the sandbox's storage (none once every routed command is kept). */
export function spoolsLeft(s: Sandbox): string[] {
  try {
    return readdirSync(path.join(s.storage, 'evidence', 'spool'));
  } catch {
    return [];
  }
}

/**
 * The routed runs of `agent` once `n` of them are kept and no spool is left, or what there is when that does not
 * happen within `withinMs` (the background recording of a small output takes a Node start).
 */
export async function keptRuns(
  s: Sandbox,
  agent: string,
  n: number,
  withinMs = 10_000,
): Promise<{ runs: RunSummary[]; spools: string[] }> {
  const until = Date.now() + withinMs;
  for (;;) {
    const runs = listRuns(s).filter((r) => r.source?.kind === 'hook' && r.source.agent === agent);
    const spools = spoolsLeft(s);
    if ((runs.length >= n && spools.length === 0) || Date.now() > until) return { runs, spools };
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The tool calls the model made, as the client replays them in a request: each call's input, in order. */
export function replayedInputs(req: MessagesRequest): string[] {
  const inputs: string[] = [];
  for (const m of req.messages) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_use') inputs.push(JSON.stringify(b.input));
  }
  return inputs;
}

/** The bytes of every call input replayed in `req` (the model's own earlier calls, as the client resends them). */
export function replayedBytes(req: MessagesRequest): number {
  return replayedInputs(req).reduce((n, i) => n + Buffer.byteLength(i, 'utf8'), 0);
}

/**
 * What of the machine a request body holds: the home, the storage, the command line's path (the workspace's own path
 * is the client's to show); with `product`, also a spool and the recorder.
 */
export function machineWords(body: string, s: Sandbox, product = true): string[] {
  const paths = [s.home, s.storage, path.dirname(path.dirname(s.shim))];
  const words = product ? [...paths, 'evidence/spool', '8>>'] : paths;
  return words.filter((w) => body.includes(w) || body.includes(JSON.stringify(w).slice(1, -1)));
}
