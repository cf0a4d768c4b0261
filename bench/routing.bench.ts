/**
 * Routing overhead (`npm run bench -- routing`, docs/contracts.md §6.1): what a person pays for each agent
 * command once `init` has routed it, against the bare command in the same run.
 *
 * The command lines measured are the ones `bounded-evidence init` writes: init is run (project and global, every
 * routed agent) into a scratch home and project, and every hook command found in the files it wrote is measured
 * exactly as written (`sh -c <line>`, the event on stdin, as the clients start it), in the places the portable finder
 * looks: a VS Code terminal (`BOUNDED_EVIDENCE_CLI`, the extension's shim), a plain terminal with the npm package
 * installed (`npm install -g` of the packed dist-cli into a scratch prefix on PATH), and a plain terminal on a machine
 * with only the extension (its copy of the shim in the state folder).
 *
 * Per line and place, medians of alternating steps (so a change of load hits both alike):
 * - hook: the hook's answer to the agent's terminal event;
 * - routed `echo hi`: hook + the rewritten command under `bash -c`, against `bash -c 'echo hi'` (a small output's
 *   background `keep --quiet` is let finish between steps and not counted: the command does not wait for it);
 * - unrouted tool: the hook on an event of a tool it does not route, against `sh -c :` given the same stdin (only for
 *   clients that start the hook for every tool: no matcher).
 * `BENCH_ROUTING_DIST=<dir>` measures another build's dist/ and dist-cli/ (a before/after comparison);
 * `BENCH_ROUTING_STEPS` (default 21).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as ShimModule from '../src/core/reach/shim.js';
import { defaultStorageFor, isPortableCommand, portableWords } from '../src/core/reach/locate.js';
import { median, report, scratchDir } from './util.js';

const ROOT = path.resolve(__dirname, '..');
const DIST_ROOT = path.resolve(process.env.BENCH_ROUTING_DIST ?? ROOT);
const CLI = path.join(DIST_ROOT, 'dist', 'cli.js');
const STEPS = Number(process.env.BENCH_ROUTING_STEPS ?? 21);
const AGENTS = ['claude', 'copilot', 'codex', 'gemini', 'opencode'];

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Every hook command line in the files under `dir` (JSON string literals holding the portable finder). */
function hookLines(dir: string, out: Set<string>): void {
  for (const name of readdirSync(dir)) {
    const f = path.join(dir, name);
    if (statSync(f).isDirectory()) hookLines(f, out);
    else
      for (const lit of readFileSync(f, 'utf8').match(/"(?:[^"\\]|\\.)*"/g) ?? []) {
        let s: unknown;
        try {
          s = JSON.parse(lit);
        } catch {
          continue;
        }
        if (isPortableCommand(s) && portableWords(s as string)?.[0] === 'hook') out.add(s as string);
      }
  }
}

/** One agent's terminal event, and the event of a tool it does not route (undefined: its matcher never sends one). */
function events(agent: string, cwd: string, rollout: string): { routed: object; other?: object } {
  const claudeShape = (tool: string, input: object): object => ({
    session_id: 'bench',
    transcript_path: rollout,
    cwd,
    permission_mode: 'bypassPermissions',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
  });
  switch (agent) {
    case 'copilot':
      return {
        routed: { sessionId: 'bench', timestamp: 1, cwd, toolName: 'bash', toolArgs: { command: 'echo hi' } },
        other: { sessionId: 'bench', timestamp: 1, cwd, toolName: 'view', toolArgs: { path: `${cwd}/a.txt` } },
      };
    case 'vscode':
      return {
        routed: claudeShape('run_in_terminal', { command: 'echo hi', explanation: 'x', isBackground: false }),
        other: claudeShape('read_file', { filePath: `${cwd}/a.txt` }),
      };
    case 'codex':
      return { routed: { ...claudeShape('Bash', { command: 'echo hi' }), turn_id: 't', model: 'gpt-5' } };
    case 'gemini':
      return {
        routed: { ...claudeShape('run_shell_command', { command: 'echo hi' }), hook_event_name: 'BeforeTool' },
      };
    default:
      return { routed: claudeShape('Bash', { command: 'echo hi' }) };
  }
}

