/**
 * What the run layer lists and reports (docs/contracts.md §2, docs/architecture.md §6): runs
 * and calls as pages and pickers show them, the queries that ask for them, a call's report.
 * Types only, re-exported by `types.ts`; additive only.
 */
import type {
  AttachmentRecord,
  CallError,
  CallErrorCode,
  CallStatus,
  ErrorLines,
  LogProblem,
  PreviewRange,
  RunFinishStatus,
  RunSource,
  StorageState,
} from './log/records.js';

/**
 * A run's state as read back: a finish status, `running` (open in this store, or
 * unfinished and its log touched recently), or `interrupted` (unfinished and idle: the
 * process that wrote it is gone).
 */
export type RunStatus = 'running' | 'interrupted' | RunFinishStatus;

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
  /** Calls, running ones included. */
  readonly callCount: number;
  /**
   * Finished calls that failed (an error, a non-zero exit, a signal, a time limit, a cancel): a completed run with one
   * failed.
   */
  readonly failedCalls: number;
  /** Log bytes plus kept blob bytes (what deleting the run frees, near enough). */
  readonly totalBytes: number;
  /** What its calls hold (each call's result and outputs): the run's size wherever a run and its calls are listed. */
  readonly outputBytes: number;
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
