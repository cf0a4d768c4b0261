/**
 * Starts the real VS Code server build on 127.0.0.1 for tests and for the start
 * command. Each run gets its own folder with private HOME, TMPDIR and XDG folders, so
 * nothing is written into the machine's home or /tmp; the server runs detached in its
 * own process group, and `stop()` ends the whole group (the server leaves a file
 * watcher and other helpers behind otherwise).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as net from 'node:net';
import * as path from 'node:path';
import { ensureTools, repoRoot } from './tools.js';

/** A running VS Code server. */
export interface VsCodeServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly port: number;
  /** The run folder holding this server's private state and logs. */
  readonly runDir: string;
  /** Environment (HOME, TMPDIR, XDG_*) a browser started for this run should use. */
  readonly env: NodeJS.ProcessEnv;
  /** Workbench URL for a folder, with an optional smoke-test payload. */
  url(folder: string, payload?: [string, string][]): string;
  /** A `vscode-remote://` URI for a path on this machine, as payloads need. */
  remoteUri(absPath: string): string;
  /** Ends the server's whole process group. */
  stop(): Promise<void>;
}

/** Options for `startServer`. */
export interface ServerOptions {
  /** Label of the run folder under .test-runs/. */
  label: string;
  /** User settings written before start. */
  userSettings?: Record<string, unknown>;
  /** Port to listen on; a free one when omitted. */
  port?: number;
  /** Forward the server's output to this process's stderr too. */
  echo?: boolean;
  /**
   * Extension folders (absolute) installed beside the development extension, e.g. test
   * fixtures. They are listed in the extensions folder's `extensions.json` by absolute
   * location, so nothing is copied or packaged. (The workbench payload keeps only one
   * `extensionDevelopmentPath`: it is read into a map.)
   */
  extraExtensions?: string[];
}

/** Settings of VS Code's that are machine-scoped (see `startServer`). */
const MACHINE_SCOPED = new Set(['workbench.welcomePage.walkthroughs.openOnInstall']);

/** Writes `<extensionsDir>/extensions.json` listing extension folders in place. */
function listExtensions(extensionsDir: string, folders: string[]): void {
  const entries = folders.map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      publisher: string;
      name: string;
      version: string;
    };
    return {
      identifier: { id: `${pkg.publisher}.${pkg.name}`.toLowerCase() },
      version: pkg.version,
      location: { $mid: 1, scheme: 'file', path: dir },
      metadata: { installedTimestamp: Date.now() },
    };
  });
  writeFileSync(path.join(extensionsDir, 'extensions.json'), JSON.stringify(entries));
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Creates a fresh run folder with private HOME/TMPDIR/XDG folders. */
export function makeRunDir(label: string): { runDir: string; env: NodeJS.ProcessEnv } {
  // Chromium puts a Unix socket under TMPDIR, and socket paths are limited to 107
  // bytes: a deep checkout falls back to a short folder under the system temp dir.
  let base = path.join(repoRoot, '.test-runs');
  if (base.length > 48) base = path.join(os.tmpdir(), 'bounded-evidence-runs');
  mkdirSync(base, { recursive: true });
  const runDir = mkdtempSync(path.join(base, `${label.slice(0, 12)}-`));
  const dirs = {
    HOME: 'home',
    TMPDIR: 'tmp',
    XDG_CONFIG_HOME: 'xdg/config',
    XDG_DATA_HOME: 'xdg/data',
    XDG_CACHE_HOME: 'xdg/cache',
    XDG_RUNTIME_DIR: 'xdg/runtime',
  };
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, sub] of Object.entries(dirs)) {
    const p = path.join(runDir, sub);
    mkdirSync(p, { recursive: true, mode: 0o700 });
    env[k] = p;
  }
  return { runDir, env };
}

/** Starts the server and resolves once it answers HTTP. */
export async function startServer(opts: ServerOptions): Promise<VsCodeServer> {
  const tools = ensureTools();
  const { runDir, env } = makeRunDir(opts.label);
  const port = opts.port ?? (await freePort());
  const userDataDir = path.join(runDir, 'user-data');
  const serverDataDir = path.join(runDir, 'server-data');
  const extensionsDir = path.join(runDir, 'extensions');
  for (const d of [userDataDir, serverDataDir, extensionsDir]) mkdirSync(d, { recursive: true });
  // Every test starts on a first start (a fresh browser profile): the extension's walkthrough
  // would open as an extra editor (src/extension/views/firstStart.ts); its own test turns it on.
  const user: Record<string, unknown> = {
    'workbench.startupEditor': 'none',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'workbench.tips.enabled': false,
    ...opts.userSettings,
  };
  // A machine-scoped setting is read in a remote window only from the remote machine's settings
  // (`<user data>/Machine/settings.json`; the User copy is ignored there): those keys go there too.
  // Only those: machine settings override the user's, and tests change user settings.
  const machine = Object.fromEntries(Object.entries(user).filter(([k]) => MACHINE_SCOPED.has(k)));
  // The web workbench served by the server reads the remote user settings from the
  // server data folder; the user-data folder copy covers other layouts.
  for (const dir of [path.join(serverDataDir, 'data'), userDataDir]) {
    for (const [kind, values] of [
      ['User', user],
      ['Machine', machine],
    ] as const) {
      mkdirSync(path.join(dir, kind), { recursive: true });
      writeFileSync(path.join(dir, kind, 'settings.json'), JSON.stringify(values, null, 2));
    }
  }
  if (opts.extraExtensions?.length) listExtensions(extensionsDir, opts.extraExtensions);

  const log = createWriteStream(path.join(runDir, 'server.log'));
  const child: ChildProcess = spawn(
    tools.node24,
    [
      tools.serverMain,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--without-connection-token',
      '--accept-server-license-terms',
      '--enable-smoke-test-driver',
      '--disable-telemetry',
      '--disable-workspace-trust',
      '--user-data-dir',
      userDataDir,
      '--server-data-dir',
      serverDataDir,
      '--extensions-dir',
      extensionsDir,
    ],
    { env: { ...env, VSCODE_AGENT_FOLDER: serverDataDir }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  if (opts.echo) {
    child.stdout?.pipe(process.stderr, { end: false });
    child.stderr?.pipe(process.stderr, { end: false });
  }
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });

  const origin = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + 5000;
    while (!exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    log.end();
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`VS Code server exited early; see ${path.join(runDir, 'server.log')}`);
    try {
      const res = await fetch(`${origin}/version`);
      if (res.ok || res.status === 404) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error('VS Code server did not answer within 60 s');
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  const remoteUri = (p: string): string => `vscode-remote://127.0.0.1:${port}${p}`;
  return {
    origin,
    port,
    runDir,
    env,
    remoteUri,
    url(folder, payload) {
      const q = new URLSearchParams({ folder });
      if (payload) q.set('payload', JSON.stringify(payload));
      return `${origin}/?${q.toString()}`;
    },
    stop,
  };
}