/** The rewritten command of any agent's answer, or undefined (no answer: left as written). */
function rewritten(answer: string): string | undefined {
  if (answer.trim() === '') return undefined;
  const a = JSON.parse(answer) as {
    hookSpecificOutput?: { updatedInput?: { command?: string }; tool_input?: { command?: string } };
    modifiedArgs?: { command?: string };
  };
  return (
    a.hookSpecificOutput?.updatedInput?.command ?? a.hookSpecificOutput?.tool_input?.command ?? a.modifiedArgs?.command
  );
}

async function waitForSpools(storage: string): Promise<void> {
  const dir = path.join(storage, 'evidence', 'spool');
  for (let i = 0; i < 600 && existsSync(dir) && readdirSync(dir).length > 0; i++)
    await new Promise((r) => setTimeout(r, 20));
}

interface Place {
  readonly name: string;
  readonly env: NodeJS.ProcessEnv;
  readonly storage: string;
}

async function measure(place: Place, agent: string, line: string, cwd: string, rollout: string): Promise<void> {
  const ev = events(agent, cwd, rollout);
  const input = JSON.stringify(ev.routed);
  const bare: number[] = [];
  const routed: number[] = [];
  const hook: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    let t = process.hrtime.bigint();
    spawnSync('bash', ['-c', 'echo hi'], { cwd, stdio: 'ignore', env: place.env });
    bare.push(ms(t));
    t = process.hrtime.bigint();
    const r = spawnSync('sh', ['-c', line], { cwd, input, encoding: 'utf8', env: place.env });
    const h = ms(t);
    const command = rewritten(r.stdout);
    if (command === undefined) throw new Error(`${place.name} ${agent}: no rewrite (${r.stderr.slice(0, 300)})`);
    const run = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', env: place.env });
    routed.push(ms(t));
    hook.push(h);
    if (run.stdout !== 'hi\n') throw new Error(`${place.name} ${agent}: routed echo printed ${JSON.stringify(run)}`);
    await waitForSpools(place.storage);
  }
  const label = `${place.name.padEnd(22)} ${agent.padEnd(8)}`;
  report(
    `${label} hook / routed echo hi`,
    `hook ${median(hook).toFixed(1)} ms; routed ${median(routed).toFixed(1)} vs bare ${median(bare).toFixed(1)}: ` +
      `+${(median(routed) - median(bare)).toFixed(1)} ms`,
    '≤ 25 / ≤ 30 ms',
  );
  if (!ev.other) return;
  const other = JSON.stringify(ev.other);
  const noop: number[] = [];
  const unrouted: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    let t = process.hrtime.bigint();
    spawnSync('sh', ['-c', ':'], { cwd, input: other, env: place.env });
    noop.push(ms(t));
    t = process.hrtime.bigint();
    const r = spawnSync('sh', ['-c', line], { cwd, input: other, encoding: 'utf8', env: place.env });
    unrouted.push(ms(t));
    if (r.stdout !== '') throw new Error(`${place.name} ${agent}: answered another tool: ${r.stdout}`);
  }
  report(
    `${label} hook on another tool`,
    `${median(unrouted).toFixed(1)} ms vs sh -c : ${median(noop).toFixed(1)} ms: ` +
      `+${(median(unrouted) - median(noop)).toFixed(1)} ms`,
    '≤ 5 ms',
  );
}

