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
import type { CallSummary, RunStoreApi } from '../runs/types.js';
import { EvidenceToolNames } from './inputs.js';

/** The runs and artifacts of one tenant. */
type Stores = { readonly runs: Pick<RunStoreApi, 'queryCalls'>; readonly artifacts: Pick<ArtifactStore, 'has' | 'hasFile' | 'register'> };

/** Calls read per catalog page. */
const PAGE = 1000;

/** The artifact id a listed call's result would have, if it was a successful read. */
function artifactIdOf(call: CallSummary): string | undefined {
  return call.tool === EvidenceToolNames.readFile && call.status === 'ok' && call.sha256 ? `artifact-${call.sha256}` : undefined;
}

/** Registers the call's artifact when its file exists and the store does not know it; true if it did. */
async function registerFromCall({ artifacts }: Stores, call: CallSummary, id: string): Promise<boolean> {
  if (artifacts.has(id)) return false;
  if (!(await artifacts.hasFile(id))) return false;
  artifacts.register(makeArtifactRef(id, call.resultBytes, call.sha256!), call.manifestDigest);
  return true;
}

/**
 * Every successful `evidence_readFile` call of this tenant, page by page from the run
 * catalog (docs/architecture.md §6): never a walk over every run log.
 */
async function* readFileCalls(stores: Stores): AsyncGenerator<CallSummary> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await stores.runs.queryCalls({ offset, limit: PAGE, tool: EvidenceToolNames.readFile, outcome: 'ok', order: 'oldest' });
    yield* page.rows;
    if (offset + PAGE >= page.total) return;
  }
}

/**
 * Registers every artifact an `evidence_readFile` call of this tenant stored; returns how
 * many. A failure to list is passed to `onUnreadable` and ends the pass, never fatal.
 */
export async function reregisterArtifacts(stores: Stores, onUnreadable: (what: string, e: unknown) => void): Promise<number> {
  let count = 0;
  try {
    for await (const call of readFileCalls(stores)) {
      const id = artifactIdOf(call);
      if (id !== undefined && (await registerFromCall(stores, call, id))) count++;
    }
  } catch (e) {
    onUnreadable('the run catalog', e);
  }
  return count;
}

/**
 * Before a virtual read (`.tool-artifacts/<id>/…`) of an id this store does not know,
 * searches this tenant's calls for it and registers it when its file exists. Anything
 * else (a plain path, a known id, an id no record names) is left as it is.
 */
export async function learnArtifact(stores: Stores, relPath: string): Promise<void> {
  const range = parseRangePath(relPath);
  if (!range || stores.artifacts.has(range.artifactId)) return;
  if (!(await stores.artifacts.hasFile(range.artifactId))) return;
  for await (const call of readFileCalls(stores)) {
    if (artifactIdOf(call) === range.artifactId) {
      await registerFromCall(stores, call, range.artifactId);
      return;
    }
  }
}
