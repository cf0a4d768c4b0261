/**
 * A shell command whose call ends with its shell, at its limit or at cancellation, whatever its descendants do
 * (docs/contracts.md §5.4). It runs as a process group leader; descendants that left the group are found in `/proc`
 * by an inherited marker or by holding the output pipes, and killed. A watchdog shell holding a pipe from this
 * process ends every command still running if this process dies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fsp, readlinkSync } from 'node:fs';
import { Readable } from 'node:stream';

const CALL_MARKER_ENV = 'BOUNDED_EVIDENCE_CALL';

/** Once no byte arrives and our reader is not behind. */
const PIPE_GRACE_MS = 250;

/** Bounds a holder that keeps writing. */
const DRAIN_CAP_MS = 5_000;

interface StrayProcess {
  readonly pid: number;
  readonly name: string;
  /** False: still running. */
  readonly ended: boolean;
}

export interface CommandExit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** E.g. the working directory is missing. */
  readonly spawnFailed: boolean;
  readonly strays: readonly StrayProcess[];
  readonly pipesAbandoned: boolean;
}

export interface RunningCommand {
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array>;
  readonly exit: Promise<CommandExit>;
  kill(): void;
}

const NOT_STARTED: CommandExit = {
  code: null,
  signal: null,
  timedOut: false,
  aborted: true,
  spawnFailed: false,
  strays: [],
  pipesAbandoned: false,
};

/** Never throws: a spawn failure shows in `exit`. */
export function startCommand(
  command: string,
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal },
): RunningCommand {
  if (options.signal?.aborted) {
    return {
      stdout: Readable.from([]),
      stderr: Readable.from([]),
      exit: Promise.resolve(NOT_STARTED),
      kill: () => undefined,
    };
  }
  const marker = randomUUID();
  const env = { ...(options.env ?? process.env), [CALL_MARKER_ENV]: marker };
  // The watchdog learns the marker first: a loaded machine may not give this process the CPU again before the shell
  // has started its children and this process is killed.
  const watchdog = registerWithWatchdog(watchdogProcess(), marker);
  const child = spawn('/bin/sh', ['-c', command], {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  watchdog?.group(child.pid);
  const pipes = pipeInodes(child.pid);
  let timedOut = false;
  let aborted = false;
  let exited = false;
  const strays = new Map<number, StrayProcess>();
  const killGroup = (): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // No such group: it is gone, or the shell has not reached setsid yet.
      if (!exited) child.kill('SIGKILL');
    }
  };
  let sweeping: Promise<void> | undefined;
  let pipesClosed = false;
  const endTree = (): Promise<void> => {
    killGroup();
    sweeping ??= (async () => {
      // Holders of the pipes only while they are open (that scan reads every process's descriptors).
      const found = await sweepTree(marker, pipesClosed ? [] : pipes, child.pid);
      for (const s of found) strays.set(s.pid, s);
    })().finally(() => {
      sweeping = undefined;
    });
    return sweeping;
  };
  const kill = (): void => {
    void endTree();
  };
  const stopReading = deferred();
  // Progress while draining.
  let taken = 0;
  const onPiece = (n: number): void => {
    taken += n;
  };
  const stdout = readUntil(child.stdout, stopReading.promise, onPiece);
  const stderr = readUntil(child.stderr, stopReading.promise, onPiece);
  const buffered = (): number => child.stdout.readableLength + child.stderr.readableLength;
  // A stream whose buffer is full has stopped reading its pipe: the bytes left in the pipe are ours, not a sign that
  // something holds it.
  const backedUp = (): boolean =>
    [child.stdout, child.stderr].some((st) => !st.destroyed && st.readableLength >= st.readableHighWaterMark);
  /** A stall counts only while our reader was not behind. Resolves true when the pipes closed. */
  const drainOrStall = async (capMs: number): Promise<boolean> => {
    const until = Date.now() + capMs;
    for (;;) {
      const before = taken + buffered();
      const grace = delay(PIPE_GRACE_MS);
      await Promise.race([closed.promise, grace.promise]);
      // The grace's timer would keep a short-lived process alive after the pipes closed.
      grace.cancel();
      if (pipesClosed) return true;
      const moved = taken + buffered() !== before;
      if ((!moved && !backedUp()) || Date.now() >= until) return false;
    }
  };
  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => {
          if (!exited) {
            timedOut = true;
            kill();
          }
        }, options.timeoutMs)
      : undefined;
  const onAbort = (): void => {
    if (!exited) {
      aborted = true;
      kill();
    }
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const closed = deferred();
  const exit = new Promise<CommandExit>((resolve) => {
    let ended = false;
    const finish = (
      code: number | null,
      signal: string | null,
      spawnFailed: boolean,
      pipesAbandoned: boolean,
    ): void => {
      if (ended) return;
      ended = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      watchdog?.done();
      resolve({ code, signal, timedOut, aborted, spawnFailed, strays: [...strays.values()], pipesAbandoned });
    };
    child.once('close', () => {
      pipesClosed = true;
      closed.resolve();
    });
    child.once('exit', (code, signal) => {
      exited = true;
      killGroup();
      void (async () => {
        await drainOrStall(DRAIN_CAP_MS);
        if (pipesClosed && !timedOut && !aborted) {
          // The common case. A process in another session that let go of the output is left running, as a daemon
          // started on purpose would be.
          finish(code, signal, false, false);
          return;
        }
        await endTree();
        if (!pipesClosed) await drainOrStall(DRAIN_CAP_MS);
        const abandoned = !pipesClosed;
        stopReading.resolve();
        finish(code, signal, false, abandoned);
      })();
    });
    child.once('error', () => {
      exited = true;
      stopReading.resolve();
      finish(null, null, true, false);
    });
  });
  return { stdout, stderr, exit, kill };
}

