/** What the run layer lists and reports (docs/contracts.md §2, docs/architecture.md §6). Additive only. */
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

/** `running`: open in this store, or unfinished with its log touched recently; `interrupted`: unfinished and idle. */
export type RunStatus = 'running' | 'interrupted' | RunFinishStatus;

export interface RunSummary {
  readonly runId: string;
  readonly tenant: string;
  readonly label?: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly status: RunStatus;
  readonly pinned: boolean;
  readonly profileHash: string;
  /** Absent in older logs: `{ kind: 'tool' }`. */
  readonly source?: RunSource;
  /** Calls, running ones included. */
  readonly callCount: number;
  /** An error, a non-zero exit, a signal, a time limit, a cancel. */
  readonly failedCalls: number;
  /** What deleting the run frees, near enough. */
  readonly totalBytes: number;
  /** What its calls hold (each call's result and outputs): the run's size wherever a run and its calls are listed. */
  readonly outputBytes: number;
  /** True when the log's last line was torn and ignored. */
  readonly tornTail: boolean;
  /** Torn tail included. */
  readonly problems: readonly LogProblem[];
  /** The team store the run was read from (docs/contracts.md §7.2); absent for this storage's runs. */
  readonly store?: string;
  /**
   * A team run whose published log was refused (docs/contracts.md §7.2): `tampered`, it does not hash to its
   * published sha256; `unreadable`, it is not one finished run. Listed by id and the bucket's time only.
   */
  readonly refused?: 'tampered' | 'unreadable';
}

export type ListedRunSource = RunSource;

/** No preview, no arguments. */
export interface CallSummary {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly status: CallStatus | 'running' | 'interrupted';
  readonly errorCode?: CallErrorCode;
  /** null when it ended by a signal. */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly timedOut?: boolean;
  readonly cancelled?: boolean;
  readonly resultBytes: number;
  readonly stored?: StorageState;
  readonly sha256Prefix?: string;
  readonly sha256?: string;
  readonly handle?: string;
  readonly attachments: readonly {
    readonly name: string;
    readonly handle: string;
    readonly sizeBytes: number;
    readonly stored: StorageState;
  }[];
  /** `tool` when its log predates sources. */
  readonly source: ListedRunSource;
  readonly runLabel?: string;
  readonly manifestDigest?: string;
  readonly logRecord?: { readonly offset: number; readonly length: number };
  /** The team store the call was read from (docs/contracts.md §7.2); absent for this storage's calls. */
  readonly store?: string;
}

export interface CallQuery {
  readonly offset: number;
  readonly limit: number;
  /** `largest` by result plus attachment bytes. */
  readonly order?: 'newest' | 'oldest' | 'largest';
  readonly runId?: string;
  /** With `runId`, a whole handle names one call. */
  readonly callId?: string;
  readonly tool?: string;
  /** `failed` includes a command recorded ok that exited non-zero, by a signal, timed out or was cancelled. */
  readonly outcome?: 'ok' | 'failed' | 'running';
  readonly source?: ListedRunSource['kind'];
  /** Case-insensitive, over the tool, run id, call id or run label. */
  readonly text?: string;
}

export interface CallPage {
  readonly total: number;
  readonly offset: number;
  readonly rows: readonly CallSummary[];
}

export type CallFilter = Omit<CallQuery, 'offset' | 'limit'>;

export interface CallReportQuery extends CallQuery {
  /** Also the tool names and source kinds in use, for the inspector's pickers. */
  readonly withFacets?: boolean;
}

/**
 * Each call read back from its run log by the offset the catalog holds, so a page costs O(page), not O(runs)
 * (docs/architecture.md §6).
 */
export interface CallReportPage {
  readonly total: number;
  readonly offset: number;
  readonly calls: readonly CallReport[];
  /** In order of first appearance. */
  readonly runs: readonly RunSummary[];
  readonly tools?: readonly string[];
  readonly sources?: readonly ListedRunSource['kind'][];
  /** One per finished call, one whole log per run with an unfinished call. */
  readonly logReads: number;
}

export interface RunQuery {
  readonly text?: string;
  /** A seek: the runs listed after this one (newest first), at O(limit) a page; `offset` does not apply. */
  readonly after?: RunCursor;
  /** A lookup, no walk: `text` and `offset` do not apply. */
  readonly runIds?: readonly string[];
  readonly offset?: number;
  readonly limit: number;
}

/** A run's place in the newest-first list; `store` when the list merges team stores. */
export interface RunCursor {
  readonly startedAt: string;
  readonly runId: string;
  readonly store?: string;
}

export interface CallReport {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly status: CallStatus | 'running' | 'interrupted';
  readonly error?: CallError;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly resultBytes: number;
  readonly elided: boolean;
  readonly handle?: string;
  readonly preview: string;
  readonly previewRange?: PreviewRange;
  readonly sha256?: string;
  readonly stored?: StorageState;
  readonly artifactId?: string;
  readonly manifestDigest?: string;
  readonly readable: boolean;
  readonly contentType?: string;
  readonly lineCount?: number;
  readonly binary: boolean;
  readonly attachments: readonly AttachmentRecord[];
  /** As its first view showed them (docs/contracts.md §2.13). */
  readonly errorLines?: ErrorLines;
  /** The team store the call was read from (docs/contracts.md §7.2); absent for this storage's calls. */
  readonly store?: string;
}
