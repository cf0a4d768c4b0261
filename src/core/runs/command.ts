/**
 * Starting a shell command whose whole process tree can be ended.
 *
 * `/bin/sh -c <command>` runs detached, as the leader of its own process group, so a
 * timeout, an abort or a capture failure kills the group (`kill(-pid, SIGKILL)`):
 * pipelines and children go too. When the shell itself exits, whatever it left running
 * in its group is killed as well: background leftovers would otherwise hold stdout open
 * and keep the call from ever finishing.
 */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';

/** How the process ended. */
export interface CommandExit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** True when the shell could not be started at all (e.g. the working directory is missing). */
  readonly spawnFailed: boolean;
}

/** A running command. */
export interface RunningCommand {
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the process has exited and its pipes are closed. */
  readonly exit: Promise<CommandExit>;
  /** Kills the whole process group now. */
  kill(): void;
}

/** Spawns the command; never throws (a spawn failure shows in `exit`). */
export function startCommand(command: string, options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal }): RunningCommand {
  if (options.signal?.aborted) {
    // Cancelled before it started: nothing is spawned.
    return { stdout: Readable.from([]), stderr: Readable.from([]), exit: Promise.resolve({ code: null, signal: null, timedOut: false, aborted: true, spawnFailed: false }), kill: () => undefined };
  }
  const child = spawn('/bin/sh', ['-c', command], { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let timedOut = false;
  let aborted = false;
  let exited = false;
  const kill = (): void => {
    if (child.pid === undefined) return;
    try { process.kill(-child.pid, 'SIGKILL'); } catch {
      // No such group: it is gone, or the shell has not reached setsid yet (kill it alone).
      if (!exited) child.kill('SIGKILL');
    }
  };
  const timer = options.timeoutMs !== undefined ? setTimeout(() => { if (!exited) { timedOut = true; kill(); } }, options.timeoutMs) : undefined;
  const onAbort = (): void => { if (!exited) { aborted = true; kill(); } };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const exit = new Promise<CommandExit>((resolve) => {
    const finish = (code: number | null, signal: string | null, spawnFailed: boolean): void => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code, signal, timedOut, aborted, spawnFailed });
    };
    child.once('exit', () => { exited = true; kill(); });
    child.once('close', (code, signal) => finish(code, signal, false));
    child.once('error', () => { exited = true; finish(null, null, true); });
  });
  return { stdout: child.stdout, stderr: child.stderr, exit, kill };
}
