/**
 * Handle resolution (docs/contracts.md §2.5): a handle is only a lookup key into this
 * tenant's catalog, and the `call_finished` record behind it is read back from its log
 * and checked before anything is served; every miss is the one access-denied sentence.
 */
import { promises as fsp } from 'node:fs';
import type { Catalog } from '../catalog/catalog.js';
import type { HandleRow } from '../catalog/reads.js';
import { accessDenied, isMintedHandle, legacyRunToken, type HandleEntry } from '../log/handles.js';
import type { CallFinishedRecord } from '../log/records.js';
import { finishedRecordAt, handlesOf } from '../log/runLog.js';
import type { ReadScope } from '../types.js';

/** Longest handle that can resolve (docs/contracts.md §2.5: 1–256 characters). */
const MAX_HANDLE_LENGTH = 256;

/**
 * Resolves a handle through this tenant's catalog; the record is read back from
 * its log and must be a valid `call_finished` of this call that mints this handle.
 */
export async function resolveHandle(
  catalog: Catalog,
  logPath: (runId: string) => string,
  handle: string,
  scope?: ReadScope,
): Promise<HandleEntry> {
  if (handle.length < 1 || handle.length > MAX_HANDLE_LENGTH) throw accessDenied();
  // The database holds what every process indexed up to now: another process's handle is found at once.
  let candidates = catalog.candidates(handle);
  if (candidates.length === 0) {
    // The logs are the truth, the catalog only an index (docs/architecture.md §6). A handle recorded before opaque
    // handles names its run by the run's token (`res_<token>-<n>`, `out_<token>-<n>_<slot>`), so before answering
    // access denied that one run's log is read again, should the catalog lack a row of it: one log, never a scan.
    // A minted handle names nothing, so nothing is taken from it (its shape only says a lookup could find it): a
    // catalog not yet built from the logs (new, lost or damaged) is built (or its build waited for), and the unfinished
    // runs, whose writer may have stopped between its log and the catalog, are checked against their logs (a stat
    // each). A built catalog indexed every other run in the same step as its log (a later record of a run whose index
    // write was lost re-indexes that run).
    const token = legacyRunToken(handle);
    const minted = !token && isMintedHandle(handle);
    let runIds = token ? catalog.runsWithToken(token) : [];
    if ((token || minted) && runIds.length === 0 && !catalog.isBuilt()) {
      // A catalog not yet built from the logs (new, lost or damaged) may lack the run: the build is waited for
      // (or, in a short-lived process, done). A built one indexed every run in the same step as its log.
      await catalog.ensureBuilt();
      candidates = catalog.candidates(handle);
      if (token) runIds = catalog.runsWithToken(token);
    } else if (minted) {
      await catalog.verifyUnfinished();
      // Looked up again even when this process re-indexed nothing: another process (or store) may have
      // re-indexed the run while this one waited on the stat, leaving the row fresh and the first lookup stale.
      candidates = catalog.candidates(handle);
    }
    if (candidates.length === 0 && runIds.length === 1) {
      await catalog.reindex(runIds[0]!);
      candidates = catalog.candidates(handle);
    }
  }
  const only = (): HandleRow => {
    if (candidates.length !== 1) throw accessDenied();
    const c = candidates[0]!;
    if (c.ambiguous || (scope?.runIds && !scope.runIds.includes(c.runId))) throw accessDenied();
    return c;
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    let c = only();
    if (await catalog.verifyRun(c.runId)) {
      // Its log changed since it was indexed (another process still appending to that run, or an altered log)
      // and was re-indexed: read the record the fresh row points at. A log that keeps growing must not starve
      // a reader (the record of a finished call never moves in an append-only log).
      candidates = catalog.candidates(handle);
      c = only();
    }
    const entry = await readEntry(logPath, c, handle);
    if (entry) return entry;
    await catalog.reindex(c.runId);
    candidates = catalog.candidates(handle);
  }
  throw accessDenied();
}

/** The `call_finished` record a catalog row points at, when it is exactly that. */
async function readEntry(
  logPath: (runId: string) => string,
  c: HandleRow,
  handle: string,
): Promise<HandleEntry | undefined> {
  const fh = await fsp.open(logPath(c.runId), 'r').catch(() => undefined);
  if (!fh) return undefined;
  let record: CallFinishedRecord | undefined;
  try {
    record = await finishedRecordAt(fh, c.runId, c.callId, c.logOff, c.logLen);
  } finally {
    await fh.close();
  }
  if (!record || !handlesOf(record).includes(handle)) return undefined;
  return {
    runId: c.runId,
    record,
    ...(record.resultHandle === handle ? {} : { attachment: record.attachments.find((a) => a.handle === handle)! }),
  };
}
