/**
 * Public types of the run layer (docs/contracts.md §2): the options and surfaces of
 * `RunStore` / `Run` and their events; the run-log records (`log/records.ts`), what is
 * listed and reported (`listingTypes.ts`) and what `read_tool_output` takes and gives
 * (`readingTypes.ts`) are re-exported. The editor glue and the inspector code against these
 * names: changes here are additive only.
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

/** Whether losing bytes (no blob store wired) is acceptable or fails the call. */
export type Preservation = 'best_effort' | 'required';

/** What a front end says it handed a model (`RunStore.recordShown`). */
export type ShownAnswer =
  | {
      readonly view: 'answer';
      readonly runId: string;
      readonly callId: string;
      readonly text: string | number;
      readonly whole?: boolean;
    }
  | { readonly view: 'read'; readonly handle: string; readonly text: string | number };

/** Emitted after a record is appended by this store. */
export interface RunRecordEvent {
  readonly runId: string;
  readonly record: RunRecord;
}

/** How far a running command's capture has come on one stream (docs/contracts.md §3.4, "Live"). */
export interface CaptureProgressEvent {
  readonly runId: string;
  readonly callId: string;
  readonly stream: 'stdout' | 'stderr';
  /** Bytes read from the stream so far (what the capture has seen, before any cap). */
  readonly bytes: number;
  /** A copy of the stream's last bytes (at most `captureTailBytes`), possibly cut inside a character. */
  readonly tail: Uint8Array;
}

/** What `recordResult`/`runCommand` return. */
export interface CallOutcome {
  readonly callId: string;
  readonly status: CallStatus;
  /** The result's handle (`res_…`) when elided or offloaded. */
  readonly handle?: string;
  /** Bounded text for the model: the whole result when small, else handle, preview and how to read. */
  readonly modelText: string;
  readonly record: CallFinishedRecord;
}

/** The agent's limits (part of the profile hash). */
export interface RunLimits {
  /** Elision threshold: results larger than this are shown as handle + preview. */
  readonly largeResultBytes: number;
  /** Bytes of preview shown for an elided result or attachment (head + tail). */
  readonly previewBytes: number;
}

/** `RunStore.open` options. */
export interface RunStoreOptions {
  /** Folder of run logs: `<logsDir>/<tenant>/<runId>.jsonl`. Created if missing. */
  readonly logsDir: string;
  /**
   * Whether the catalog's start-up maintenance runs in the background (default true); false for a process that
   * answers one request and exits (docs/architecture.md §6).
   */
  readonly maintenance?: boolean;
  /** One safe path segment; handles of other tenants are access denied. */
  readonly tenant: string;
  /** Where offloaded bytes go; none means elision only, offload records a failure. */
  readonly blobs?: BlobStore;
  readonly limits?: Partial<RunLimits>;
  /** Tool names of the agent profile (hashed with the limits). */
  readonly tools?: readonly string[];
  /** Results above this many bytes go to the blob store (default 16 KiB). */
  readonly offloadThresholdBytes?: number;
  /** Attachments up to this many bytes stay inline in the record (default 4 KiB). */
  readonly inlineAttachmentBytes?: number;
  readonly preservation?: Preservation;
  /** Per-stream capture cap for commands (default: none, Infinity). */
  readonly captureCapBytes?: number;
  /**
   * Whether the first view of a large output shows its error lines (docs/contracts.md §2.13; default
   * true). False gives the head-and-tail first view alone (the economy bench's baseline in the same run).
   */
  readonly errorLines?: boolean;
  readonly reader?: Partial<ReaderLimits>;
  /** Where results recorded as `stored: 'artifact'` are read (the artifact store of the same tenant). */
  readonly artifacts?: RecordedArtifacts;
}