async function main(): Promise<void> {
  if (!existsSync(CLI) || !existsSync(path.join(DIST_ROOT, 'dist-cli', 'package.json')))
    execFileSync(process.execPath, [path.join(DIST_ROOT, 'esbuild.js')], { cwd: DIST_ROOT, stdio: 'inherit' });
  const { dir, cleanup } = scratchDir('routing');
  try {
    const home = path.join(dir, 'home');
    const project = path.join(dir, 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    const base: NodeJS.ProcessEnv = {
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      LANG: 'C.UTF-8',
      SHELL: '/bin/bash',
      XDG_STATE_HOME: path.join(home, '.local', 'state'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
      XDG_CONFIG_HOME: path.join(home, '.config'),
    };

    // The lines init writes, project and global.
    const scopes = new Map<string, string[]>();
    for (const scope of ['--project', '--global']) {
      const before = new Set<string>();
      execFileSync(process.execPath, [CLI, 'init', '--agent', AGENTS.join(','), scope], {
        cwd: project,
        env: base,
        stdio: 'ignore',
      });
      hookLines(scope === '--project' ? project : home, before);
      for (const l of before) scopes.set(l, [...(scopes.get(l) ?? []), scope.slice(2)]);
    }
    const lines = [...scopes.keys()];
    const lineOf = (agent: string): string => {
      const want = agent === 'copilot' || agent === 'vscode' ? [] : ['--agent', agent];
      const l = lines.find((x) => JSON.stringify(portableWords(x)!.slice(1)) === JSON.stringify(want));
      if (!l) throw new Error(`init wrote no hook line for ${agent}`);
      return l;
    };
    for (const a of [...AGENTS, 'vscode']) {
      const l = lineOf(a);
      console.log(`${a}: init writes (${scopes.get(l)!.join(', ')}) \`${l}\``);
    }

    // A Codex rollout whose policy routes (full access, never asks).
    const rollout = path.join(dir, 'rollout.jsonl');
    writeFileSync(
      rollout,
      `${JSON.stringify({ type: 'turn_context', payload: { cwd: project, approval_policy: 'never', sandbox_policy: { type: 'danger-full-access' } } })}\n`,
    );

    // The extension's shim (VS Code terminal), and its copy in the state folder (a plain terminal beside the editor).
    const extHome = path.join(dir, 'extension-storage');
    mkdirSync(extHome);
    // The shim as that build's extension writes it.
    const { shimScript } = (await import(path.join(DIST_ROOT, 'src', 'core', 'reach', 'shim.js'))) as typeof ShimModule;
    const shimText = shimScript({
      node: process.execPath,
      electron: false,
      cli: CLI,
      extensionsDir: dir,
      folderPrefix: 'x-',
      home: extHome,
    });
    const shim = path.join(extHome, 'bounded-evidence');
    writeFileSync(shim, shimText, { mode: 0o755 });
    const stateShim = path.join(base.XDG_STATE_HOME!, 'bounded-evidence', 'bin', 'bounded-evidence');
    mkdirSync(path.dirname(stateShim), { recursive: true });
    writeFileSync(stateShim, shimText, { mode: 0o755 });

    // The npm package, installed as a teammate or CI installs it.
    const prefix = path.join(dir, 'prefix');
    const tarball = execFileSync('npm', ['pack', path.join(DIST_ROOT, 'dist-cli'), '--pack-destination', dir], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    execFileSync(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', path.join(dir, tarball)],
      { stdio: 'ignore' },
    );

    const terminalStorage = path.join(dir, 'terminal-storage');
    mkdirSync(terminalStorage);
    const defaultStorage = defaultStorageFor(base, project)!;
    const places: Place[] = [
      {
        name: 'VS Code terminal',
        env: { ...base, BOUNDED_EVIDENCE_CLI: shim, BOUNDED_EVIDENCE_STORAGE: terminalStorage },
        storage: terminalStorage,
      },
      {
        name: 'plain, npm package',
        env: { ...base, PATH: `${path.join(prefix, 'bin')}:${base.PATH}` },
        storage: defaultStorage,
      },
      { name: 'plain, extension only', env: base, storage: defaultStorage },
    ];
    for (const place of places)
      for (const agent of [...AGENTS, ...(place.name === 'VS Code terminal' ? ['vscode'] : [])])
        await measure(place, agent, lineOf(agent), project, rollout);
    console.log(
      `medians of ${STEPS} alternating steps; ${DIST_ROOT === ROOT ? 'this build' : `the build in ${DIST_ROOT}`}; ` +
        `load average ${os
          .loadavg()
          .map((x) => x.toFixed(1))
          .join(' ')}`,
    );
  } finally {
    cleanup();
  }
}

void main();
