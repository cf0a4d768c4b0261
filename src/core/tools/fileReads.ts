/**
 * `evidence_readFile` for every front end. An externalized result is recorded by naming its artifact, so the bytes
 * live once.
 */
import { randomUUID } from 'node:crypto';
import type { ArtifactRef } from '../artifacts/artifactRef.js';
import type { ArtifactStore } from '../artifacts/artifacts.js';
import type { ConfinedFile } from '../files/confinedOpen.js';
import { isStorageFull, STORAGE_FULL } from '../errors.js';
import { fileTooLargeText, LocalErrorText, type LocalRead } from '../workspace/localWorkspace.js';
import type { ErrorLines, RunApi, StoredArtifact } from '../runs/types.js';
import { piecesOf } from '../files/localFile.js';
import { decodeUtf8Strict } from '../utf8.js';
import type { ToolWorkspace } from '../workspace/toolWorkspace.js';
import { EvidenceToolNames } from './inputs.js';
import {
  BoundedEvidenceWorkspace,
  buildBinaryObservation,
  buildObservation,
  OBSERVATION_PREFIX,
  RANGE_PREFIX,
  VIRTUAL_PREFIX,
  type BoundedResult,
  type EvidenceLimits,
} from '../workspace/evidenceWorkspace.js';
import { errorBlock, searchHint } from '../runs/recording/observation.js';
import { fitsModel, utf8Bytes } from './modelText.js';

export interface FileReadOutcome {
  readonly modelText: string;
  /** Absent for virtual reads, streamed files and errors. */
  readonly fullText?: string;
  /** The call records it instead of a second copy. */
  readonly artifact?: {
    readonly ref: ArtifactRef;
    readonly bytes: StoredArtifact['bytes'];
    readonly pieces?: StoredArtifact['pieces'];
  };
  /** Told by the exact sentence, not a pattern. */
  readonly refusal?: 'tooLarge';
}

interface FileReader {
  readOrOpen(p: unknown): Promise<LocalRead>;
}

/** Bounded memory whatever the file's size. */

export class EvidenceFileWorkspace {
  private constructor(
    private readonly bounded: BoundedEvidenceWorkspace,
    private readonly artifacts: ArtifactStore,
    private readonly reader: FileReader | undefined,
    private readonly tooLargeText: string | undefined,
  ) {}

  /** The limits are checked here, once. */
  static create(
    local: ToolWorkspace,
    artifacts: ArtifactStore,
    limits: Pick<EvidenceLimits, 'maxInlineBytes' | 'previewBytes' | 'maxRangeBytes'>,
  ): EvidenceFileWorkspace {
    const bounded = new BoundedEvidenceWorkspace(local, artifacts, {
      maxInlineBytes: limits.maxInlineBytes,
      previewBytes: limits.previewBytes,
      maxRangeBytes: limits.maxRangeBytes,
    });
    const max = local.policy.maxFileBytes;
    const reader =
      typeof (local as Partial<FileReader>).readOrOpen === 'function' ? (local as unknown as FileReader) : undefined;
    return new EvidenceFileWorkspace(bounded, artifacts, reader, max === undefined ? undefined : fileTooLargeText(max));
  }

  /**
   * One open decides: a file over the limit is streamed from that descriptor, one that is not UTF-8 is kept from the
   * bytes already read (docs/contracts.md §3.3).
   */
  async readFile(relativePath: string, callId: string): Promise<FileReadOutcome> {
    if (this.reader && !relativePath.startsWith(VIRTUAL_PREFIX)) {
      const r = await this.reader.readOrOpen(relativePath);
      if ('error' in r) return { modelText: r.error };
      if ('tooLarge' in r) return this.keepStreamed(r.tooLarge);
      if ('notUtf8' in r) return this.keep(() => this.artifacts.put(r.notUtf8));
      return outcomeOf(await this.bounded.bound(r.text));
    }
    const r = await this.bounded.executeDetailed({ tool: 'read_file', arguments: { path: relativePath } }, callId);
    if (r.result !== undefined && r.result === this.tooLargeText) return { modelText: r.text, refusal: 'tooLarge' };
    return outcomeOf(r);
  }

  /** Up to the size `fstat` gave at the open: a file still growing is read as it was then. */
  private keepStreamed(opened: ConfinedFile): Promise<FileReadOutcome> {
    return this.keep(async () => {
      try {
        return await this.artifacts.putStream(piecesOf(opened.handle, opened.stat.size));
      } finally {
        await opened.handle.close().catch(() => undefined);
      }
    });
  }

