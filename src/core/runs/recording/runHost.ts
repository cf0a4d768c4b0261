/**
 * The two narrow views a live run and its command calls have of each other and of the
 * store that opened them. `RunStore` implements `RunHost`, `Run` implements `CallRecorder`;
 * `run.ts` and `runCommand.ts` import only these types, so the modules form a line
 * (runStore → run → runCommand → runHost), not a circle (docs/architecture.md §3).
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

/** What a live run needs of its store: its limits, its blobs, its log and its reader. */
export interface RunHost {
  readonly tenant: string;
  readonly limits: RunLimits;
  readonly offloadThresholdBytes: number;
  readonly inlineAttachmentBytes: number;
  readonly preservation: Preservation;
  readonly captureCapBytes: number;
  /** Whether first views show error lines (docs/contracts.md §2.13). */
  readonly errorLines: boolean;
  readonly blobs: BlobStore | undefined;
  readonly hasCaptureProgressListeners: boolean;
  emitCaptureProgress(event: CaptureProgressEvent): void;
  logPath(runId: string): string;
  /** Indexes a record its run has just appended to the log (the catalog's row in the same step). */
  recorded(runId: string, record: RunRecord, bytes: number): Promise<void>;
  readToolOutput(args: ReadToolOutputArgs, scope?: ReadScope): Promise<ReadToolOutputResult>;
}

/** What a command call needs of the run it is recorded in. */
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
