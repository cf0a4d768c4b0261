/**
 * Public types of the run layer (docs/contracts.md §2): reports, `read_tool_output`
 * arguments and results, and the options of `RunStore` / `Run`; the run-log records
 * (records.ts) are re-exported. The editor glue and the inspector code against these
 * names: changes here are additive only.
 */
import type { BlobStore } from '../blobs/blobStore.js';
import type { Manifest, RangeSource } from '../integrity/integrity.js';
import type { Disposable } from './log/handles.js';
import type {
  AttachmentRecord,
  CallError,
  CallErrorCode,
  CallFinishedRecord,
  CallStatus,
  ErrorLines,
  LogProblem,
  PreviewRange,
  RunFinishStatus,
  RunRecord,
  RunSource,
  StorageState,
} from './log/records.js';
import type { UsageQuery, UsageReport } from './usage/stats.js';

export type * from './log/records.js';
export type { Disposable } from './log/handles.js';

/** Whether losing bytes (no blob store wired) is acceptable or fails the call. */
export type Preservation = 'best_effort' | 'required';

/**
 * A run's state as read back: a finish status, `running` (open in this store, or
 * unfinished and its log touched recently), or `interrupted` (unfinished and idle: the
 * process that wrote it is gone).
 */
export type RunStatus = 'running' | 'interrupted' | RunFinishStatus;

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

/**
 * How far a running command's capture has come (docs/contracts.md §3.4, "Live"): bytes
 * read so far from one stream and the last bytes of it. Reported at most every
 * `captureProgressMs` per stream while it runs; the recorded bytes are not touched.
 */
export interface CaptureProgressEvent {
  readonly runId: string;
  readonly callId: string;
  readonly stream: 'stdout' | 'stderr';
  /** Bytes read from the stream so far (what the capture has seen, before any cap). */
  readonly bytes: number;
  /** A copy of the stream's last bytes (at most `captureTailBytes`), possibly cut inside a character. */
  readonly tail: Uint8Array;
}

/** One run, as `listRuns` reports it. */
export interface RunSummary {
  readonly runId: string;
  readonly tenant: string;
  readonly label?: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly status: RunStatus;
  readonly pinned: boolean;
  readonly profileHash: string;
  /** Who started the run, from `run_started` (absent in older logs: `{ kind: 'tool' }`). */
  readonly source?: RunSource;
  /** Finished calls. */
  readonly callCount: number;
  /**
   * Finished calls that failed (an error, a non-zero exit, a signal, a time limit, a cancel): a completed run with one
   * failed.
   */
  readonly failedCalls: number;
  /** Log bytes plus kept blob bytes (what deleting the run frees, near enough). */
  readonly totalBytes: number;
  /** True when the log's last line was torn and ignored. */
  readonly tornTail: boolean;
  /** Every skipped line (torn tail included). */
  readonly problems: readonly LogProblem[];
}

/** Who started a run, as listed: the `run_started` record's `source` (older logs list as `{ kind: 'tool' }`). */
export type ListedRunSource = RunSource;

/** One call as the catalog lists it (the inspector's row): no preview, no arguments. */
export interface CallSummary {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** `running`/`interrupted` for a call with no finish record. */
  readonly status: CallStatus | 'running' | 'interrupted';
  readonly errorCode?: CallErrorCode;
  /** A command's exit code (null when it ended by a signal); absent for other tools. */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly timedOut?: boolean;
  readonly cancelled?: boolean;
  /** Full result size (0 while unfinished). */
  readonly resultBytes: number;
  readonly stored?: StorageState;
  /** First 12 hex digits of the result's sha256 (what a row shows). */
  readonly sha256Prefix?: string;
  /** The result's whole sha256 (an `evidence_readFile` artifact is named by it). */
  readonly sha256?: string;
  /** The result's handle (`res_…`) when the result was elided or offloaded. */
  readonly handle?: string;
  readonly attachments: readonly {
    readonly name: string;
    readonly handle: string;
    readonly sizeBytes: number;
    readonly stored: StorageState;
  }[];
  /** The run's source (`tool` when its log predates sources). */
  readonly source: ListedRunSource;
  readonly runLabel?: string;
  /** Manifest digest of the artifact the call names (its bytes live once, docs/contracts.md §2.9). */
  readonly manifestDigest?: string;
  /** Where the call's `call_finished` line is in its run log (byte offset and length), as the catalog holds it. */
  readonly logRecord?: { readonly offset: number; readonly length: number };
}