  /** docs/contracts.md §3.3: observed from the store's verified bytes. */
  private async keep(put: () => Promise<ArtifactRef>): Promise<FileReadOutcome> {
    let ref: ArtifactRef;
    try {
      ref = await put();
    } catch (e) {
      return {
        modelText: isStorageFull(e) ? `error: the file could not be kept: ${STORAGE_FULL}` : LocalErrorText.unreadable,
      };
    }
    const { manifest } = await this.artifacts.manifestFor(ref.artifactId);
    const n = ref.byteCount;
    const read = (start: number, end: number): Promise<Uint8Array> =>
      start >= end ? Promise.resolve(new Uint8Array(0)) : this.artifacts.readRange(ref.artifactId, start, end);
    const limits = this.bounded.limits;
    if (manifest.utf8 && n <= limits.maxInlineBytes) {
      // Small after all (a limit below the inline bound, or the file changed): shown whole, as §1.2 says.
      const bytes = await read(0, n);
      const text = decodeUtf8Strict(bytes);
      return { modelText: text, fullText: text, artifact: { ref, bytes } };
    }
    // Only the ends and the bytes around the advertised range end are read.
    const p = limits.previewBytes;
    const m = Math.min(limits.maxRangeBytes, n);
    const pieces = await Promise.all(
      [
        [0, Math.min(n, p + 1)],
        [Math.max(0, n - p), n],
        [Math.max(0, m - 3), Math.min(n, m + 1)],
      ].map(async ([a, b]) => ({ start: a!, bytes: await read(a!, b!) })),
    );
    const window = (start: number, end: number): Uint8Array => {
      const piece = pieces.find((q) => q.start <= start && end <= q.start + q.bytes.length);
      if (!piece) throw new RangeError('observation window outside the bytes read');
      return piece.bytes.subarray(start - piece.start, end - piece.start);
    };
    const modelText = manifest.utf8
      ? buildObservation(ref, window, limits)
      : buildBinaryObservation(ref, window, limits);
    // The recording scans the whole file from one reused buffer.
    return { modelText, artifact: { ref, bytes: read, pieces: () => this.artifacts.pieces(ref.artifactId) } };
  }
}

function outcomeOf(r: BoundedResult): FileReadOutcome {
  if (r.result === undefined || r.result.startsWith('error:')) return { modelText: r.text };
  return { modelText: r.text, fullText: r.result, ...(r.artifact ? { artifact: r.artifact } : {}) };
}

/**
 * An artifact another process put reads at once (docs/contracts.md §2.8). Recording is best-effort (§5.6): with no
 * run or a failed record the read is still answered, without a handle.
 */
export async function readFileRecorded(
  workspace: EvidenceFileWorkspace,
  stores: { readonly artifacts: Pick<ArtifactStore, 'manifestFor'> },
  run: Pick<RunApi, 'recordResult' | 'recordArtifact'> | undefined,
  relPath: string,
  log: (line: string) => void = () => undefined,
): Promise<{ text: string; callId?: string }> {
  const { modelText, fullText, artifact, refusal } = await workspace.readFile(relPath, randomUUID());
  const args = { path: relPath };
  let handle: string | undefined;
  let errors: ErrorLines | undefined;
  let callId: string | undefined;
  if (run) {
    try {
      const outcome = artifact
        ? await run.recordArtifact(EvidenceToolNames.readFile, args, {
            artifactId: artifact.ref.artifactId,
            bytes: artifact.bytes,
            ...(artifact.pieces ? { pieces: artifact.pieces } : {}),
            ...(await stores.artifacts.manifestFor(artifact.ref.artifactId)),
          })
        : await run.recordResult(EvidenceToolNames.readFile, args, fullText ?? modelText, {
            isError: modelText.startsWith('error:'),
          });
      handle = outcome.handle;
      errors = outcome.record.errorLines;
      callId = outcome.callId;
    } catch (e) {
      log(`a read was not recorded (${e instanceof Error ? e.message : String(e)}); it was answered without a handle`);
    }
  }
  return {
    text: readFileReply(modelText, handle, relPath, refusal, errors),
    ...(callId !== undefined ? { callId } : {}),
  };
}

export function readFileReply(
  modelText: string,
  handle: string | undefined,
  relPath: string,
  refusal?: 'tooLarge',
  errors?: ErrorLines,
): string {
  // The §1.2 observation stays byte for byte; the error lines follow the hint (docs/contracts.md §2.13).
  if (modelText.startsWith(OBSERVATION_PREFIX) && handle)
    return `${modelText}\n${searchHint(handle)}${errors ? `\n${errorBlock(errors, handle)}` : ''}`;
  if (refusal === 'tooLarge') {
    // Too large to read into memory here, but not too large to keep: say how.
    return (
      `${modelText}; capture it with evidence_runCommand (for example: ` +
      `cat ${JSON.stringify(relPath)}) and search it with read_tool_output`
    );
  }
  if (modelText.startsWith(RANGE_PREFIX) && !fitsModel(modelText)) {
    // A range of control characters grows up to 6x when JSON-escaped.
    return (
      `error: this range would exceed 8 KiB once JSON-escaped ` +
      `(${utf8Bytes(modelText)} bytes); request a smaller range`
    );
  }
  return modelText;
}
