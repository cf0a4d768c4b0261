/**
 * Handle resolution (docs/contracts.md §2.5): a handle is only a lookup key, and the record behind it is read back
 * and checked before anything is served.
 */
import { promises as fsp } from 'node:fs';
import type { Catalog } from '../catalog/catalog.js';
import type { HandleRow } from '../catalog/reads.js';
import { accessDenied, isMintedHandle, legacyRunToken, type HandleEntry } from '../log/handles.js';
import type { CallFinishedRecord } from '../log/records.js';
import { finishedRecordAt, handlesOf } from '../log/runLog.js';
import type { ReadScope } from '../types.js';

/** docs/contracts.md §2.5. */
const MAX_HANDLE_LENGTH = 256;

export async function resolveHandle(
  catalog: Catalog,
  logPath: (runId: string) => string,
  handle: string,
  scope?: ReadScope,
): Promise<HandleEntry> {
  if (handle.length < 1 || handle.length > MAX_HANDLE_LENGTH) throw accessDenied();
  // Another process's handle is found at once.
  let candidates = catalog.candidates(handle);
  if (candidates.length === 0) {
    // The logs are the truth (docs/architecture.md §6). A legacy handle names its run's token, so that one log is
    // re-read before refusing; a minted handle names nothing, so an unbuilt catalog is built and the unfinished runs
    // checked.
    const token = legacyRunToken(handle);
    const minted = !token && isMintedHandle(handle);
    let runIds = token ? catalog.runsWithToken(token) : [];
    if ((token || minted) && runIds.length === 0 && !catalog.isBuilt()) {
      // A catalog not yet built may lack the run; a built one indexed every run with its log.
      await catalog.ensureBuilt();
      candidates = catalog.candidates(handle);
      if (token) runIds = catalog.runsWithToken(token);
    } else if (minted) {
      await catalog.verifyUnfinished();
      // Looked up again anyway: another process may have re-indexed the run meanwhile.
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
      // Its log changed and was re-indexed: read what the fresh row points at. A growing log must not starve a
      // reader; a finished call's record never moves.
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