/** A page request over every call of the tenant (`RunStore.queryCalls`). */
export interface CallQuery {
  readonly offset: number;
  /** 1–1000. */
  readonly limit: number;
  /** Default `newest` (start time); `largest` by result plus attachment bytes. */
  readonly order?: 'newest' | 'oldest' | 'largest';
  readonly runId?: string;
  /** Only the call with this id (exact; with `runId`, the run it belongs to): a whole handle names one call. */
  readonly callId?: string;
  readonly tool?: string;
  /**
   * `ok`: status ok; `failed`: error, failed, interrupted, or a command recorded ok that exited non-zero, by a signal,
   * timed out or was cancelled; `running`: not finished yet.
   */
  readonly outcome?: 'ok' | 'failed' | 'running';
  readonly source?: ListedRunSource['kind'];
  /** Case-insensitive substring of the tool, run id, call id or run label. */
  readonly text?: string;
}

/** One page of calls: `total` matches the filters, `rows` starts at `offset`. */
export interface CallPage {
  readonly total: number;
  readonly offset: number;
  readonly rows: readonly CallSummary[];
}

/** `RunStore.callReports`: a page of calls as `queryCalls` selects them, plus the list's facets when asked. */
/** The filters and order of a `CallQuery`, without its page. */
export type CallFilter = Omit<CallQuery, 'offset' | 'limit'>;

export interface CallReportQuery extends CallQuery {
  /**
   * Also return every tool name and run source kind the tenant's listed calls and runs use (the inspector's pickers).
   */
  readonly withFacets?: boolean;
}

/**
 * One page of calls with everything the inspector's rows and detail header show
 * (docs/architecture.md §6): each call exactly as `report(runId)` gives it, read back
 * from its run log by the offset the catalog holds, so a page costs O(page), not O(runs).
 */
export interface CallReportPage {
  /** Calls matching the filters. */
  readonly total: number;
  readonly offset: number;
  /** The page's calls in the query's order. */
  readonly calls: readonly CallReport[];
  /** The runs those calls belong to (for the list's run headers), in order of first appearance. */
  readonly runs: readonly RunSummary[];
  /** Distinct tool names of every listed call, sorted (only when `withFacets`). */
  readonly tools?: readonly string[];
  /** Distinct source kinds of every listed run, sorted (only when `withFacets`). */
  readonly sources?: readonly ListedRunSource['kind'][];
  /** Run-log reads the page cost: one per finished call, one whole log per run with an unfinished call. */
  readonly logReads: number;
}

/** A search over runs for pickers (`RunStore.queryRuns`): newest first. */
export interface RunQuery {
  /** Case-insensitive substring of the run id or label. */
  readonly text?: string;
  /**
   * Only these runs, in this order (the listed ones among them; `text` and `offset` do not apply): a lookup, no walk.
   */
  readonly runIds?: readonly string[];
  /** Matching runs to skip (newest first), 0 when absent. */
  readonly offset?: number;
  /** 1–1000. */
  readonly limit: number;
}

/** One call, as `report(runId)` returns it: full size, handle and the preview the model saw. */
export interface CallReport {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  /** `running`/`interrupted` for a call with no finish record. */
  readonly status: CallStatus | 'running' | 'interrupted';
  readonly error?: CallError;
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** Full size (0 while unfinished). */
  readonly resultBytes: number;
  readonly elided: boolean;
  /** The result's handle (`res_…`) when elided or offloaded. */
  readonly handle?: string;
  readonly preview: string;
  readonly previewRange?: PreviewRange;
  readonly sha256?: string;
  readonly stored?: StorageState;
  /** The artifact holding the result (`stored: 'artifact'`), and its manifest's digest. */
  readonly artifactId?: string;
  readonly manifestDigest?: string;
  readonly readable: boolean;
  readonly contentType?: string;
  readonly lineCount?: number;
  readonly binary: boolean;
  readonly attachments: readonly AttachmentRecord[];
  /** The result's error lines as its first view showed them (docs/contracts.md §2.13). */
  readonly errorLines?: ErrorLines;
}

