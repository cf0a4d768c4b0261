/**
 * The data the Evidence Inspector's messages carry both ways (runs, calls, parts, windows,
 * matches, filters) and what the webview keeps with `setState`. Types only.
 */

/** Where bytes live (docs/contracts.md §2.2, §2.4). */
export type StorageStateDto = 'inline' | 'blob' | 'artifact' | 'preview_only';

/** What the panel may ask for at most; sent in `init`, enforced again by the host. */
export interface InspectorLimitsDto {
  /** Largest byte window `end - start` a fetch or excerpt may cover. */
  readonly maxWindowBytes: number;
  /** Most lines one lines window may ask for (docs/contracts.md §2.5: `limit` 1–1000). */
  readonly maxLines: number;
  /** Most matches one pattern page may ask for (docs/contracts.md §2.5: `limit` 1–1000). */
  readonly maxMatches: number;
  /** Longest regular expression (docs/contracts.md §2.5: 1–1024 characters). */
  readonly maxPatternChars: number;
  /** Longest handle (docs/contracts.md §2.5: 1–256 characters). */
  readonly maxHandleChars: number;
  /** Most matches one search across outputs returns (docs/contracts.md §2.11: 1–100). */
  readonly maxSearchMatches: number;
}

/** One run, as the list shows it. */
export interface RunDto {
  readonly runId: string;
  readonly label?: string;
  /** ISO 8601. */
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** `running`, `interrupted`, `completed`, `failed` or `cancelled`. */
  readonly status: string;
  readonly pinned: boolean;
  readonly callCount: number;
  /** Finished calls that failed: a `completed` run with one reads as failed (src/shared/outcome.ts `runOutcomeOf`). */
  readonly failedCalls: number;
  /** The run's log and its kept outputs on disk. */
  readonly totalBytes: number;
  /** What its calls hold (results and outputs): the size a run's row shows, the sum of its calls'. */
  readonly outputBytes: number;
  /**
   * Who started the run: `tool`, `participant`, `cli`, `mcp`, `command`, `api`, or `hook:<agent>` (docs/contracts.md).
   */
  readonly source?: string;
}

/** The bytes of a call's result or of one attachment: size, handle, digest, state. */
export interface PartDto {
  /** `result`, or the attachment's name (`stdout`, `stderr`, `value`, `file:<name>`). */
  readonly name: string;
  /** Handle to read the bytes back; absent for a small result shown to the model whole. */
  readonly handle?: string;
  /** Bytes kept (the full result size for a result). */
  readonly sizeBytes: number;
  /** Bytes the tool produced, when capture may have stopped earlier (attachments). */
  readonly observedBytes?: number;
  /** Capture stopped at its byte cap. */
  readonly truncated?: boolean;
  /** Lowercase hex sha256 of the kept bytes. */
  readonly sha256?: string;
  readonly stored?: StorageStateDto;
  readonly contentType?: string;
  readonly lineCount?: number;
  /** Not valid UTF-8: shown as hex, never as text. */
  readonly binary: boolean;
  /** False when the bytes cannot be read back (`preview_only`). */
  readonly readable: boolean;
}

/** One recorded tool call, as the list shows it (no preview text: that comes with `detail`). */
export interface CallDto {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  /** The call's arguments as compact JSON, cut to a short line. */
  readonly argsSummary: string;
  /** `ok`, `error`, `failed`, `running` or `interrupted`. */
  readonly status: string;
  /** Why the call is not `ok` (safe sentence). */
  readonly errorMessage?: string;
  /**
   * A command's exit code (from its `value` attachment); null when it ended by a signal. Absent for tools that are not
   * commands.
   */
  readonly exitCode?: number | null;
  /** The signal that ended a command, when one did. */
  readonly signal?: string | null;
  /** The command was stopped at its time limit. */
  readonly timedOut?: boolean;
  /** The command was cancelled (the person pressed Cancel, or the caller gave up). */
  readonly cancelled?: boolean;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly result: PartDto;
  readonly attachments: readonly PartDto[];
}

/** Which call, and which of its parts (`result` or an attachment name). */
export interface PartRef {
  readonly runId: string;
  readonly callId: string;
  readonly part: string;
}

