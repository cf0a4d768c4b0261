/**
 * Public types of the run layer (docs/contracts.md §2). The editor glue and the inspector code against these names:
 * changes are additive only.
 */
import type { BlobStore } from '../blobs/blobStore.js';
import type { Manifest, RangeSource } from '../integrity/integrity.js';
import type { Disposable } from './log/handles.js';
import type { CallFinishedRecord, CallStatus, RunFinishStatus, RunRecord, RunSource } from './log/records.js';
import type {
  CallFilter,
  CallPage,
  CallQuery,
  CallReport,
  CallReportPage,
  CallReportQuery,
  RunQuery,
  RunSummary,
} from './listingTypes.js';
import type {
  HandleSource,
  ReaderLimits,
  ReadOptions,
  ReadScope,
  ReadToolOutputArgs,
  ReadToolOutputResult,
} from './readingTypes.js';
import type { UsageQuery, UsageReport } from './usage/stats.js';

export type * from './log/records.js';
export type * from './listingTypes.js';
export type * from './readingTypes.js';
export type { Disposable } from './log/handles.js';

export type Preservation = 'best_effort' | 'required';

export type ShownAnswer =
  | {
      readonly view: 'answer';
      readonly runId: string;
      readonly callId: string;
      readonly text: string | number;
      readonly whole?: boolean;
    }
  | { readonly view: 'read'; readonly handle: string; readonly text: string | number };

export interface RunRecordEvent {
  readonly runId: string;
  readonly record: RunRecord;
}

/** docs/contracts.md §3.4, "Live". */
export interface CaptureProgressEvent {
  readonly runId: string;
  readonly callId: string;
  readonly stream: 'stdout' | 'stderr';
  /** Before any cap. */
  readonly bytes: number;
  /** Possibly cut inside a character. */
  readonly tail: Uint8Array;
}

export interface CallOutcome {
  readonly callId: string;
  readonly status: CallStatus;
  readonly handle?: string;
  readonly modelText: string;
  readonly record: CallFinishedRecord;
}

/** Part of the profile hash. */
export interface RunLimits {
  readonly largeResultBytes: number;
  /** Head + tail. */
  readonly previewBytes: number;
}

export interface RunStoreOptions {
  readonly logsDir: string;
  /** False for a process that answers one request and exits (docs/architecture.md §6). */
  readonly maintenance?: boolean;
  readonly tenant: string;
  /** None means elision only; offload records a failure. */
  readonly blobs?: BlobStore;
  readonly limits?: Partial<RunLimits>;
  readonly tools?: readonly string[];
  readonly offloadThresholdBytes?: number;
  readonly inlineAttachmentBytes?: number;
  readonly preservation?: Preservation;
  readonly captureCapBytes?: number;
  /** docs/contracts.md §2.13. False gives the head-and-tail first view alone (the economy bench's baseline). */
  readonly errorLines?: boolean;
  readonly reader?: Partial<ReaderLimits>;
  readonly artifacts?: RecordedArtifacts;
}

export interface RecordedArtifacts {
  /** Learns the manifest from the record when this store did not know it. */
  openRecorded(
    ref: { artifactId: string; byteCount: number; sha256: string },
    manifestDigest: string,
  ): Promise<{ manifest: Manifest; source: RangeSource }>;
}

export interface StoredArtifact {
  readonly artifactId: string;
  readonly manifest: Manifest;
  readonly manifestDigest: string;
  /** Or a reader of its ranges, always elided (contracts §2.9). */
  readonly bytes: Uint8Array | ((start: number, end: number) => Promise<Uint8Array>);
  /** Pieces may reuse one buffer (each valid until the next). */
  readonly pieces?: () => AsyncIterable<Uint8Array>;
}

export interface StartRunOptions {
  readonly label?: string;
  readonly pinned?: boolean;
  readonly source?: RunSource;
}

export interface RecordResultOptions {
  /** The bytes are still kept. */
  readonly isError?: boolean;
  readonly contentType?: string;
}

