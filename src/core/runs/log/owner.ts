/**
 * Tells a run whose writer died from one still being written, to finish it as `interrupted` (docs/contracts.md §5.4).
 * A pid alone is reused; on Linux boot id and start time make it unique.
 */
import { promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';

export interface RunOwner {
  readonly host: string;
  readonly pid: number;
  readonly start?: string;
}

function linuxStart(pid: number | 'self', read: (p: string) => string | undefined): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const boot = read('/proc/sys/kernel/random/boot_id')?.trim();
  const stat = read(`/proc/${pid}/stat`);
  if (!boot || !stat) return undefined;
  // Field 22 (starttime), counted after the parenthesised command name.
  const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return ticks ? `${boot}:${ticks}` : undefined;
}

let self: RunOwner | undefined;

export function currentOwner(): RunOwner {
  self ??= (() => {
    const start = linuxStart('self', (p) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return undefined;
      }
    });
    return { host: os.hostname(), pid: process.pid, ...(start ? { start } : {}) };
  })();
  return self;
}

/** False only when provably gone; an owner on another host is assumed alive. */
export async function ownerAlive(owner: RunOwner): Promise<boolean> {
  if (owner.host !== os.hostname()) return true;
  if (owner.pid === process.pid) return owner.start === currentOwner().start;
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (owner.start === undefined) return true;
  const cache = new Map<string, string | undefined>();
  for (const p of ['/proc/sys/kernel/random/boot_id', `/proc/${owner.pid}/stat`])
    cache.set(p, await fsp.readFile(p, 'utf8').catch(() => undefined));
  const now = linuxStart(owner.pid, (p) => cache.get(p));
  if (now === undefined) return false;
  const stat = cache.get(`/proc/${owner.pid}/stat`) ?? '';
  // A zombie has exited: its writes are over.
  return now === owner.start && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

export function isRunOwner(x: unknown): x is RunOwner {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o.host === 'string' && Number.isSafeInteger(o.pid) && (o.start === undefined || typeof o.start === 'string')
  );
}