/** The preview the model saw, split into head and tail with their byte ranges. */
export interface PreviewDto {
  /** The whole preview text exactly as the model saw it. */
  readonly text: string;
  /** Head text, bytes `[0, headEnd)`; absent when nothing was omitted. */
  readonly head?: string;
  /** Tail text, bytes `[tailStart, size)`. */
  readonly tail?: string;
  readonly headEnd?: number;
  readonly tailStart?: number;
  /** The error lines the model saw before the preview (docs/contracts.md §2.13), in output order. */
  readonly errorLines?: {
    readonly total: number;
    readonly lines: readonly { readonly lineNumber: number; readonly byteOffset: number; readonly text: string }[];
  };
}

/** A fetched window: exact position, and text or a hex dump. */
export interface WindowDto {
  readonly handle: string;
  /** How it was asked for. */
  readonly mode: 'bytes' | 'lines';
  /** Byte range `[start, end)` actually returned. */
  readonly start: number;
  readonly end: number;
  /** Size of the whole artifact. */
  readonly totalBytes: number;
  readonly totalLines: number;
  /** 0-based line on which `start` lies, when known. */
  readonly firstLine?: number;
  /** `text`: the bytes decoded strictly; `hex`: a hex dump with absolute offsets. */
  readonly encoding: 'text' | 'hex';
  readonly text: string;
  /** The request was cut (at the window cap, or to whole lines/characters). */
  readonly truncated: boolean;
  /** One sentence on an adjustment made (snapped to characters, cut at the cap, past the end). */
  readonly note?: string;
}

/** One pattern match: its 1-based line number and the line (cut with a marker when long). */
export interface MatchDto {
  readonly lineNumber: number;
  /** Byte offset of the match in the output (binary content is shown by it: it has no lines). */
  readonly byteOffset: number;
  /** The matched line (binary: the match escaped onto one line, docs/contracts.md §2.10). */
  readonly text: string;
}

/** How an excerpt's range is given: exact bytes, or whole lines (resolved to bytes by the host). */
export type ExcerptRangeDto =
  | { readonly kind: 'bytes'; readonly start: number; readonly end: number }
  | { readonly kind: 'lines'; readonly offset: number; readonly count: number };

/**
 * The outcome filter: every call, only successes, only failures (non-zero exit, signal, time-out, cancel, error), or
 * only running.
 */
export type OutcomeFilterDto = '' | 'ok' | 'failed' | 'running';

/**
 * The list's sort and filters, answered by the host from the catalog (docs/contracts.md
 * §3.4): the page never holds every call, so it never filters them itself.
 */
export interface ListQueryDto {
  readonly order: 'newest' | 'largest';
  /** Exact tool name. */
  readonly tool?: string;
  /** Exact run id. */
  readonly run?: string;
  readonly outcome?: Exclude<OutcomeFilterDto, ''>;
  /** Who started the run: `tool`, `participant`, `cli`, `mcp`, `command`, `api`, `hook` or `hook:<agent>`. */
  readonly source?: string;
  /** Case-insensitive text in the tool, run id, run label or call id; a whole handle finds its call. */
  readonly text?: string;
}

/** What to select when the panel opens (mirrors `InspectorTarget` of the command). */
export interface TargetDto {
  readonly runId?: string;
  readonly handle?: string;
  /**
   * The window a link names (docs/contracts.md §3.4, "Links"): the panel opens `handle`
   * scrolled to it and marks it. Checked and capped by the host before it is posted.
   */
  readonly window?: ExcerptRangeDto;
}

/** The last window asked for, so it can be fetched again after the panel is shown or restored. */
export type WindowRequestDto =
  | { readonly kind: 'bytes'; readonly start: number; readonly end: number }
  | { readonly kind: 'lines'; readonly offset: number; readonly count: number }
  | { readonly kind: 'pattern'; readonly pattern: string; readonly index: number };

/** What the webview keeps with `setState` (survives hiding; handed to the serializer on reload). */
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
  /** Share of the split the list takes (0–1), as the person dragged it. */
  readonly split?: number;
  readonly collapsedRuns?: readonly string[];
  /** Widths of the list's resizable columns (CSS pixels, by column id), as the person dragged them. */
  readonly columns?: Readonly<Record<string, number>>;
  /** The picked run's label, shown in the run picker (the run itself is `filters.run`). */
  readonly runLabel?: string;
  /** The fetch form as typed. */
  readonly form?: {
    readonly tab: 'bytes' | 'lines' | 'pattern';
    readonly start: string;
    readonly end: string;
    readonly line: string;
    readonly count: string;
    readonly pattern: string;
  };
  /** The window on screen, for the selected part. */
  readonly window?: WindowRequestDto;
}
