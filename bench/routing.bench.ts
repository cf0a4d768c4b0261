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
 *   clients that start the hook for every tool: no matcher);
 * - a bare Node start (`node -e 0`), the floor of any hook in Node on this machine.
 * `BENCH_ROUTING_BASELINE=<dir>`: another checkout, built, measured in the same steps (before/after);
 * `BENCH_ROUTING_STEPS` (default 21); `BENCH_ROUTING_AGENTS` (a comma list: only those agents).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as ShimModule from '../src/core/reach/shim.js';
import { defaultStorageFor, isPortableCommand, portableWords } from '../src/core/reach/locate.js';
import { median, report, scratchDir } from './util.js';

const ROOT = path.resolve(__dirname, '..');
/** perf, when the machine has it: the hook's CPU time besides its wall time. */
const PERF = ['/usr/bin/perf', '/usr/local/bin/perf'].find((f) => existsSync(f));
const BASELINE = process.env.BENCH_ROUTING_BASELINE ? path.resolve(process.env.BENCH_ROUTING_BASELINE) : undefined;
const STEPS = Number(process.env.BENCH_ROUTING_STEPS ?? 21);
const AGENTS = ['claude', 'copilot', 'codex', 'gemini', 'opencode'];
/** `BENCH_ROUTING_AGENTS=claude,vscode`: measure only these (a loaded machine makes the whole table slow). */
const ONLY = process.env.BENCH_ROUTING_AGENTS?.split(',');

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

/** One build's places (its shim, its installed package); `places[i]` is the same place in every build. */
interface Build {
  readonly name: string;
  readonly places: readonly Place[];
}

const fmt = (xs: number[]): string => median(xs).toFixed(1);

/** Every build on one place and agent, alternating step by step (bare, then each build) so load hits all alike. */
async function measure(builds: readonly Build[], p: number, agent: string, line: string, cwd: string, rollout: string) {
  const ev = events(agent, cwd, rollout);
  const input = JSON.stringify(ev.routed);
  const bare: number[] = [];
  const routed = builds.map(() => [] as number[]);
  const hook = builds.map(() => [] as number[]);
  for (let i = 0; i < STEPS; i++) {
    let t = process.hrtime.bigint();
    spawnSync('bash', ['-c', 'echo hi'], { cwd, stdio: 'ignore', env: builds[0]!.places[p]!.env });
    bare.push(ms(t));
    for (const [b, build] of builds.entries()) {
      const place = build.places[p]!;
      t = process.hrtime.bigint();
      const r = spawnSync('sh', ['-c', line], { cwd, input, encoding: 'utf8', env: place.env });
      const h = ms(t);
      const command = rewritten(r.stdout);
      if (command === undefined) throw new Error(`${place.name} ${agent}: no rewrite (${r.stderr.slice(0, 300)})`);
      const run = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', env: place.env });
      routed[b]!.push(ms(t));
      hook[b]!.push(h);
      if (run.stdout !== 'hi\n') throw new Error(`${place.name} ${agent}: routed echo printed ${JSON.stringify(run)}`);
      await waitForSpools(place.storage);
    }
  }
  const label = `${builds[0]!.places[p]!.name.padEnd(22)} ${agent.padEnd(8)}`;
  if (PERF) {
    // CPU time of the hook's whole process tree (perf's task-clock): what load does not inflate.
    const cpu = builds.map(() => [] as number[]);
    for (let i = 0; i < STEPS; i++)
      for (const [b, build] of builds.entries()) {
        const r = spawnSync(PERF, ['stat', '-x,', '-e', 'task-clock', 'sh', '-c', line], {
          cwd,
          input,
          encoding: 'utf8',
          env: build.places[p]!.env,
        });
        cpu[b]!.push(Number(/^([\d.]+),msec,task-clock/m.exec(r.stderr)?.[1] ?? NaN));
        await waitForSpools(build.places[p]!.storage);
      }
    report(`${label} hook CPU time`, builds.map((b, k) => `${b.name}: ${fmt(cpu[k]!)} ms`).join('  '));
  }
  report(
    `${label} hook / routed echo hi (bare ${fmt(bare)} ms)`,
    builds.map((b, k) => `${b.name}: ${fmt(hook[k]!)} / +${(median(routed[k]!) - median(bare)).toFixed(1)}`).join('  '),
    '≤ 25 / ≤ 30 ms',
  );
  if (!ev.other) return;
  const other = JSON.stringify(ev.other);
  const noop: number[] = [];
  const unrouted = builds.map(() => [] as number[]);
  for (let i = 0; i < STEPS; i++) {
    let t = process.hrtime.bigint();
    spawnSync('sh', ['-c', ':'], { cwd, input: other, env: builds[0]!.places[p]!.env });
    noop.push(ms(t));
    for (const [b, build] of builds.entries()) {
      t = process.hrtime.bigint();
      const r = spawnSync('sh', ['-c', line], { cwd, input: other, encoding: 'utf8', env: build.places[p]!.env });
      unrouted[b]!.push(ms(t));
      if (r.stdout !== '') throw new Error(`${build.places[p]!.name} ${agent}: answered another tool: ${r.stdout}`);
    }
  }
  report(
    `${label} another tool (sh -c : ${fmt(noop)} ms)`,
    builds.map((b, k) => `${b.name}: +${(median(unrouted[k]!) - median(noop)).toFixed(1)}`).join('  '),
    '≤ 5 ms',
  );
}

