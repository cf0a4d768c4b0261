/**
 * `evidence_readFile` over a folder, for every front end: the bounded evidence workspace,
 * and the recording of each read. An externalized result is recorded by naming its
 * artifact (the bytes live once, in the artifact store); a small one is recorded whole.
 */
import { randomUUID } from 'node:crypto';
import type { ArtifactRef, ArtifactStore } from '../artifacts.js';
import { BoundedEvidenceWorkspace, type EvidenceLimits } from '../evidenceWorkspace.js';
import type { RunApi, RunStoreApi } from '../runs/types.js';
import type { ToolWorkspace } from '../toolWorkspace.js';
import { learnArtifact } from './artifactRecords.js';
import { EvidenceToolNames } from './inputs.js';
import { readFileReply } from './readFile.js';

/** What `evidence_readFile` gets back: the model text, and what the call records. */
export interface FileReadOutcome {
  /** What the model sees (the whole result, an observation, a range reply or an `error:`). */
  readonly modelText: string;
  /** The full text the folder returned (absent for virtual reads and errors). */
  readonly fullText?: string;
  /** The artifact an observation names, with its exact bytes (the call records it instead of a second copy). */
  readonly artifact?: { readonly ref: ArtifactRef; readonly bytes: Uint8Array };
}

/** The bounded evidence workspace over a folder, handing back what a recorded read needs. */
export class EvidenceFileWorkspace {
  private constructor(private readonly bounded: BoundedEvidenceWorkspace) {}

  /** Wraps a local folder in the bounded evidence workspace (the limits are checked here, once). */
  static create(local: ToolWorkspace, artifacts: ArtifactStore, limits: Pick<EvidenceLimits, 'maxInlineBytes' | 'previewBytes' | 'maxRangeBytes'>): EvidenceFileWorkspace {
    return new EvidenceFileWorkspace(new BoundedEvidenceWorkspace(local, artifacts, {
      maxInlineBytes: limits.maxInlineBytes,
      previewBytes: limits.previewBytes,
      maxRangeBytes: limits.maxRangeBytes,
    }));
  }

  /** Reads a file (or a virtual range) through the bounded workspace. */
  async readFile(relativePath: string, callId: string): Promise<FileReadOutcome> {
    const r = await this.bounded.executeDetailed({ tool: 'read_file', arguments: { path: relativePath } }, callId);
    if (r.result === undefined || r.result.startsWith('error:')) return { modelText: r.text };
    return { modelText: r.text, fullText: r.result, ...(r.artifact ? { artifact: r.artifact } : {}) };
  }
}

/**
 * One `evidence_readFile` call, as every front end answers it: an artifact another
 * process put is learned from this tenant's records first (so its range paths read at
 * once); the call is recorded in `run`, naming the artifact when the result was
 * externalized (its bytes are kept once: docs/contracts.md §2.9), else with the full
 * text; the reply is `readFileReply`'s. Recording is best-effort (docs/contracts.md §5.6):
 * with no run (it could not start) or a failed record (a full disk), the read is still
 * answered, without a handle, and `log` says why.
 */
export async function readFileRecorded(
  workspace: EvidenceFileWorkspace,
  stores: { readonly runs: Pick<RunStoreApi, 'tenant' | 'queryCalls'>; readonly artifacts: ArtifactStore },
  run: Pick<RunApi, 'recordResult' | 'recordArtifact'> | undefined,
  relPath: string,
  log: (line: string) => void = () => undefined,
): Promise<string> {
  await learnArtifact(stores, relPath);
  const { modelText, fullText, artifact } = await workspace.readFile(relPath, randomUUID());
  const args = { path: relPath };
  let handle: string | undefined;
  if (run) {
    try {
      const outcome = artifact
        ? await run.recordArtifact(EvidenceToolNames.readFile, args, { artifactId: artifact.ref.artifactId, bytes: artifact.bytes, ...(await stores.artifacts.manifestFor(artifact.ref.artifactId)) })
        : await run.recordResult(EvidenceToolNames.readFile, args, fullText ?? modelText, { isError: modelText.startsWith('error:') });
      handle = outcome.handle;
    } catch (e) {
      log(`a read was not recorded (${e instanceof Error ? e.message : String(e)}); it was answered without a handle`);
    }
  }
  return readFileReply(modelText, handle, relPath);
}
