/**
 * `npm start`: builds the extension, packages it, sets up the VS Code server build if
 * missing, installs the extension into a private extensions folder and serves a real
 * workbench on 127.0.0.1 with the demo workspace. Prints the URL; Ctrl-C ends the
 * server's whole process group, and so does SIGINT or SIGTERM to npm's PID alone: package.json
 * `exec`s this Node so no shell stands between npm's forwarded signal and it. State (evidence, settings) persists across starts in
 * .test-runs/start/ so a newcomer's runs are still there tomorrow.
 *
 * Environment: BE_PORT (default 8123), BE_HOST (default 127.0.0.1; loopback only unless
 * you know why), BE_WORKSPACE (default demo/), BE_STATE (default .test-runs/start/).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureTools, repoRoot } from '../test/harness/tools.js';

const port = Number(process.env.BE_PORT ?? 8123);
const host = process.env.BE_HOST ?? '127.0.0.1';
const workspace = path.resolve(process.env.BE_WORKSPACE ?? path.join(repoRoot, 'demo'));

function step(label: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.log(`▶ ${label}`);
  const r = spawnSync(cmd, args, { cwd: repoRoot, stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(`✘ ${label} failed (exit ${r.status})`);
    process.exit(1);
  }
}

const tools = ensureTools();
step('building and packaging the extension', 'npm', ['run', '--silent', 'package']);

const state = path.resolve(process.env.BE_STATE ?? path.join(repoRoot, '.test-runs', 'start'));
const dirs = {
  home: 'home',
  tmp: 'tmp',
  config: 'xdg/config',
  data: 'xdg/data',
  cache: 'xdg/cache',
  userData: 'user-data',
  serverData: 'server-data',
  extensions: 'extensions',
};
const p = Object.fromEntries(Object.entries(dirs).map(([k, v]) => [k, path.join(state, v)])) as Record<
  keyof typeof dirs,
  string
>;
for (const d of Object.values(p)) mkdirSync(d, { recursive: true });
const env: NodeJS.ProcessEnv = {
  ...process.env,
  HOME: p.home,
  TMPDIR: p.tmp,
  XDG_CONFIG_HOME: p.config,
  XDG_DATA_HOME: p.data,
  XDG_CACHE_HOME: p.cache,
};
// Our keys are written on every start (merged over what the person changed), in both
// places a served workbench may read user settings from: an older state folder whose
// file predates a key would otherwise keep showing the Welcome page or the Git prompt.
const ourSettings = {
  // The demo folder's README opens instead of the generic Welcome page; on the first start
  // the extension's walkthrough opens in front of it (src/extension/views/firstStart.ts).
  'workbench.startupEditor': 'readme',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  // demo/ lives inside this repository: no "open the parent repository?" prompt.
  'git.openRepositoryInParentFolders': 'never',
  // The server runs on loopback beside the person's own programs: forwarding their ports
  // would only stack "your application is available" toasts over the inspector.
  'remote.autoForwardPorts': false,
  // Nor restored from an earlier start, and any port forwarded anyway says nothing.
  'remote.restoreForwardedPorts': false,
  'remote.otherPortsAttributes': { onAutoForward: 'ignore' },
};
for (const settingsFile of [
  path.join(p.serverData, 'data', 'User', 'settings.json'),
  path.join(p.userData, 'User', 'settings.json'),
]) {
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  } catch {
    /* absent or not JSON: start afresh */
  }
  writeFileSync(settingsFile, JSON.stringify({ ...current, ...ourSettings }, null, 2));
}
const common = ['--user-data-dir', p.userData, '--server-data-dir', p.serverData, '--extensions-dir', p.extensions];
step(
  'installing the extension into the server',
  tools.node24,
  [
    tools.serverMain,
    ...common,
    '--install-extension',
    path.join(repoRoot, 'dist-package', 'bounded-evidence.vsix'),
    '--force',
  ],
  env,
);

console.log('▶ starting VS Code');
const server = spawn(
  tools.node24,
  [
    tools.serverMain,
    '--host',
    host,
    '--port',
    String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--disable-telemetry',
    '--disable-workspace-trust',
    ...common,
  ],
  { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
);
let shown = false;
const onOutput = (d: Buffer): void => {
  const text = d.toString();
  if (!shown && /listening|Web UI available|Extension host agent started/i.test(text)) {
    shown = true;
    const url = `http://${host}:${port}/?folder=${encodeURIComponent(workspace)}`;
    console.log(
      `\n  Bounded Evidence is running.\n\n  Open: ${url}\n\n  Try the palette (F1): "Bounded Evidence: Run Command and Capture" with  node build-log.js\n  then "Bounded Evidence: Open Inspector". Ctrl-C stops everything.\n`,
    );
  }
  if (process.env.BE_VERBOSE) process.stderr.write(text);
};
server.stdout?.on('data', onOutput);
server.stderr?.on('data', onOutput);

const stop = (): void => {
  if (server.pid !== undefined) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
    setTimeout(() => {
      try {
        process.kill(-server.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      process.exit(0);
    }, 2000).unref();
  }
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (code) => {
  console.log(`VS Code server exited (${code ?? 'signal'})`);
  process.exit(code ?? 0);
});
