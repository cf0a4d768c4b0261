/**
 * Retention (docs/contracts.md §2.7): which runs `RunStore.prune` deletes, walked from the
 * catalog oldest first in bounded slices, the logs checked before a run is judged.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { RunRow } from '../catalog/reads.js';
import { runStatusOf } from '../catalog/queries.js';
import type { PruneOptions, PruneResult } from '../types.js';

/** Runs examined per retention slice when the caller does not say. */
const DEFAULT_SLICE_RUNS = 256;

/** What retention needs of the store: its catalog, which runs are live here, and deleting one. */
export interface RetentionHost {
  readonly catalog: Catalog;
  readonly isLive: (runId: string) => boolean;
  deleteRun(runId: string): Promise<void>;
}

/**
 * Retention from the catalog, oldest first: deletes unpinned, not-running runs older
 * than `maxAgeMs` (by finish, else start), then the oldest remaining ones while the
 * total exceeds `maxBytes`. With `sliceRuns`, examines that many runs and returns a
 * `cursor` for the next slice (pinned and running runs are never deleted).
 */
export async function pruneRuns(host: RetentionHost, options: PruneOptions): Promise<PruneResult> {
  const deletedRuns: string[] = [];
  let freedBytes = 0;
  let cursor = options.cursor;
  do {
    const r = await pruneSlice(host, options, cursor);
    deletedRuns.push(...r.deletedRuns);
    freedBytes += r.freedBytes;
    cursor = r.cursor;
    if (options.sliceRuns !== undefined)
      return { deletedRuns, freedBytes, more: r.more ?? false, ...(cursor !== undefined ? { cursor } : {}) };
  } while (cursor !== undefined);
  return { deletedRuns, freedBytes };
}

/** One slice of `pruneRuns`: phase `a` (age) then `b` (budget), each oldest first from the cursor's run. */
async function pruneSlice(
  host: RetentionHost,
  options: PruneOptions,
  cursor: string | undefined,
): Promise<PruneResult> {
  const now = options.now ?? Date.now();
  const budget = options.sliceRuns ?? DEFAULT_SLICE_RUNS;
  let phase = cursor?.[0] === 'b' ? 'b' : 'a';
  if (phase === 'a' && options.maxAgeMs === undefined) phase = 'b';
  if (phase === 'b' && options.maxBytes === undefined) return { deletedRuns: [], freedBytes: 0, more: false };
  // One page of the oldest-first index from the cursor's run (one more row than the slice: is there more?).
  const rows = host.catalog.runsOldestFirst(
    cursor && cursor[0] === phase ? afterKey(cursor.slice(2)) : undefined,
    budget + 1,
  );
  let i = 0;
  let total = phase === 'b' ? host.catalog.totals().bytes : 0;
  const deletedRuns: string[] = [];
  let freedBytes = 0;
  let examined = 0;
  let last: RunRow | undefined;
  const candidates: RunRow[] = [];
  // By age, runs are in start order and a run finishes after it starts: from the first one
  // started within the limit on, none has expired, so the walk ends there instead of
  // checking every run's log at each start-up (docs/architecture.md §6, retention).
  let young = false;
  for (; i < rows.length && examined < budget; i++) {
    const r = rows[i]!;
    if (phase === 'a' && now - r.startedMs <= options.maxAgeMs!) {
      young = true;
      break;
    }
    examined++;
    last = r;
    candidates.push(r);
  }
  // The logs win: rows about to be judged are checked first.
  await host.catalog.verifyRuns(candidates.map((r) => r.id));
  for (const c of candidates) {
    const r = host.catalog.run(c.id);
    if (!r || !r.ok || r.pinned || runStatusOf(r, host.isLive, now) === 'running') continue;
    const size = r.logSize + r.blobBytes;
    if (phase === 'a') {
      if (now - Date.parse(r.finishedAt ?? r.startedAt) <= options.maxAgeMs!) continue;
    } else if (total <= options.maxBytes!) break;
    await host.deleteRun(r.id);
    deletedRuns.push(r.id);
    freedBytes += size;
    total -= size;
  }
  const doneWithPhase = i >= rows.length || young || (phase === 'b' && total <= options.maxBytes!);
  if (!doneWithPhase && last) return { deletedRuns, freedBytes, more: true, cursor: `${phase}:${runKey(last)}` };
  if (phase === 'a' && options.maxBytes !== undefined) return { deletedRuns, freedBytes, more: true, cursor: 'b:' };
  return { deletedRuns, freedBytes, more: false };
}

/** Sort key of a run in the catalog's order (a retention cursor). */
function runKey(r: RunRow): string {
  return `${r.startedMs}|${r.id}`;
}

/** The run a cursor's key names (it may have been deleted since: the walk goes on after its place). */
function afterKey(key: string): { ms: number; id: string } | undefined {
  const bar = key.indexOf('|');
  const ms = Number(key.slice(0, bar));
  return bar < 0 || !Number.isFinite(ms) ? undefined : { ms, id: key.slice(bar + 1) };
}
