/**
 * Narrow views so `run.ts` and `commandCall.ts` import only types: the modules form a line, not a circle
 * (docs/architecture.md §3).
 */
import type { BlobStore } from '../../blobs/blobStore.js';
import type {
  AttachmentRecord,
  CallError,
  CallOutcome,
  CallStatus,
  CaptureProgressEvent,
  Preservation,
  ReadScope,
  ReadToolOutputArgs,
  ReadToolOutputResult,
  RecordResultOptions,
  RunLimits,
  RunRecord,
} from '../types.js';

export interface RunHost {
  readonly tenant: string;
  readonly limits: RunLimits;
  readonly offloadThresholdBytes: number;
  readonly inlineAttachmentBytes: number;
  readonly preservation: Preservation;
  readonly captureCapBytes: number;
  /** docs/contracts.md §2.13. */
  readonly errorLines: boolean;
  readonly blobs: BlobStore | undefined;
  readonly hasCaptureProgressListeners: boolean;
  emitCaptureProgress(event: CaptureProgressEvent): void;
  logPath(runId: string): string;
  /** The catalog's row in the same step. */
  recorded(runId: string, record: RunRecord, bytes: number): Promise<void>;
  readToolOutput(args: ReadToolOutputArgs, scope?: ReadScope): Promise<ReadToolOutputResult>;
}

export interface CallRecorder {
  readonly tenant: string;
  readonly runId: string;
  readonly store: RunHost;
  startCall(tool: string, args: Record<string, unknown>): Promise<{ callId: string; startedAt: string }>;
  finishResult(
    call: { callId: string; startedAt: string },
    tool: string,
    args: Record<string, unknown>,
    body: AsyncIterable<Uint8Array>,
    contentType: string,
    options: RecordResultOptions,
    attachments: AttachmentRecord[],
    failure?: { status: CallStatus; error: CallError },
  ): Promise<CallOutcome>;
}
