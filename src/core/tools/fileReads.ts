/**
 * `evidence_readFile` over a folder, for every front end: the bounded evidence workspace
 * plus the one thing the core's `execute` does not hand back, the full result behind an
 * observation, so that the call can be recorded whole (and searched by handle).
 */
import { randomUUID } from 'node:crypto';
import type { ArtifactStore } from '../artifacts.js';
import { BoundedEvidenceWorkspace, type EvidenceLimits } from '../evidenceWorkspace.js';
import type { RunApi, RunStoreApi } from '../runs/types.js';
import type { ToolAction, ToolWorkspace } from '../toolWorkspace.js';
import { learnArtifact } from './artifactRecords.js';
import { EvidenceToolNames } from './inputs.js';
import { readFileReply } from './readFile.js';

/** What `evidence_readFile` gets back: the model text, and the full result when there was one. */
export interface FileReadOutcome {
  /** What the model sees (the whole result, an observation, a range reply or an `error:`). */
  readonly modelText: string;
  /** The full text the folder returned (absent for virtual reads and errors). */
  readonly fullText?: string;
}

/**
 * The bounded evidence workspace plus the one thing the core's `execute` does not hand
 * back: the full result behind an observation, so the call can be recorded whole.
 */
export class EvidenceFileWorkspace {
  private constructor(private readonly bounded: BoundedEvidenceWorkspace, private readonly capture: CapturingWorkspace) {}

  /** Wraps a local folder in a capturing layer and the bounded evidence workspace (the limits are checked here, once). */
  static create(local: ToolWorkspace, artifacts: ArtifactStore, limits: Pick<EvidenceLimits, 'maxInlineBytes' | 'previewBytes' | 'maxRangeBytes'>): EvidenceFileWorkspace {
    const capture = new CapturingWorkspace(local);
    const bounded = new BoundedEvidenceWorkspace(capture, artifacts, {
      maxInlineBytes: limits.maxInlineBytes,
      previewBytes: limits.previewBytes,
      maxRangeBytes: limits.maxRangeBytes,
    });
    return new EvidenceFileWorkspace(bounded, capture);
  }

  /** Reads a file (or a virtual range) through the bounded workspace. */
  async readFile(relativePath: string, callId: string): Promise<FileReadOutcome> {
    const modelText = await this.bounded.execute({ tool: 'read_file', arguments: { path: relativePath } }, callId);
    const fullText = this.capture.take(callId);
    return fullText === undefined || fullText.startsWith('error:') ? { modelText } : { modelText, fullText };
  }
}

/** Passes every action through and keeps each result by call id until taken. */
class CapturingWorkspace implements ToolWorkspace {
  private readonly results = new Map<string, string>();
  constructor(private readonly inner: ToolWorkspace) {}
  get policy(): ToolWorkspace['policy'] { return this.inner.policy; }
  get availableTools(): ToolWorkspace['availableTools'] { return this.inner.availableTools; }
  get modifiedFiles(): ToolWorkspace['modifiedFiles'] { return this.inner.modifiedFiles; }
  async execute(action: ToolAction, toolCallId?: string): Promise<string> {
    const result = await this.inner.execute(action, toolCallId);
    if (toolCallId !== undefined) this.results.set(toolCallId, result);
    return result;
  }
  take(callId: string): string | undefined {
    const r = this.results.get(callId);
    this.results.delete(callId);
    return r;
  }
}

/**
 * One `evidence_readFile` call, as every front end answers it: an artifact another
 * process put is learned from this tenant's records first (so its range paths read at
 * once), the full text is recorded in `run`, and the reply is `readFileReply`'s.
 */
export async function readFileRecorded(
  workspace: EvidenceFileWorkspace,
  stores: { readonly runs: Pick<RunStoreApi, 'tenant' | 'queryCalls'>; readonly artifacts: ArtifactStore },
  run: Pick<RunApi, 'recordResult'>,
  relPath: string,
): Promise<string> {
  await learnArtifact(stores, relPath);
  const { modelText, fullText } = await workspace.readFile(relPath, randomUUID());
  const outcome = await run.recordResult(EvidenceToolNames.readFile, { path: relPath }, fullText ?? modelText, { isError: modelText.startsWith('error:') });
  return readFileReply(modelText, outcome.handle, relPath);
}
