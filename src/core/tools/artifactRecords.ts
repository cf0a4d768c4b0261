/**
 * The artifact store serves only artifacts it knows, and one put by another process (the
 * editor, an MCP server, another window) is known there, not here. This tenant's
 * `evidence_readFile` records hold each artifact's identity (sha256 and size), so an
 * artifact is registered again from them when the store holds a file under its name
 * (`ArtifactStore.hasFile`); small results were never externalized.
 * Every front end uses both: all records when its stores open, one id on a read's miss.
 */
import { makeArtifactRef, type ArtifactStore } from '../artifacts.js';
import { parseRangePath } from '../evidenceWorkspace.js';
import type { CallReport, RunStoreApi } from '../runs/types.js';
import { EvidenceToolNames } from './inputs.js';

/** The runs and artifacts of one tenant. */
type Stores = { readonly runs: Pick<RunStoreApi, 'listRuns' | 'report'>; readonly artifacts: Pick<ArtifactStore, 'has' | 'hasFile' | 'register'> };

/**
 * The artifact a recorded call names: its `artifactId` (`stored: 'artifact'`, the bytes
 * live once). Records written before calls named their artifact (the result was also
 * kept as a blob) are read with the old convention: a successful read's sha256. The one
 * place retention and re-registration learn which artifact a call holds.
 */
export function recordedArtifactId(call: CallReport): string | undefined {
  if (call.artifactId) return call.artifactId;
  return call.tool === EvidenceToolNames.readFile && call.status === 'ok' && call.sha256 ? `artifact-${call.sha256}` : undefined;
}

/** Registers the call's artifact when its file exists and the store does not know it; true if it did. */
async function registerFromCall({ artifacts }: Stores, call: CallReport, id: string): Promise<boolean> {
  if (artifacts.has(id)) return false;
  if (!(await artifacts.hasFile(id))) return false;
  artifacts.register(makeArtifactRef(id, call.resultBytes, call.sha256), call.artifactId ? call.manifestDigest : undefined);
  return true;
}

/**
 * Registers every artifact an `evidence_readFile` call of this tenant stored; returns how
 * many. A run whose log cannot be read is passed to `onUnreadable` and skipped, never fatal.
 */
export async function reregisterArtifacts(stores: Stores, onUnreadable: (runId: string, e: unknown) => void): Promise<number> {
  let count = 0;
  for (const run of await stores.runs.listRuns()) {
    let calls: CallReport[];
    try {
      calls = await stores.runs.report(run.runId);
    } catch (e) {
      onUnreadable(run.runId, e);
      continue;
    }
    for (const call of calls) {
      const id = recordedArtifactId(call);
      if (id !== undefined && (await registerFromCall(stores, call, id))) count++;
    }
  }
  return count;
}

/**
 * Before a virtual read (`.tool-artifacts/<id>/…`) of an id this store does not know,
 * searches this tenant's records for it and registers it when its file exists. Anything
 * else (a plain path, a known id, an id no record names) is left as it is.
 */
export async function learnArtifact(stores: Stores, relPath: string): Promise<void> {
  const range = parseRangePath(relPath);
  if (!range || stores.artifacts.has(range.artifactId)) return;
  if (!(await stores.artifacts.hasFile(range.artifactId))) return;
  for (const summary of await stores.runs.listRuns()) {
    const calls = await stores.runs.report(summary.runId).catch(() => []);
    const call = calls.find((c) => recordedArtifactId(c) === range.artifactId);
    if (call) {
      await registerFromCall(stores, call, range.artifactId);
      return;
    }
  }
}
