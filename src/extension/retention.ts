/**
 * Retention and clearing. The run store prunes runs (oldest unpinned, finished first;
 * never a pinned or running one); this layer adds the artifacts of `evidence_readFile`,
 * which are shared by content: an artifact is deleted only when a run that referenced
 * it was deleted and no remaining run references it.
 */
import { recordedArtifactId, type ArtifactStore, type PruneResult, type RunStoreApi } from '../core/index.js';
import type { Log } from './log.js';
import type { EvidenceServices } from './services.js';

/** What a prune or clear freed. */
export interface RetentionReport {
  readonly deletedRuns: readonly string[];
  /** Runs that could not be deleted (still running). */
  readonly skippedRuns: readonly string[];
  readonly deletedArtifacts: number;
  readonly freedBytes: number;
}

/** Overrides of the retention settings (tests, and the command's arguments). */
export interface PruneOverrides {
  /** Budget in bytes (0: none). */
  readonly maxBytes?: number;
  /** Age in milliseconds (0: none). */
  readonly maxAgeMs?: number;
  /** Clock, ms since epoch. */
  readonly now?: number;
}

/** Artifact ids referenced by each run (its `evidence_readFile` results). */
async function artifactRefs(runs: RunStoreApi, log: Log): Promise<Map<string, Set<string>>> {
  const refs = new Map<string, Set<string>>();
  for (const run of await runs.listRuns()) {
    const ids = new Set<string>();
    try {
      for (const call of await runs.report(run.runId)) {
        const id = recordedArtifactId(call);
        if (id) ids.add(id);
      }
    } catch (e) {
      log.warn(`run ${run.runId} could not be read while pruning: ${e instanceof Error ? e.message : String(e)}`);
    }
    refs.set(run.runId, ids);
  }
  return refs;
}

/** Deletes the artifacts of `deleted` runs that no remaining run references; returns [count, bytes]. */
async function dropOrphans(artifacts: ArtifactStore, before: Map<string, Set<string>>, deleted: readonly string[], runs: RunStoreApi, log: Log): Promise<[number, number]> {
  const candidates = new Set<string>();
  for (const id of deleted) for (const a of before.get(id) ?? []) candidates.add(a);
  if (candidates.size === 0) return [0, 0];
  // Re-read what remains: a run may have started (and read the same file) meanwhile.
  const remaining = await artifactRefs(runs, log);
  for (const ids of remaining.values()) for (const a of ids) candidates.delete(a);
  let count = 0;
  let bytes = 0;
  for (const id of candidates) {
    const size = artifacts.ref(id)?.byteCount ?? 0;
    if (await artifacts.delete(id)) { count++; bytes += size; }
  }
  return [count, bytes];
}

/** Applies the retention settings (or overrides) now. */
export async function pruneStorage(services: EvidenceServices, log: Log, overrides: PruneOverrides = {}): Promise<RetentionReport> {
  const s = services.settings;
  const maxBytes = overrides.maxBytes ?? s.retentionMaxBytes;
  const maxAgeMs = overrides.maxAgeMs ?? s.retentionMaxAgeMs;
  const before = await artifactRefs(services.runs, log);
  const result: PruneResult = await services.runs.prune({
    ...(maxBytes > 0 ? { maxBytes } : {}),
    ...(maxAgeMs > 0 ? { maxAgeMs } : {}),
    ...(overrides.now !== undefined ? { now: overrides.now } : {}),
  });
  const [deletedArtifacts, artifactBytes] = await dropOrphans(services.artifacts, before, result.deletedRuns, services.runs, log);
  const report = { deletedRuns: result.deletedRuns, skippedRuns: [], deletedArtifacts, freedBytes: result.freedBytes + artifactBytes };
  log.info(`prune: deleted ${report.deletedRuns.length} runs and ${deletedArtifacts} artifacts, freed ${report.freedBytes} bytes`);
  return report;
}

/** Deletes every run (except running ones) and every artifact no remaining run references. */
export async function clearAll(services: EvidenceServices, log: Log): Promise<RetentionReport> {
  const before = await artifactRefs(services.runs, log);
  const sizes = new Map((await services.runs.listRuns()).map((r) => [r.runId, r.totalBytes]));
  const deleted: string[] = [];
  const skipped: string[] = [];
  let freed = 0;
  for (const runId of before.keys()) {
    try {
      await services.runs.deleteRun(runId);
      deleted.push(runId);
      freed += sizes.get(runId) ?? 0;
    } catch (e) {
      log.warn(`run ${runId} was not deleted: ${e instanceof Error ? e.message : String(e)}`);
      skipped.push(runId);
    }
  }
  const [deletedArtifacts, artifactBytes] = await dropOrphans(services.artifacts, before, deleted, services.runs, log);
  log.info(`clear: deleted ${deleted.length} runs and ${deletedArtifacts} artifacts, kept ${skipped.length} running, freed ${freed + artifactBytes} bytes`);
  return { deletedRuns: deleted, skippedRuns: skipped, deletedArtifacts, freedBytes: freed + artifactBytes };
}

/** "12.3 MiB" */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${v.toFixed(1)} ${units[u]}`;
}
