/**
 * Starting a shell command whose whole process tree can be ended, and whose call ends
 * when its shell ends, at its limit or at cancellation, whatever its descendants do
 * (docs/contracts.md §5.4).
 *
 * `/bin/sh -c <command>` runs detached, as the leader of its own process group, so a
 * timeout, an abort or a capture failure kills the group (`kill(-pid, SIGKILL)`). A
 * descendant that called `setsid()` is out of the group's reach and may hold stdout or
 * stderr open for ever, so on Linux every process of the tree is
 * also found in `/proc`, by an environment marker every descendant inherits
 * (`BOUNDED_EVIDENCE_CALL`) or, for one that cleared its environment, by holding one of
 * the output pipes, and is killed; one that cannot be killed is named in the result.
 * Once the shell has exited, the pipes are read for a short grace only; if they are still
 * held then, the holders are ended (and named), the bytes already written are kept, and
 * no holder can keep the call open. A process in another session that has let go of the
 * output is left running after a normal exit (a daemon started on purpose).
 *
 * A watchdog (`/bin/sh`, in its own session) holds a pipe from this process: if this
 * process dies (SIGKILL, a crashed host), the pipe closes and the watchdog ends the group
 * and marked tree of every command still running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fsp, readlinkSync } from 'node:fs';
import { Readable } from 'node:stream';

/** The environment variable every process of a command's tree inherits (its value is per call). */
const CALL_MARKER_ENV = 'BOUNDED_EVIDENCE_CALL';

/** How long the pipes are still read, after the shell exited, once no byte arrives (and our reader is not behind). */
const PIPE_GRACE_MS = 250;

/** At most this long draining pipes that keep receiving bytes after the shell exited (a holder that keeps writing). */
const DRAIN_CAP_MS = 5_000;

/** A process of the command's tree found outside its process group at the end. */
interface StrayProcess {
  readonly pid: number;
  /** The program name (`/proc/<pid>/comm`). */
  readonly name: string;
  /** False when it could not be killed (it is then still running). */
  readonly ended: boolean;
}

/** How the process ended. */
export interface CommandExit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** True when the shell could not be started at all (e.g. the working directory is missing). */
  readonly spawnFailed: boolean;
  /** Processes of the tree left in other sessions (or holding the pipes) at the end. */
  readonly strays: readonly StrayProcess[];
  /** True when the pipes were still held after the grace and reading them stopped. */
  readonly pipesAbandoned: boolean;
}