/** Verified access to the artifact a record names (an `ArtifactStore`). */
export interface RecordedArtifacts {
  /**
   * Opens the artifact `ref` with the manifest whose digest the record kept, learning it
   * from the record when this store did not know it; `notAvailable` when no file is there.
   */
  openRecorded(
    ref: { artifactId: string; byteCount: number; sha256: string },
    manifestDigest: string,
  ): Promise<{ manifest: Manifest; source: RangeSource }>;
}

/** An artifact already stored, recorded as a call's result without a second copy (`Run.recordArtifact`). */
export interface StoredArtifact {
  readonly artifactId: string;
  /** The artifact's trusted manifest and its digest (the record keeps the digest). */
  readonly manifest: Manifest;
  readonly manifestDigest: string;
  /** The bytes, for the preview (not stored again); or a reader of its ranges, always elided (contracts §2.9). */
  readonly bytes: Uint8Array | ((start: number, end: number) => Promise<Uint8Array>);
  /** With a reader: the bytes in order, verified, in pieces that may reuse one buffer (each valid until the next). */
  readonly pieces?: () => AsyncIterable<Uint8Array>;
}

/** `RunStore.startRun` options. */
export interface StartRunOptions {
  readonly label?: string;
  readonly pinned?: boolean;
  /** Recorded in `run_started` (absent: the reader assumes `{ kind: 'tool' }`). */
  readonly source?: RunSource;
}

/** `Run.recordResult` / `Run.recordStream` options. */
export interface RecordResultOptions {
  /** The tool reported an error: status `error` (the bytes are still kept). */
  readonly isError?: boolean;
  /** Overrides the detected content type. */
  readonly contentType?: string;
}

/** `Run.runCommand` options. */
export interface RunCommandOptions {
  /** Working directory of the shell. */
  readonly cwd: string;
  /** Kills the whole process group after this many milliseconds. */
  readonly timeoutMs?: number;
  /** Per-stream cap for this call (default: the store's `captureCapBytes`). */
  readonly captureCapBytes?: number;
  /** Aborting kills the whole process group. */
  readonly signal?: AbortSignal;
  /** Environment of the shell (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Tool name to record (default `run_command`). */
  readonly tool?: string;
  /**
   * Sees every piece of stdout/stderr as it is captured (the command line's `--tee`);
   * capture waits for the returned promise, so a slow terminal slows the command
   * instead of piling output up in memory.
   */
  readonly onOutput?: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void | Promise<void>;
  /** Files the command writes, relative to `cwd`: each that exists afterwards becomes a `file:<path>` attachment. */
  readonly files?: readonly string[];
}

/** `RunStore.prune` options. */
export interface PruneOptions {
  /** Keep the total of unpinned runs at or below this many bytes (oldest deleted first). */
  readonly maxBytes?: number;
  /** Delete unpinned runs that finished longer ago than this. */
  readonly maxAgeMs?: number;
  /** Clock for tests (ms since epoch). */
  readonly now?: number;
  /** Examine at most this many runs (oldest first) and return, so a year of runs never stalls its caller. */
  readonly sliceRuns?: number;
  /** Where the previous slice stopped (its `cursor`). */
  readonly cursor?: string;
}

/** What `prune` deleted. */
export interface PruneResult {
  readonly deletedRuns: readonly string[];
  readonly freedBytes: number;
  /** Set by a sliced prune: true when runs remain to examine. */
  readonly more?: boolean;
  /** Pass as `cursor` to examine the next slice. */
  readonly cursor?: string;
}