function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((r) => {
    timer = setTimeout(r, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Event-driven rather than racing each read against `stop`: a race per piece would keep every piece alive through the
 * never-settled promise.
 */
async function* readUntil(
  stream: Readable,
  stop: Promise<void>,
  onPiece: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  let stopped = false;
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  stream.on('readable', poke);
  stream.once('end', () => {
    ended = true;
    poke();
  });
  stream.once('close', () => {
    ended = true;
    poke();
  });
  stream.once('error', (e) => {
    failure = e;
    poke();
  });
  void stop.then(() => {
    stopped = true;
    poke();
  });
  try {
    for (;;) {
      for (let piece = stream.read() as Buffer | null; piece !== null; piece = stream.read() as Buffer | null) {
        onPiece(piece.length);
        yield piece;
      }
      if (failure !== undefined) throw failure;
      if (ended || stopped) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stream.off('readable', poke);
    stream.destroy();
  }
}

/** Read in the spawn's tick: a quick shell may be gone by the next. */
function pipeInodes(pid: number | undefined): string[] {
  if (pid === undefined || process.platform !== 'linux') return [];
  const links = [1, 2].map((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return '';
    }
  });
  return links.filter((l) => /^(pipe|socket):\[\d+\]$/.test(l));
}

/** Repeats while it finds new ones: a process may fork while being found. */
async function sweepTree(
  marker: string,
  pipes: readonly string[],
  shellPid: number | undefined,
): Promise<StrayProcess[]> {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${CALL_MARKER_ENV}=${marker}\0`);
  const found = new Map<number, StrayProcess>();
  for (let round = 0; round < 4; round++) {
    const names = await fsp.readdir('/proc').catch(() => [] as string[]);
    const pids = names
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .filter((p) => p !== process.pid && p !== shellPid);
    const hits = (
      await Promise.all(pids.map(async (pid) => ((await isOfTree(pid, needle, pipes, shellPid)) ? pid : undefined)))
    ).filter((p): p is number => p !== undefined);
    const fresh = hits.filter((p) => !found.get(p)?.ended);
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      const name = (await fsp.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim();
      let ended = true;
      try {
        process.kill(pid, 'SIGKILL');
      } catch (e) {
        ended = (e as NodeJS.ErrnoException).code === 'ESRCH';
      }
      found.set(pid, { pid, name, ended });
    }
  }
  return [...found.values()];
}

async function isOfTree(pid: number, needle: Buffer, pipes: readonly string[], group?: number): Promise<boolean> {
  const environ = await fsp.readFile(`/proc/${pid}/environ`).catch(() => undefined);
  // A zombie or a process of another user shows an empty or unreadable environment.
  if (environ?.includes(needle)) return outsideGroup(pid, group);
  if (pipes.length === 0) return false;
  const fds = await fsp.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const link = await fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => undefined);
    if (link !== undefined && pipes.includes(link)) return outsideGroup(pid, group);
  }
  return false;
}

/** A running process outside the shell's group (members, killed already, may still be exiting). */
async function outsideGroup(pid: number, group: number | undefined): Promise<boolean> {
  const stat = await fsp.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stat !== '' && state !== 'Z' && Number(pgrp) !== group;
}

/**
 * One watchdog shell per process, not per command (a spawn costs milliseconds). On end of file it kills every
 * registered group and marked process. `kill -s KILL -- -<group>` is the form dash's builtin takes too (under dash
 * the other forms failed silently); one `grep` over every environ outruns a fork per process, and the `/proc` loop
 * remains for a system without `grep -z`.
 */
const WATCHDOG_SCRIPT = `groups=""; markers=""
while read -r op g m; do
  case "$op" in
    add) [ "$g" = - ] || groups="$groups $g"; [ "$m" = - ] || markers="$markers $m" ;;
    del) ng=""; for x in $groups; do [ "$x" = "$g" ] || ng="$ng $x"; done; groups="$ng"
         nm=""; for x in $markers; do [ "$x" = "$m" ] || nm="$nm $x"; done; markers="$nm" ;;
  esac
done
[ -z "$groups$markers" ] && exit 0
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null || kill -9 "-$g" 2>/dev/null; done
[ -z "$markers" ] && exit 0
end() {
  if read -r s < "/proc/$1/stat" 2>/dev/null; then
    set -- "$1" \${s##*') '}
    [ "\${4:-1}" -gt 1 ] && [ "$4" != "$$" ] && kill -s KILL -- "-$4" 2>/dev/null
  fi
  kill -s KILL -- "$1" 2>/dev/null
  return 0
}
set --
for m in $markers; do set -- "$@" -e "${CALL_MARKER_ENV}=$m"; done
if printf 'a\\0' | grep -qzxF -e a 2>/dev/null; then
  for round in 1 2; do
    for f in $(grep -lzxaF "$@" /proc/[0-9]*/environ 2>/dev/null); do
      p=\${f#/proc/}; end "\${p%/environ}"
    done
  done
  exit 0
fi
for p in /proc/[0-9]*; do
  e=$(tr '\\0' '\\n' < "$p/environ" 2>/dev/null) || continue
  for m in $markers; do
    case "$e" in *"${CALL_MARKER_ENV}=$m"*) end "\${p#/proc/}" ;; esac
  done
done
exit 0`;

interface WatchdogEntry {
  group(pid: number | undefined): void;
  done(): void;
}

let sharedWatchdog: ChildProcess | undefined;

let watchdogShell = '/bin/sh';

/** Tests only: covers each shell a machine's `/bin/sh` may be. */
export function useWatchdogShell(shell: string): void {
  watchdogShell = shell;
}

function watchdogProcess(): ChildProcess | undefined {
  if (process.platform === 'win32') return undefined;
  if (
    sharedWatchdog &&
    sharedWatchdog.exitCode === null &&
    sharedWatchdog.signalCode === null &&
    sharedWatchdog.stdin?.writable
  )
    return sharedWatchdog;
  try {
    const wd = spawn(watchdogShell, ['-c', WATCHDOG_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    wd.on('error', () => undefined);
    wd.stdin?.on('error', () => undefined);
    // A failed spawn reports it later; the next command tries again.
    if (wd.pid === undefined) return undefined;
    // Neither the watchdog nor its pipe keeps this process alive.
    wd.unref();
    (wd.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    sharedWatchdog = wd;
    return wd;
  } catch {
    return undefined;
  }
}

function registerWithWatchdog(wd: ChildProcess | undefined, marker: string): WatchdogEntry | undefined {
  if (!wd?.stdin) return undefined;
  wd.stdin.write(`add - ${marker}\n`);
  let group = '-';
  let said = false;
  return {
    group: (pid) => {
      if (pid === undefined || said) return;
      group = String(pid);
      wd.stdin?.write(`add ${group} -\n`);
    },
    done: () => {
      if (!said && wd.stdin?.writable) wd.stdin.write(`del ${group} ${marker}\n`);
      said = true;
    },
  };
}
