/**
 * The command line as a teammate or CI gets it (docs/architecture.md §4): the build's npm package (dist-cli/) packed
 * with `npm pack`, installed with `npm install -g` into an empty prefix (offline: it has no dependencies), and run
 * from there in a plain terminal (no VS Code variables, a fresh home): init writes project files that name nothing of
 * this machine, the hook in them routes with the installed command line on PATH and answers nothing without it,
 * capture/read/list share the folder's default storage, doctor reads it, and `mcp` answers initialize and tools/list.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../harness/tools.js';
import { packageShimScript } from '../../src/core/reach/shim.js';

const NODE_DIR = path.dirname(process.execPath);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile() && !f.includes(`${path.sep}.git${path.sep}`));
}

describe('The installed command line: npm pack, npm install -g into an empty prefix, run from there', function () {
  this.timeout(180_000);
  let root: string;
  let prefix: string;
  let home: string;
  let project: string;
  let bin: string;
  const env = (withCli: boolean): NodeJS.ProcessEnv => ({
    PATH: `${withCli ? `${path.join(prefix, 'bin')}:` : ''}${NODE_DIR}:/usr/bin:/bin`,
    HOME: home,
    LANG: 'C.UTF-8',
  });
  const be = (args: string[], input?: string): SpawnSyncReturns<string> =>
    spawnSync(bin, args, { cwd: project, env: env(true), encoding: 'utf8', ...(input !== undefined ? { input } : {}) });

  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'be-installed-'));
    prefix = path.join(root, 'prefix');
    home = path.join(root, 'home');
    project = path.join(root, 'project');
    for (const d of [prefix, home, path.join(project, '.git')]) mkdirSync(d, { recursive: true });
    const npmEnv = {
      ...process.env,
      npm_config_cache: path.join(root, 'npm-cache'),
      npm_config_update_notifier: 'false',
    };
    const packed = spawnSync('npm', ['pack', path.join(repoRoot, 'dist-cli'), '--pack-destination', root, '--silent'], {
      env: npmEnv,
      encoding: 'utf8',
    });
    assert.equal(packed.status, 0, packed.stderr);
    const tarball = path.join(root, packed.stdout.trim().split('\n').pop()!);
    const installed = spawnSync(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
      { env: npmEnv, encoding: 'utf8' },
    );
    assert.equal(installed.status, 0, installed.stderr);
    bin = path.join(prefix, 'bin', 'bounded-evidence');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('holds only the built command line: its bundles, README, LICENSE, package.json with bin and engines', () => {
    const pkg = path.join(prefix, 'lib', 'node_modules', 'bounded-evidence');
    assert.deepEqual(readdirSync(pkg).sort(), [
      'LICENSE',
      'README.md',
      'aws-s3.js',
      'bounded-evidence',
      'cli.js',
      'hook.js',
      'package.json',
      'patternWorker.js',
    ]);
    const manifest = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as Record<string, unknown>;
    // The bin is the shim naming no path: a hook starts hook.js, never the whole command line.
    assert.deepEqual(manifest.bin, { 'bounded-evidence': 'bounded-evidence' });
    assert.equal(readFileSync(path.join(pkg, 'bounded-evidence'), 'utf8'), packageShimScript());
    assert.deepEqual(manifest.engines, { node: '>=22.14' });
    assert.equal(manifest.dependencies, undefined);
  });

  it('init writes portable project files; their hook routes with the command line on PATH and is silent without it', () => {
    const init = be(['init', '--agent', 'claude,copilot,gemini,codex,opencode', '--project']);
    assert.equal(init.status, 0, init.stderr + init.stdout);
    // Every byte init wrote into the project: no path of this machine, no home, no storage, no Node.
    const written = filesUnder(project);
    assert.ok(written.length >= 6, written.join());
    for (const f of written) {
      const text = readFileSync(f, 'utf8');
      for (const word of [root, home, prefix, NODE_DIR, '/usr/', 'file://', '.local/share'])
        assert.ok(!text.includes(word), `${path.relative(project, f)} names ${word}`);
    }
    const settings = JSON.parse(readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')) as {
      hooks: { PreToolUse: { hooks: { command: string }[] }[] };
    };
    const hook = settings.hooks.PreToolUse[0]!.hooks[0]!.command;
    const event = JSON.stringify({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      session_id: 'teammate-1',
      cwd: project,
      tool_input: { command: "printf 'hello from the clone\\n'; (exit 4)" },
    });
    // Not installed on this machine: exit 0, nothing printed, so the client runs the command as written.
    const absent = spawnSync('sh', ['-c', hook], { cwd: project, env: env(false), input: event, encoding: 'utf8' });
    assert.deepEqual([absent.status, absent.stdout, absent.stderr], [0, '', '']);
    // Installed: the answer is a routed command; run as Claude Code runs it, it prints the same and keeps the run.
    const present = spawnSync('sh', ['-c', hook], { cwd: project, env: env(true), input: event, encoding: 'utf8' });
    assert.equal(present.status, 0, present.stderr);
    const routed = (JSON.parse(present.stdout) as { hookSpecificOutput: { updatedInput: { command: string } } })
      .hookSpecificOutput.updatedInput.command;
    // Its second half is the installed bin (sh gives a small output back; no Node before the command's end).
    assert.ok(routed.includes(`; '${bin}' keep '`), routed);
    const ran = spawnSync('bash', ['-c', routed], { cwd: project, env: env(true), encoding: 'utf8' });
    assert.deepEqual([ran.status, ran.stdout, ran.stderr], [4, 'hello from the clone\n', '']);
    // Kept in the background: wait for the run.
    let runs: { source?: { kind: string; agent?: string; sessionId?: string } }[] = [];
    for (let i = 0; i < 200 && runs.length === 0; i++) {
      if (i > 0) spawnSync('sleep', ['0.05']);
      const list = be(['list', '--json']);
      assert.equal(list.status, 0, list.stderr);
      runs = JSON.parse(list.stdout) as typeof runs;
    }
    assert.deepEqual(
      runs.map((r) => r.source),
      [{ kind: 'hook', agent: 'claude', sessionId: 'teammate-1' }],
    );
    // The folder's default storage, where the editor's layout lives too (evidence/logs, evidence/blobs).
    const storages = readdirSync(path.join(home, '.local', 'share', 'bounded-evidence', 'workspaces'));
    assert.equal(storages.length, 1);
    assert.match(storages[0]!, /^project-[0-9a-f]{16}$/);
    assert.ok(
      existsSync(
        path.join(home, '.local', 'share', 'bounded-evidence', 'workspaces', storages[0]!, 'evidence', 'logs'),
      ),
    );
  });

  it('capture keeps every byte and exits with the command; read gives back exact lines; doctor reads the storage', () => {
    const cap = be(['capture', '--', 'sh', '-c', 'seq 1 20000; exit 3']);
    assert.equal(cap.status, 3, cap.stderr);
    const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(cap.stdout)?.[1];
    assert.ok(handle, cap.stdout);
    const read = be(['read', handle, '--offset', '19998', '--limit', '2']);
    assert.equal(read.status, 0, read.stderr);
    const reply = JSON.parse(read.stdout) as { content: string; total_lines: number; total_size_bytes: number };
    assert.deepEqual([reply.content, reply.total_lines, reply.total_size_bytes], ['19999\n20000', 20000, 108894]);
    const doctor = be(['doctor']);
    assert.equal(doctor.status, 0, doctor.stderr);
    assert.match(doctor.stdout, /^Claude Code \[claude\]:/m);
    assert.match(doctor.stdout, /last routed command: \S+ claude terminal: printf/);
  });

  it('mcp answers initialize and tools/list over stdio on the folder’s storage', async () => {
    const child = spawn(bin, ['mcp'], { cwd: project, env: env(true), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    const replies = new Promise<string[]>((resolve, reject) => {
      child.stdout.on('data', (d: string) => {
        out += d;
        const lines = out.split('\n').filter(Boolean);
        if (lines.length >= 2) resolve(lines);
      });
      child.on('close', (code) => reject(new Error(`mcp ended (${code}) after ${out}`)));
    });
    const send = (m: unknown): boolean => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const [init, tools] = (await replies).map((l) => JSON.parse(l) as { id: number; result: Record<string, unknown> });
    child.stdin.end();
    await new Promise((r) => child.on('close', r));
    assert.equal(init!.id, 1);
    assert.equal((init!.result.serverInfo as { name: string }).name, 'bounded-evidence');
    assert.equal(tools!.id, 2);
    const names = (tools!.result.tools as { name: string }[]).map((t) => t.name);
    assert.ok(names.includes('read_tool_output') && names.includes('evidence_runCommand'), names.join());
  });
});
