/**
 * The run store prunes runs; this layer adds the `evidence_readFile` artifacts, shared by content
 * (docs/architecture.md §3), so one is deleted only when no remaining run references it.
 */
import { EvidenceToolNames, type ArtifactStore, type PruneResult, type RunStoreApi } from '../core/index.js';
import type { Log } from './log.js';
import type { EvidenceServices } from './services.js';

export interface RetentionReport {
  readonly deletedRuns: readonly string[];
  /** Still running. */
  readonly skippedRuns: readonly string[];
  readonly deletedArtifacts: number;
  readonly freedBytes: number;
}

export interface PruneOverrides {
  /** 0: none. */
  readonly maxBytes?: number;
  /** 0: none. */
  readonly maxAgeMs?: number;
  readonly now?: number;
}

/** Each slice is a few milliseconds of work on the extension host. */
const RETENTION_SLICE_RUNS = 200;

function nextSlice(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** From the catalog's pages of those calls only (docs/architecture.md §6), never every run's log. */
async function artifactRefs(runs: RunStoreApi, log: Pick<Log, 'warn'>): Promise<Map<string, Set<string>>> {
  const refs = new Map<string, Set<string>>();
  try {
    for (let offset = 0; ; offset += 1000) {
      const page = await runs.queryCalls({ offset, limit: 1000, tool: EvidenceToolNames.readFile, order: 'oldest' });
      for (const call of page.rows) {
        if (!call.sha256) continue;
        let ids = refs.get(call.runId);
        if (!ids) {
          ids = new Set();
          refs.set(call.runId, ids);
        }
        ids.add(`artifact-${call.sha256}`);
      }
      if (offset + 1000 >= page.total) break;
    }
  } catch (e) {
    log.warn(`artifact references could not be listed while pruning: ${e instanceof Error ? e.message : String(e)}`);
  }
  return refs;
}

async function dropOrphans(
  artifacts: ArtifactStore,
  before: Map<string, Set<string>>,
  deleted: readonly string[],
  runs: RunStoreApi,
  log: Pick<Log, 'warn'>,
): Promise<[number, number]> {
  const candidates = new Set<string>();
  for (const id of deleted) for (const a of before.get(id) ?? []) candidates.add(a);
  if (candidates.size === 0) return [0, 0];
  // Re-read what remains: a run may have started (and read the same file) meanwhile.
  const remaining = await artifactRefs(runs, log);
  for (const ids of remaining.values()) for (const a of ids) candidates.delete(a);
  let count = 0;
  let bytes = 0;
  for (const id of candidates) {
    try {
      const freed = await artifacts.delete(id);
      if (freed !== undefined) {
        count++;
        bytes += freed;
      }
    } catch (e) {
      log.warn(`an artifact was not deleted: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return [count, bytes];
}

/** In slices with the event loop free between them, so start-up retention never stalls the extension host. */
export async function pruneStorage(
  services: EvidenceServices,
  log: Log,
  overrides: PruneOverrides = {},
): Promise<RetentionReport> {
  const s = services.settings;
  const maxBytes = overrides.maxBytes ?? s.retentionMaxBytes;
  const maxAgeMs = overrides.maxAgeMs ?? s.retentionMaxAgeMs;
  const before = await artifactRefs(services.runs, log);
  const deletedRuns: string[] = [];
  let freedBytes = 0;
  let cursor: string | undefined;
  let slices = 0;
  do {
    const result: PruneResult = await services.runs.prune({
      ...(maxBytes > 0 ? { maxBytes } : {}),
      ...(maxAgeMs > 0 ? { maxAgeMs } : {}),
      ...(overrides.now !== undefined ? { now: overrides.now } : {}),
      sliceRuns: RETENTION_SLICE_RUNS,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    deletedRuns.push(...result.deletedRuns);
    freedBytes += result.freedBytes;
    cursor = result.more ? result.cursor : undefined;
    slices++;
    if (cursor !== undefined) await nextSlice();
  } while (cursor !== undefined);
  const [deletedArtifacts, artifactBytes] = await dropOrphans(
    services.artifacts,
    before,
    deletedRuns,
    services.runs,
    log,
  );
  const report = { deletedRuns, skippedRuns: [], deletedArtifacts, freedBytes: freedBytes + artifactBytes };
  log.info(
    `prune: deleted ${report.deletedRuns.length} runs and ${deletedArtifacts} ` +
      `artifacts in ${slices} slices, freed ${report.freedBytes} bytes`,
  );
  return report;
}

/**
 * The catalog is first reconciled with the logs folder (another process's log may not be indexed yet), then emptied a
 * page at a time (docs/contracts.md §2.7).
 */
export async function clearAll(
  services: Pick<EvidenceServices, 'runs' | 'artifacts'>,
  log: Pick<Log, 'info' | 'warn'>,
): Promise<RetentionReport> {
  await services.runs.reconcileWithLogs();
  const before = await artifactRefs(services.runs, log);
  const deleted: string[] = [];
  const skipped: string[] = [];
  let freed = 0;
  for (;;) {
    const page = await services.runs.queryRuns({ offset: skipped.length, limit: RETENTION_SLICE_RUNS });
    if (page.length === 0) break;
    for (const run of page) {
      try {
        await services.runs.deleteRun(run.runId);
        deleted.push(run.runId);
        freed += run.totalBytes;
      } catch (e) {
        log.warn(`run ${run.runId} was not deleted: ${e instanceof Error ? e.message : String(e)}`);
        skipped.push(run.runId);
      }
    }
    await nextSlice();
  }
  const [deletedArtifacts, artifactBytes] = await dropOrphans(services.artifacts, before, deleted, services.runs, log);
  log.info(
    `clear: deleted ${deleted.length} runs and ${deletedArtifacts} artifacts, ` +
      `kept ${skipped.length} running, freed ${freed + artifactBytes} bytes`,
  );
  return { deletedRuns: deleted, skippedRuns: skipped, deletedArtifacts, freedBytes: freed + artifactBytes };
}
