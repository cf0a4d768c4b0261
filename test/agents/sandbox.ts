/**
 * What every real-agent test shares (docs/architecture.md §5.1): the 3 MB build log command and its error line,
 * a sandbox with the agent's private HOME, TMPDIR, workspace, evidence storage and the command line's shim as the
 * extension installs it, and the runs the storage recorded.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shimScript } from '../../src/core/reach/shim.js';
import type { RunSummary } from '../../src/core/index.js';
import { repoRoot } from '../harness/tools.js';
import { toolResultText, type MessagesRequest, type ScriptedReply } from './anthropicServer.js';

/** 38,400 lines of demo/build-log.js: 3,002,891 bytes on stdout, the error on line 19,201, exit 1. */
export const LOG_LINES = 38400;
export const LOG_BYTES = 3_002_891;
export const NEEDLE = "src/ledger/reconcile.ts(412,17): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Cents'.";

/** The tool-use ids of the build and of the read in `buildThenRead`. */
export const BASH_ID = 'toolu_bash_1';
export const READ_ID = 'toolu_read_1';

export function sh(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command the scripted model asks the agent's shell tool to run. */
export const buildCommand = `node ${sh(path.join(repoRoot, 'demo', 'build-log.js'))} ${LOG_LINES}`;

/** The built command line (dist/cli.js: hook, capture, list, init and the MCP server). */
export const CLI = path.join(repoRoot, 'dist', 'cli.js');

export interface Sandbox { root: string; home: string; tmp: string; workspace: string; storage: string; shim: string }

/** A temporary folder with the agent's private HOME, TMPDIR, workspace and storage, and the shim (this Node, this checkout's dist/cli.js). */
export function makeSandbox(prefix: string): Sandbox {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  const s = { root, home: path.join(root, 'home'), tmp: path.join(root, 'tmp'), workspace: path.join(root, 'workspace'), storage: path.join(root, 'storage'), shim: path.join(root, 'global-storage', 'bin', 'bounded-evidence') };
  for (const d of [s.home, s.tmp, s.workspace, s.storage, path.dirname(s.shim)]) mkdirSync(d, { recursive: true });
  writeFileSync(s.shim, shimScript({ node: process.execPath, electron: false, cli: CLI, extensionsDir: path.dirname(repoRoot), folderPrefix: 'bounded-evidence.bounded-evidence-', home: path.dirname(path.dirname(s.shim)) }), { mode: 0o755 });
  return s;
}

/** What a VS Code integrated terminal has once the extension is active (README, "Use it with the agents you already have"). */
export function terminalEnvironment(s: Sandbox): Record<string, string> {
  return { BOUNDED_EVIDENCE_STORAGE: s.storage, BOUNDED_EVIDENCE_CLI: s.shim };
}

/** The runs recorded in the sandbox's storage, as `bounded-evidence list --json` prints them. */
export function listRuns(s: Sandbox): RunSummary[] {
  const r = spawnSync(process.execPath, [CLI, 'list', '--json', '--storage', s.storage], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as RunSummary[];
}

/** Starts an agent's command line in its own process group and collects its output; killed after `timeoutMs`. */
export async function runAgent(bin: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(bin, [...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
  const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** `bounded-evidence init ARGS…` as a person types it in a VS Code terminal of the sandbox's workspace. */
export function initInTerminal(s: Sandbox, ...args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: s.workspace, env: { PATH: process.env.PATH, HOME: s.home, ...terminalEnvironment(s) }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  return r.stdout;
}

/**
 * The scripted model of a routed turn: the shell tool runs the build, then the model reads the handle it was given
 * the way `read` says, then answers. `turns` are the main conversation's requests; `handle()` the handle it read.
 */
export function buildThenRead(isAgentTurn: (req: MessagesRequest) => boolean, shellTool: string, read: (handle: string) => { name: string; input: Record<string, unknown> }): { script: (req: MessagesRequest) => ScriptedReply; turns: MessagesRequest[]; handle: () => string } {
  const turns: MessagesRequest[] = [];
  let handle = '';
  const script = (req: MessagesRequest): ScriptedReply => {
    if (!isAgentTurn(req)) return { text: 'ok' };
    turns.push(req);
    if (turns.length === 1) return { tool: { id: BASH_ID, name: shellTool, input: { command: buildCommand, description: 'Build the project' } } };
    if (turns.length === 2) {
      // The model reads the handle from what it was given, as a model would.
      handle = /out_[A-Za-z0-9._-]+_stdout/.exec(toolResultText(req, BASH_ID)?.text ?? '')?.[0] ?? 'no-handle-given';
      return { tool: { id: READ_ID, ...read(handle) } };
    }
    return { text: 'The build fails on src/ledger/reconcile.ts line 412.' };
  };
  return { script, turns, handle: () => handle };
}