export interface RunCommandOptions {
  readonly cwd: string;
  readonly timeoutMs?: number;
  readonly captureCapBytes?: number;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  readonly tool?: string;
  /**
   * Capture waits for the returned promise, so a slow terminal slows the command instead of piling output up in
   * memory.
   */
  readonly onOutput?: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void | Promise<void>;
  /** Relative to `cwd`: each that exists afterwards becomes a `file:<path>` attachment. */
  readonly files?: readonly string[];
}

export interface PruneOptions {
  /** Oldest deleted first. */
  readonly maxBytes?: number;
  readonly maxAgeMs?: number;
  readonly now?: number;
  /** So a year of runs never stalls its caller. */
  readonly sliceRuns?: number;
  readonly cursor?: string;
}

export interface PruneResult {
  readonly deletedRuns: readonly string[];
  readonly freedBytes: number;
  readonly more?: boolean;
  readonly cursor?: string;
}

export interface RunStoreApi {
  readonly tenant: string;
  readonly searchTimeoutMs: number;
  startRun(options?: StartRunOptions): Promise<RunApi>;
  listRuns(): Promise<RunSummary[]>;
  report(runId: string): Promise<CallReport[]>;
  /** docs/contracts.md §2.5. */
  readToolOutput(args: ReadToolOutputArgs, scope?: ReadScope, options?: ReadOptions): Promise<ReadToolOutputResult>;
  openHandle(handle: string, scope?: ReadScope): Promise<HandleSource>;
  onDidRecord(listener: (event: RunRecordEvent) => void): Disposable;
  onDidCaptureProgress?(listener: (event: CaptureProgressEvent) => void): Disposable;
  /** Refused while the run is live in this store. */
  deleteRun(runId: string): Promise<void>;
  setPinned(runId: string, pinned: boolean): Promise<void>;
  prune(options: PruneOptions): Promise<PruneResult>;
  /** docs/architecture.md §6. */
  queryCalls(query: CallQuery): Promise<CallPage>;
  /** docs/contracts.md §3.4. */
  callIndex(query: CallFilter, runId: string, callId: string): Promise<number | undefined>;
  /** O(page) log reads (docs/architecture.md §6). */
  callReports(query: CallReportQuery): Promise<CallReportPage>;
  queryRuns(query: RunQuery): Promise<RunSummary[]>;
  /** docs/architecture.md §6. */
  reconcileWithLogs(): Promise<void>;
  /**
   * From the catalog: no stat per log. `runs`, `bytes` and `calls` are this storage's; `teamRuns` (refused ones
   * included) and `teamCalls` only where team stores are listed too.
   */
  totals(): Promise<{ runs: number; bytes: number; calls?: number; teamRuns?: number; teamCalls?: number }>;
  /** docs/contracts.md §2.14. Never throws. */
  recordShown(shown: ShownAnswer): Promise<void>;
  /** From the catalog's rollup: no log is read (docs/contracts.md §2.14). */
  usage(query?: UsageQuery): Promise<UsageReport>;
}

export interface RunApi {
  readonly runId: string;
  readonly tenant: string;
  recordResult(
    tool: string,
    args: Record<string, unknown>,
    result: string | Uint8Array | object,
    options?: RecordResultOptions,
  ): Promise<CallOutcome>;
  /** Nothing is stored twice. */
  recordArtifact(
    tool: string,
    args: Record<string, unknown>,
    artifact: StoredArtifact,
    options?: RecordResultOptions,
  ): Promise<CallOutcome>;
  /** Bounded memory. */
  recordStream(
    tool: string,
    args: Record<string, unknown>,
    body: AsyncIterable<Uint8Array>,
    options?: RecordResultOptions,
  ): Promise<CallOutcome>;
  runCommand(command: string, options: RunCommandOptions): Promise<CallOutcome>;
  readToolOutput(args: ReadToolOutputArgs): Promise<ReadToolOutputResult>;
  /** Once; later calls do nothing. */
  finish(status?: RunFinishStatus): Promise<void>;
}