/** The surface of `RunStore` (one per tenant), which `RunStore.open(options)` returns. */
export interface RunStoreApi {
  readonly tenant: string;
  /** The reader's time limit of one search (`searchTimeoutMs`), which `evidence_search` spends across every output. */
  readonly searchTimeoutMs: number;
  /** Starts a run: appends `run_started` and returns the live run. */
  startRun(options?: StartRunOptions): Promise<RunApi>;
  /** Every run of this tenant, newest first. */
  listRuns(): Promise<RunSummary[]>;
  /** Every call of one run, in start order. */
  report(runId: string): Promise<CallReport[]>;
  /** docs/contracts.md §2.5; handles outside `scope` (default: this tenant) are access denied. */
  readToolOutput(args: ReadToolOutputArgs, scope?: ReadScope, options?: ReadOptions): Promise<ReadToolOutputResult>;
  /** Verified byte access behind a handle (same resolution and refusals as the reader). */
  openHandle(handle: string, scope?: ReadScope): Promise<HandleSource>;
  /** Called after every record this store appends. */
  onDidRecord(listener: (event: RunRecordEvent) => void): Disposable;
  /**
   * Called while a command runs, with how far each stream has come (optional: stores without live commands omit it).
   */
  onDidCaptureProgress?(listener: (event: CaptureProgressEvent) => void): Disposable;
  /** Deletes a run's log and blobs (refused while the run is live in this store). */
  deleteRun(runId: string): Promise<void>;
  /** Pins or unpins a run (an appended `run_pinned` record). */
  setPinned(runId: string, pinned: boolean): Promise<void>;
  /** Retention: deletes oldest unpinned, not-running runs first. */
  prune(options: PruneOptions): Promise<PruneResult>;
  /** One page of calls from the catalog, sorted and filtered (docs/architecture.md §6). */
  queryCalls(query: CallQuery): Promise<CallPage>;
  /** Where a call is in the list these filters give, or undefined when they hide it (docs/contracts.md §3.4). */
  callIndex(query: CallFilter, runId: string, callId: string): Promise<number | undefined>;
  /** One page of calls with their records (the inspector's list): O(page) log reads (docs/architecture.md §6). */
  callReports(query: CallReportQuery): Promise<CallReportPage>;
  /** Runs whose id or label contains `text`, newest first, at most `limit`. */
  queryRuns(query: RunQuery): Promise<RunSummary[]>;
  /** Compares the catalog with the logs folder: indexes the logs it lacks, drops runs whose log is gone (§6). */
  reconcileWithLogs(): Promise<void>;
  /** How many runs this tenant keeps and their bytes, from the catalog (no stat per log). */
  totals(): Promise<{ runs: number; bytes: number; calls?: number }>;
  /** Notes what a model was handed of a recorded call (docs/contracts.md §2.14). Never throws. */
  recordShown(shown: ShownAnswer): Promise<void>;
  /** Savings over a time range (docs/contracts.md §2.14), from the catalog's rollup: no log is read. */
  usage(query?: UsageQuery): Promise<UsageReport>;
}

/** The surface of a live `Run`. */
export interface RunApi {
  readonly runId: string;
  readonly tenant: string;
  /** Records one tool result: text, raw bytes, or a structured value (compact JSON). */
  recordResult(
    tool: string,
    args: Record<string, unknown>,
    result: string | Uint8Array | object,
    options?: RecordResultOptions,
  ): Promise<CallOutcome>;
  /** Records a result the artifact store already holds: the record names the artifact, nothing is stored twice. */
  recordArtifact(
    tool: string,
    args: Record<string, unknown>,
    artifact: StoredArtifact,
    options?: RecordResultOptions,
  ): Promise<CallOutcome>;
  /** Records a result streamed in pieces (a large file import) in bounded memory. */
  recordStream(
    tool: string,
    args: Record<string, unknown>,
    body: AsyncIterable<Uint8Array>,
    options?: RecordResultOptions,
  ): Promise<CallOutcome>;
  /** Runs `/bin/sh -c command`, capturing stdout, stderr and the exit value as attachments. */
  runCommand(command: string, options: RunCommandOptions): Promise<CallOutcome>;
  /** `read_tool_output` limited to this run's own handles. */
  readToolOutput(args: ReadToolOutputArgs): Promise<ReadToolOutputResult>;
  /** Appends `run_finished` (once; later calls do nothing). */
  finish(status?: RunFinishStatus): Promise<void>;
}