/** Arguments of `read_tool_output` (docs/contracts.md §2.5); validated at run time as untrusted input. */
export interface ReadToolOutputArgs {
  /** 1–256 characters; anything not minted by the scope's runs is access denied. */
  readonly handle: string;
  /** >= 0, default 0: first line (lines mode) or first match (pattern mode) to return. */
  readonly offset?: number;
  /** 1–1000, default 200: lines or matches to return. */
  readonly limit?: number;
  /** A JavaScript regular expression (no flags), 1–1024 characters, tested per line. */
  readonly pattern?: string;
  /** A byte window `[start, end)` with the rules of docs/contracts.md §1.3. */
  readonly bytes?: { readonly start: number; readonly end: number };
}

/** One pattern match: where the matching line's first match is (docs/contracts.md §2.10). */
export interface ReadToolOutputMatch {
  /** 1-based line number, like `grep -n`. */
  readonly line_number: number;
  /** Offset of the match in the output, in bytes. */
  readonly byte_offset: number;
  /** 1-based byte column of the match in its line. */
  readonly column: number;
  /** Set when the line was too long to show whole: the output byte range [start, end) shown around the match. */
  readonly window?: { readonly start: number; readonly end: number };
}

/**
 * The reply of `read_tool_output`, exactly the contract's fields. `content`: lines mode,
 * the window's lines joined by `\n`; pattern mode, one `<line_number>:<line>` per match
 * joined by `\n`; bytes mode, the window's text. Empty for binary content.
 */
export interface ReadToolOutputResult {
  readonly handle: string;
  readonly binary: boolean;
  readonly total_size_bytes: number;
  readonly total_lines: number;
  readonly offset: number;
  readonly limit: number;
  readonly pattern: string | null;
  /** Matches in the whole output (pattern mode), else null. */
  readonly total_matches: number | null;
  readonly returned_lines: number;
  /** True when more remains after what was returned (lines, matches, bytes, or a cut line). */
  readonly truncated: boolean;
  readonly content: string;
  /** Pattern mode: one entry per returned match, in `content` order; else null. */
  readonly matches: readonly ReadToolOutputMatch[] | null;
  /**
   * Set when the output was cut at a capture cap: bytes [start, end) of `observed` were
   * kept, and every line, match and count in this reply is over those bytes only.
   */
  readonly kept_bytes?: { readonly start: number; readonly end: number; readonly observed: number };
  /** Bytes mode over binary content: the byte range [start, end) the hex dump in `content` shows. */
  readonly hex_dump?: { readonly start: number; readonly end: number };
}

/** Which runs a handle may resolve through (default: every run of the store's tenant). */
export interface ReadScope {
  /** Only handles minted by these runs resolve. */
  readonly runIds?: readonly string[];
}

