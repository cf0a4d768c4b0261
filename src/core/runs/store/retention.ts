/**
 * Retention (docs/contracts.md §2.7): walked from the catalog oldest first in bounded slices, the logs checked before
 * a run is judged.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { RunRow } from '../catalog/reads.js';
import { runStatusOf } from '../catalog/queries.js';
import type { PruneOptions, PruneResult } from '../types.js';

const DEFAULT_SLICE_RUNS = 256;

export interface RetentionHost {
  readonly catalog: Catalog;
  readonly isLive: (runId: string) => boolean;
  deleteRun(runId: string): Promise<void>;
}

/** Pinned and running runs are never deleted. */
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
  // One more row than the slice tells whether there is more.
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
  // Runs finish after they start: from the first one within the age limit on, none has expired, so the walk ends
  // there.
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

function runKey(r: RunRow): string {
  return `${r.startedMs}|${r.id}`;
}

/** It may have been deleted since: the walk goes on after its place. */
function afterKey(key: string): { ms: number; id: string } | undefined {
  const bar = key.indexOf('|');
  const ms = Number(key.slice(0, bar));
  return bar < 0 || !Number.isFinite(ms) ? undefined : { ms, id: key.slice(bar + 1) };
}
