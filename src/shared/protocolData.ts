/** The data the inspector's messages carry both ways and what the webview keeps with `setState`. Types only. */

/** docs/contracts.md §2.2, §2.4. */
export type StorageStateDto = 'inline' | 'blob' | 'artifact' | 'preview_only';

/** Sent in `init`, enforced again by the host. */
export interface InspectorLimitsDto {
  readonly maxWindowBytes: number;
  /** docs/contracts.md §2.5. */
  readonly maxLines: number;
  /** docs/contracts.md §2.5. */
  readonly maxMatches: number;
  /** docs/contracts.md §2.5. */
  readonly maxPatternChars: number;
  /** docs/contracts.md §2.5. */
  readonly maxHandleChars: number;
  /** docs/contracts.md §2.11. */
  readonly maxSearchMatches: number;
}

export interface RunDto {
  readonly runId: string;
  readonly label?: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly status: string;
  readonly pinned: boolean;
  readonly callCount: number;
  /** A `completed` run with one reads as failed (src/shared/outcome.ts). */
  readonly failedCalls: number;
  /** The run's log and its kept outputs on disk. */
  readonly totalBytes: number;
  /** What its calls hold (results and outputs): the size a run's row shows, the sum of its calls'. */
  readonly outputBytes: number;
  /**
   * Who started the run: `tool`, `participant`, `cli`, `mcp`, `command`, `api`, or `hook:<agent>` (docs/contracts.md).
   */
  readonly source?: string;
  /** The team store the run was read from (read-only: docs/contracts.md §7.2); absent for this storage's runs. */
  readonly store?: string;
}

export interface PartDto {
  readonly name: string;
  /** Absent for a small result shown to the model whole. */
  readonly handle?: string;
  /** The full result size for a result. */
  readonly sizeBytes: number;
  readonly observedBytes?: number;
  readonly truncated?: boolean;
  readonly sha256?: string;
  readonly stored?: StorageStateDto;
  readonly contentType?: string;
  readonly lineCount?: number;
  /** Shown as hex, never as text. */
  readonly binary: boolean;
  readonly readable: boolean;
}

/** No preview text: that comes with `detail`. */
export interface CallDto {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly argsSummary: string;
  readonly status: string;
  /** Safe sentence. */
  readonly errorMessage?: string;
  /** null when it ended by a signal; absent for tools that are not commands. */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly timedOut?: boolean;
  readonly cancelled?: boolean;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly result: PartDto;
  readonly attachments: readonly PartDto[];
  /** The team store the call was read from (read-only); absent for this storage's calls. */
  readonly store?: string;
}

export interface PartRef {
  readonly runId: string;
  readonly callId: string;
  readonly part: string;
}

export interface PreviewDto {
  readonly text: string;
  /** Absent when nothing was omitted. */
  readonly head?: string;
  readonly tail?: string;
  readonly headEnd?: number;
  readonly tailStart?: number;
  /** docs/contracts.md §2.13. */
  readonly errorLines?: {
    readonly total: number;
    readonly lines: readonly { readonly lineNumber: number; readonly byteOffset: number; readonly text: string }[];
  };
}

export interface WindowDto {
  readonly handle: string;
  readonly mode: 'bytes' | 'lines';
  readonly start: number;
  readonly end: number;
  readonly totalBytes: number;
  readonly totalLines: number;
  /** When known. */
  readonly firstLine?: number;
  readonly encoding: 'text' | 'hex';
  readonly text: string;
  /** At the window cap, or to whole lines/characters. */
  readonly truncated: boolean;
  readonly note?: string;
}

export interface MatchDto {
  readonly lineNumber: number;
  /** Binary content is shown by it: it has no lines. */
  readonly byteOffset: number;
  /** docs/contracts.md §2.10. */
  readonly text: string;
}

export type ExcerptRangeDto =
  | { readonly kind: 'bytes'; readonly start: number; readonly end: number }
  | { readonly kind: 'lines'; readonly offset: number; readonly count: number };

/** `failed`: non-zero exit, signal, time-out, cancel or error. */
export type OutcomeFilterDto = '' | 'ok' | 'failed' | 'running';

/**
 * Answered by the host from the catalog (docs/contracts.md §3.4): the page never holds every call, so it never
 * filters them itself.
 */
export interface ListQueryDto {
  readonly order: 'newest' | 'largest';
  readonly tool?: string;
  readonly run?: string;
  readonly outcome?: Exclude<OutcomeFilterDto, ''>;
  /**
   * Who started the run: `tool`, `participant`, `cli`, `mcp`, `command`, `api`, `hook` or `hook:<agent>` (this
   * storage's runs), or `team:<name>` (one team store's runs).
   */
  readonly source?: string;
  /** A whole handle finds its call. */
  readonly text?: string;
}

/** Mirrors `InspectorTarget` of the command. */
export interface TargetDto {
  readonly runId?: string;
  readonly handle?: string;
  /** docs/contracts.md §3.4, "Links". Checked and capped by the host before it is posted. */
  readonly window?: ExcerptRangeDto;
}

/** Fetched again after the panel is shown or restored. */
export type WindowRequestDto =
  | { readonly kind: 'bytes'; readonly start: number; readonly end: number }
  | { readonly kind: 'lines'; readonly offset: number; readonly count: number }
  | { readonly kind: 'pattern'; readonly pattern: string; readonly index: number };

/** Survives hiding; handed to the serializer on reload. */
export interface InspectorViewState {
  readonly selected?: PartRef;
  readonly filters?: {
    readonly tool: string;
    readonly run: string;
    readonly text: string;
    readonly sort: 'time' | 'size';
    readonly outcome?: OutcomeFilterDto;
    readonly source?: string;
  };
  readonly split?: number;
  readonly collapsedRuns?: readonly string[];
  /** CSS pixels, by column id. */
  readonly columns?: Readonly<Record<string, number>>;
  /** The run itself is `filters.run`. */
  readonly runLabel?: string;
  readonly form?: {
    readonly tab: 'bytes' | 'lines' | 'pattern';
    readonly start: string;
    readonly end: string;
    readonly line: string;
    readonly count: string;
    readonly pattern: string;
  };
  readonly window?: WindowRequestDto;
}