/** A running command. */
export interface RunningCommand {
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array>;
  /** Resolves once the process has exited and its pipes are closed or abandoned. */
  readonly exit: Promise<CommandExit>;
  /** Kills the whole process tree now. */
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

/** Spawns the command; never throws (a spawn failure shows in `exit`). */
export function startCommand(
  command: string,
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal },
): RunningCommand {
  if (options.signal?.aborted) {
    // Cancelled before it started: nothing is spawned.
    return {
      stdout: Readable.from([]),
      stderr: Readable.from([]),
      exit: Promise.resolve(NOT_STARTED),
      kill: () => undefined,
    };
  }
  const marker = randomUUID();
  const env = { ...(options.env ?? process.env), [CALL_MARKER_ENV]: marker };
  // The watchdog runs, and knows the call's marker, before the command does: the shell runs as
  // soon as it is spawned, and a loaded machine may not give this process the CPU again before
  // the shell has started its children and this process is killed.
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
      // No such group: it is gone, or the shell has not reached setsid yet (kill it alone).
      if (!exited) child.kill('SIGKILL');
    }
  };
  // Ends the group, then the rest of the tree in other sessions; resolves when both are done.
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
  // Bytes taken from the pipes so far (handed on, or waiting in the streams' buffers): progress while draining.
  let taken = 0;
  const onPiece = (n: number): void => {
    taken += n;
  };
  const stdout = readUntil(child.stdout, stopReading.promise, onPiece);
  const stderr = readUntil(child.stderr, stopReading.promise, onPiece);
  const buffered = (): number => child.stdout.readableLength + child.stderr.readableLength;
  // Our own reader may be behind (a slow disk, a loaded machine): a stream whose buffer is full has stopped
  // reading its pipe, and the bytes left in the pipe are ours to take, not a sign that something holds it.
  const backedUp = (): boolean =>
    [child.stdout, child.stderr].some((st) => !st.destroyed && st.readableLength >= st.readableHighWaterMark);
  /**
   * Waits until the pipes close, or until they stall: no byte arrived for a grace while our reader was not
   * behind (only then is the pipe held by a process that writes nothing). `capMs` bounds the wait for a holder
   * that keeps writing. Resolves true when the pipes closed.
   */
  const drainOrStall = async (capMs: number): Promise<boolean> => {
    const until = Date.now() + capMs;
    for (;;) {
      const before = taken + buffered();
      const grace = delay(PIPE_GRACE_MS);
      await Promise.race([closed.promise, grace.promise]);
      // The grace's timer would keep a short-lived process (the command line) alive for the
      // rest of its 250 ms after the pipes closed.
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
        // Whatever the shell left running is ended; the pipes are drained while bytes still arrive (or our
        // reader is behind), then get a short grace only.
        await drainOrStall(DRAIN_CAP_MS);
        if (pipesClosed && !timedOut && !aborted) {
          // The common case: nothing holds the output. A process the command started in
          // another session that has let go of the output is left running, as a daemon
          // started on purpose would be (scanning /proc on every call costs milliseconds).
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

/** A pause that can be cut short (its timer cleared). */
function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((r) => {
    timer = setTimeout(r, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** A promise with its resolver. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * The pieces of `stream` until it ends, or until `stop` (then what is already buffered is
 * still taken, and the stream is destroyed so the pipe is released). Event-driven rather
 * than racing each read against `stop`: a race per piece would keep every piece alive
 * through the never-settled `stop` promise.
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

/** The shell's output ends as `/proc` names them (`socket:[inode]`), read in the spawn's tick: a quick shell's go. */
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

/**
 * Finds and kills, on Linux, every process carrying `marker` in its environment or
 * holding one of `pipes`, except this process and the shell (`shellPid`, killed with its
 * group). Repeats while it finds new ones (a process may fork while being found).
 */
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
 * The watchdog: one shell per process, in its own session, reading lines from a pipe this
 * process holds: `add - <marker>` before a command is spawned, `add <group> -` once it is,
 * `del <group> <marker>` when it has ended. End of file (this process died: SIGKILL, a
 * crashed host) makes it kill every group still registered and every process carrying a
 * registered marker, with its group (the one of a shell this process died before naming).
 * One shared shell, not one per command: a spawn costs milliseconds on every call.
 *
 * Written for every POSIX `/bin/sh`: a group is killed with
 * `kill -s KILL -- -<group>`, the form dash's builtin takes too (it rejects
 * `kill -KILL -- -<group>` and `kill -9 -- -<group>`: under dash the group kill failed,
 * silently, and a group member without the marker, `env -i`, outlived the parent for
 * ever), with `kill -9 -<group>` as a second try. The marked processes are found by one
 * `grep` over every `/proc/<pid>/environ` (a fork of `tr` per process took up to 1.2 s
 * under load), twice, for one that forked during the first round; the loop over `/proc`
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

/** A command as the watchdog knows it: its marker from before its spawn, its group once spawned. */
interface WatchdogEntry {
  group(pid: number | undefined): void;
  done(): void;
}

let sharedWatchdog: ChildProcess | undefined;

/** The shell that runs the watchdog: `/bin/sh` in the product. */
let watchdogShell = '/bin/sh';

/**
 * Tests only: runs the watchdog started from now on under `shell` (`dash`, `bash`), so
 * each shell a machine's `/bin/sh` may be is covered without changing the machine's.
 */
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
    // A spawn that failed (no process could be forked) reports it later; the next command tries again.
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
