/**
 * Whose a spool is (docs/contracts.md §6.1): the shell that runs a routed group names its stdout file `1.<pid>`, so a
 * spool whose shell is gone was left by a killed shell, whatever its age. A pid is reused: on Linux a process that
 * started after the spool's last write is not the shell that wrote it.
 */
import { readFileSync } from 'node:fs';

/** The shell's pid in a stdout file's name (`1.<pid>`), or undefined. */
export function ownerPid(name: string): number | undefined {
  const m = /^1\.([1-9]\d{0,9})$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** When a process started (ms since the epoch) and whether it is a zombie, from /proc; undefined elsewhere. */
function procStart(pid: number): { startMs: number; zombie: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name's closing parenthesis: state is field 3, starttime (clock ticks after boot) field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    const ticks = Number(fields[19]);
    if (!boot || !Number.isFinite(ticks)) return undefined;
    // Linux reports /proc times in USER_HZ, 100 a second on every architecture it exposes.
    return { startMs: Number(boot[1]) * 1000 + ticks * 10, zombie: fields[0] === 'Z' || fields[0] === 'X' };
  } catch {
    return undefined;
  }
}

/**
 * True while the shell `pid` that last wrote its spool at `lastWriteMs` may still be running its command: it exists,
 * is not a zombie, and (where the start time can be read) did not start after that write, give or take the second
 * /proc's boot time is rounded to.
 */
export function shellAlive(pid: number, lastWriteMs: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const p = procStart(pid);
  if (!p) return true;
  return !p.zombie && p.startMs <= lastWriteMs + 1000;
}