/**
 * What any hook in Node pays before its first line: `node -e 0` (wall, and CPU time under perf), against `sh -c :`, so
 * a hook figure can be read against the floor of this machine.
 */
function nodeFloor(env: NodeJS.ProcessEnv): void {
  const wall: number[] = [];
  const sh: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    let t = process.hrtime.bigint();
    spawnSync('sh', ['-c', ':'], { stdio: 'ignore', env });
    sh.push(ms(t));
    t = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore', env });
    wall.push(ms(t));
    if (PERF) {
      const r = spawnSync(PERF, ['stat', '-x,', '-e', 'task-clock', process.execPath, '-e', '0'], {
        encoding: 'utf8',
        env,
      });
      cpu.push(Number(/^([\d.]+),msec,task-clock/m.exec(r.stderr)?.[1] ?? NaN));
    }
  }
  report(
    `a bare Node start (node -e 0; sh -c : ${fmt(sh)} ms)`,
    `${fmt(wall)} ms${PERF ? `, CPU time ${fmt(cpu)} ms` : ''}`,
    'the floor of any hook in Node',
  );
}

/** The places one build's command line is found in, set up under `dir`. */
async function placesOf(distRoot: string, dir: string, base: NodeJS.ProcessEnv, project: string): Promise<Place[]> {
  const cli = path.join(distRoot, 'dist', 'cli.js');
  if (!existsSync(cli) || !existsSync(path.join(distRoot, 'dist-cli', 'package.json')))
    execFileSync(process.execPath, [path.join(distRoot, 'esbuild.js')], { cwd: distRoot, stdio: 'inherit' });
  mkdirSync(dir, { recursive: true });
  // The extension's shim as that build writes it (VS Code terminal), and its copy in a state folder (a plain
  // terminal beside the editor).
  const { shimScript } = (await import(path.join(distRoot, 'src', 'core', 'reach', 'shim.js'))) as typeof ShimModule;
  const extHome = path.join(dir, 'extension-storage');
  mkdirSync(extHome);
  const shimText = shimScript({
    node: process.execPath,
    electron: false,
    cli,
    extensionsDir: dir,
    folderPrefix: 'x-',
    home: extHome,
  });
  const shim = path.join(extHome, 'bounded-evidence');
  writeFileSync(shim, shimText, { mode: 0o755 });
  const state = path.join(dir, 'state');
  mkdirSync(path.join(state, 'bounded-evidence', 'bin'), { recursive: true });
  writeFileSync(path.join(state, 'bounded-evidence', 'bin', 'bounded-evidence'), shimText, { mode: 0o755 });
  // The npm package, installed as a teammate or CI installs it.
  const prefix = path.join(dir, 'prefix');
  const tarball = execFileSync('npm', ['pack', path.join(distRoot, 'dist-cli'), '--pack-destination', dir], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop()!;
  execFileSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', path.join(dir, tarball)],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const terminalStorage = path.join(dir, 'terminal-storage');
  mkdirSync(terminalStorage);
  const data = path.join(dir, 'data');
  const defaultStorage = defaultStorageFor({ ...base, XDG_DATA_HOME: data }, project)!;
  return [
    {
      name: 'VS Code terminal',
      env: { ...base, BOUNDED_EVIDENCE_CLI: shim, BOUNDED_EVIDENCE_STORAGE: terminalStorage },
      storage: terminalStorage,
    },
    {
      name: 'plain, npm package',
      env: { ...base, XDG_DATA_HOME: data, PATH: `${path.join(prefix, 'bin')}:${base.PATH}` },
      storage: defaultStorage,
    },
    {
      name: 'plain, extension only',
      env: { ...base, XDG_DATA_HOME: data, XDG_STATE_HOME: state },
      storage: defaultStorage,
    },
  ];
}

async function main(): Promise<void> {
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
    const builds: Build[] = [
      { name: 'this build', places: await placesOf(ROOT, path.join(dir, 'this'), base, project) },
    ];
    if (BASELINE)
      builds.push({ name: 'baseline', places: await placesOf(BASELINE, path.join(dir, 'baseline'), base, project) });

    // The lines init writes, project and global.
    const scopes = new Map<string, string[]>();
    for (const scope of ['--project', '--global']) {
      const found = new Set<string>();
      execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'init', '--agent', AGENTS.join(','), scope], {
        cwd: project,
        env: base,
        stdio: 'ignore',
      });
      hookLines(scope === '--project' ? project : home, found);
      for (const l of found) scopes.set(l, [...(scopes.get(l) ?? []), scope.slice(2)]);
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
    const load = (): string =>
      os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ');
    console.log(`hook ms / routed echo hi +ms over bare, medians of ${STEPS} alternating steps; load ${load()}`);
    nodeFloor(base);
    for (let p = 0; p < builds[0]!.places.length; p++)
      for (const agent of [...AGENTS, ...(p === 0 ? ['vscode'] : [])].filter((a) => !ONLY || ONLY.includes(a)))
        await measure(builds, p, agent, lineOf(agent), project, rollout);
    console.log(`load average at the end ${load()}${BASELINE ? `; baseline: the build in ${BASELINE}` : ''}`);
  } finally {
    cleanup();
  }
}

void main();