/** Verified access to the bytes behind one handle (for the inspector and the editor). */
export interface HandleSource {
  readonly handle: string;
  readonly runId: string;
  readonly callId: string;
  /** `result` for `res_…`, else the attachment's name (`stdout`, `file:<name>`, …). */
  readonly name: string;
  readonly byteCount: number;
  readonly sha256: string;
  readonly binary: boolean;
  readonly contentType: string;
  readonly lineCount: number;
  readonly stored: StorageState;
  /**
   * The sparse line index recorded when the bytes were written: `\n` count per chunk of
   * `chunkSize` bytes. It is part of the manifest whose digest the record holds, so it is
   * as trustworthy as the chunk digests; readers use it instead of a counting pass
   * (absent on sources that have no manifest).
   */
  readonly newlineIndex?: { readonly chunkSize: number; readonly chunkNewlines: Uint32Array };
  /** Verified bytes `[start, end)` (raw, no UTF-8 requirement). */
  readRange(start: number, end: number): Promise<Uint8Array>;
  /** Verified bytes streamed in bounded pieces. */
  stream(start?: number, end?: number): AsyncIterable<Uint8Array>;
  /** Re-hashes everything: true when every byte matches the record. */
  verify(): Promise<boolean>;
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

/** Bounds of a `read_tool_output` reply and its pattern guard. */
export interface ReaderLimits {
  /** At most this many characters of `content` (contract: 10,000). */
  readonly maxContentChars: number;
  /** At most this many characters per line, cut marker included (contract: 2,000). */
  readonly maxLineChars: number;
  /** Largest byte window `end - start` (8,192 by default). */
  readonly maxByteWindow: number;
  /** Time a pattern may spend on one piece (≤ 1 MiB) before the search is stopped (catastrophic backtracking). */
  readonly patternBudgetMs: number;
  /** Overall time limit of one pattern search, however large the output (default 30 s). */
  readonly searchTimeoutMs: number;
}

/** Per-call options of `readToolOutput`. */
export interface ReadOptions {
  /**
   * Aborting stops a pattern search (the model's cancellation, MCP `notifications/cancelled`, the inspector's Cancel).
   */
  readonly signal?: AbortSignal;
  /**
   * An overall deadline (epoch ms) this read shares with others (`evidence_search` spends
   * one time limit across every output): a pattern search's own limit is what remains of
   * it when that is less (docs/contracts.md §2.11).
   */
  readonly deadline?: number;
  /**
   * A larger cap on `content` for a front end that is not a model and keeps the reply to
   * page through it (the inspector reads a block of up to 1,000 matches once and serves
   * its pages of 50 from it). Never lowers the store's own cap; each line keeps its cap.
   */
  readonly maxContentChars?: number;
}

/** `RunStore.open` options. */
export interface RunStoreOptions {
  /** Folder of run logs: `<logsDir>/<tenant>/<runId>.jsonl`. Created if missing. */
  readonly logsDir: string;
  /**
   * Whether opening starts the catalog's start-up maintenance a second after the open,
   * in the background (default true): the check against the logs folder (which lists every
   * log), the first build from the logs, `quick_check`. False for a process that answers
   * one request and exits (the command line): the long-lived front ends (editor, MCP
   * server) and `list` do it (docs/architecture.md §2.4, §6).
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
  /**
   * The bytes, for the preview's head and tail (not stored again); or, for an artifact
   * too large to hold (a streamed file), a reader of its byte ranges: such a result is
   * always elided (docs/contracts.md §2.9).
   */
  readonly bytes: Uint8Array | ((start: number, end: number) => Promise<Uint8Array>);
  /**
   * Optional, with a reader: all the bytes in order, verified, in bounded pieces that may reuse one buffer
   * (each valid until the next is asked for); the error-line scan then allocates nothing per piece.
   */
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
  /**
   * Files the command writes, relative to `cwd` (no absolute paths, no `..`): each that
   * exists as a regular file afterwards becomes a `file:<path>` attachment (slots `f1`,
   * `f2`, …), captured with the same cap; a missing one is reported in the summary.
   */
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
  /**
   * Examine at most this many runs (oldest first) and return: retention in bounded
   * slices, so a year of runs never stalls its caller (`more` says whether to go on).
   */
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

/**
 * The surface of `RunStore` (one per tenant), declared here so that code written before
 * the class lands compiles against it. `RunStore.open(options)` returns one.
 */
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
  /**
   * Where a call is in the list these filters give (0 = first), or undefined when they hide it: one pass, no sort
   * (docs/contracts.md §3.4, "Reveal").
   */
  callIndex(query: CallFilter, runId: string, callId: string): Promise<number | undefined>;
  /** One page of calls with their records (the inspector's list): O(page) log reads (docs/architecture.md §6). */
  callReports(query: CallReportQuery): Promise<CallReportPage>;
  /** Runs whose id or label contains `text`, newest first, at most `limit`. */
  queryRuns(query: RunQuery): Promise<RunSummary[]>;
  /**
   * Compares the catalog with the logs folder: indexes the run logs it lacks (written by
   * another process), drops runs whose log is gone. In batches, the event loop free between them
   * (docs/architecture.md §6).
   */
  reconcileWithLogs(): Promise<void>;
  /** How many runs this tenant keeps and their bytes, from the catalog (no stat per log). */
  totals(): Promise<{ runs: number; bytes: number; calls?: number }>;
  /**
   * Notes what a model was handed of a recorded call (a `call_shown` record in the call's
   * run log, docs/contracts.md §2.14). Never throws: a note that cannot be written is dropped.
   */
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
