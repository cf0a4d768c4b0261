/**
 * Messages between the Evidence Inspector webview and the extension host, both ways:
 * discriminated unions on `type`. Requests carry a numeric `id` and their reply names
 * it; the webview says `ready` before the host posts anything. Types only: the webview
 * imports this file for checking, never at run time, and the host validates every
 * incoming message (src/extension/inspector/validate.ts) because a webview is untrusted.
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
  readonly totalBytes: number;
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

// ---------------------------------------------------------------- webview -> host

/** The page has loaded and listens: the host may now post `init` and the calls. */
export interface ReadyMessage {
  readonly type: 'ready';
}
/** Drop the host's caches of handles and reports (reply: `done`); the page then asks for its pages again. */
export interface RefreshRequest {
  readonly type: 'refresh';
  readonly id: number;
}
/**
 * Calls `offset .. offset+limit` of the list in the query's order and filters (reply:
 * `page`, with the total); `facets` also asks for the tool names and run sources the
 * pickers offer.
 */
export interface PageRequest {
  readonly type: 'page';
  readonly id: number;
  readonly offset: number;
  readonly limit: number;
  readonly query: ListQueryDto;
  readonly facets?: boolean;
}
/** Runs whose id or label contains `text`, newest first, at most `limit` (the run picker; reply: `runs`). */
export interface PickRunsRequest {
  readonly type: 'pickRuns';
  readonly id: number;
  readonly text: string;
  readonly limit: number;
}
/**
 * Which call and part a handle names, or the newest call of a run (a reveal, a search
 * hit; reply: `located`). With `query` (the list's order and filters) the reply also says
 * where that call is in the list, so the page can fetch its page and scroll to it
 * (docs/contracts.md §3.4, "Reveal").
 */
export interface LocateRequest {
  readonly type: 'locate';
  readonly id: number;
  readonly handle?: string;
  readonly runId?: string;
  readonly query?: ListQueryDto;
}
/** The preview and identity of one call part (reply: `detail`). */
export interface DetailRequest {
  readonly type: 'detail';
  readonly id: number;
  readonly ref: PartRef;
}
/** A byte window `[start, end)`; `snap` moves it inward to character boundaries (reply: `window`). */
export interface FetchBytesRequest {
  readonly type: 'fetchBytes';
  readonly id: number;
  readonly handle: string;
  readonly start: number;
  readonly end: number;
  readonly snap: boolean;
}
/** Lines `offset .. offset+count` (0-based, end exclusive) (reply: `window`). */
export interface FetchLinesRequest {
  readonly type: 'fetchLines';
  readonly id: number;
  readonly handle: string;
  readonly offset: number;
  readonly count: number;
}
/**
 * Matching lines of a regular expression, `limit` of them from match `offset` (reply:
 * `matches`). With `window`, the reply also carries the lines window of match
 * `window.index` (one of this page's) with `window.context` lines either side: what the
 * page draws for the selected match, so a page of matches is one round trip, not two
 * (docs/contracts.md §3.4, "Speed").
 */
export interface FindPatternRequest {
  readonly type: 'findPattern';
  readonly id: number;
  readonly handle: string;
  readonly pattern: string;
  readonly offset: number;
  readonly limit: number;
  readonly window?: MatchWindowAskDto;
}
/** Which match's window a `findPattern` reply should carry (0-based match index; lines either side). */
export interface MatchWindowAskDto {
  readonly index: number;
  readonly context: number;
}
/** Copies a short string (a digest, a handle) through the host clipboard (reply: `done`). */
export interface CopyTextRequest {
  readonly type: 'copyText';
  readonly id: number;
  readonly text: string;
}
/** Copies a Markdown excerpt of a range with its provenance (reply: `done`). */
export interface CopyExcerptRequest {
  readonly type: 'copyExcerpt';
  readonly id: number;
  readonly handle: string;
  readonly range: ExcerptRangeDto;
}
/** Puts the same excerpt into the chat input without sending it (reply: `done`). */
export interface SendToChatRequest {
  readonly type: 'sendToChat';
  readonly id: number;
  readonly handle: string;
  readonly range: ExcerptRangeDto;
}
/**
 * Saves the window on screen to a file with its provenance, as **Save Excerpt As…** does (reply: `done`; the host
 * asks where).
 */
export interface SaveExcerptRequest {
  readonly type: 'saveExcerpt';
  readonly id: number;
  readonly handle: string;
  readonly range: ExcerptRangeDto;
}
/** Re-hashes every byte behind a handle (reply: `verified`). */
export interface VerifyRequest {
  readonly type: 'verify';
  readonly id: number;
  readonly handle: string;
}
/** Opens the read-only artifact document at a byte offset (reply: `done`). */
export interface OpenInEditorRequest {
  readonly type: 'openInEditor';
  readonly id: number;
  readonly handle: string;
  readonly byteOffset: number;
}
/** One side of a comparison: bytes `[start, end)` of a handle (the window on screen). */
export interface CompareSideDto {
  readonly handle: string;
  readonly start: number;
  readonly end: number;
}
/**
 * Opens VS Code's diff editor on two windows, each exactly its bytes (docs/contracts.md
 * §3.4, "Compare"); the page chose both ("Compare with…" twice). Reply: `done`.
 */
export interface CompareWindowsRequest {
  readonly type: 'compareWindows';
  readonly id: number;
  readonly left: CompareSideDto;
  readonly right: CompareSideDto;
  /**
   * The panel's width in CSS px: the diff opens beside it only when both halves keep room (docs/contracts.md §3.4,
   * "Compare").
   */
  readonly panelWidth?: number;
}
/** The actions the empty panel offers as buttons: only these, by name (never a command id from the page). */
export type StartActionDto = 'runCommandAndCapture' | 'importFile' | 'captureDemo';
/** Starts one of those actions (reply: `done` once it was started). */
export interface StartActionRequest {
  readonly type: 'startAction';
  readonly id: number;
  readonly action: StartActionDto;
}
/**
 * Searches every kept output of the store for one pattern, newest call first
 * (docs/contracts.md §3.4; the core's `searchAllOutputs`). Progress comes as
 * `searchProgress` naming `id`; the reply is `searchResults` (at most `limit` matches).
 */
export interface SearchOutputsRequest {
  readonly type: 'searchOutputs';
  readonly id: number;
  readonly pattern: string;
  readonly tool?: string;
  readonly run?: string;
  readonly limit: number;
}
/** Stops the search started by request `searchId` (its reply becomes an `error` saying it was cancelled). */
export interface CancelSearchMessage {
  readonly type: 'cancelSearch';
  readonly searchId: number;
}
/** Something went wrong inside the page (a CSP violation, an exception): logged by the host. */
export interface ProblemMessage {
  readonly type: 'problem';
  readonly message: string;
}

/** Every message the webview sends. */
export type WebviewToHost =
  | ReadyMessage
  | RefreshRequest
  | PageRequest
  | PickRunsRequest
  | LocateRequest
  | DetailRequest
  | FetchBytesRequest
  | FetchLinesRequest
  | FindPatternRequest
  | CopyTextRequest
  | CopyExcerptRequest
  | SendToChatRequest
  | SaveExcerptRequest
  | VerifyRequest
  | OpenInEditorRequest
  | CompareWindowsRequest
  | StartActionRequest
  | SearchOutputsRequest
  | CancelSearchMessage
  | ProblemMessage;

/** Every webview message that expects a reply. */
export type WebviewRequest = Extract<WebviewToHost, { id: number }>;

// ---------------------------------------------------------------- host -> webview

/** First message after `ready`: limits, whether a store is open, what to select. */
export interface InitMessage {
  readonly type: 'init';
  readonly limits: InspectorLimitsDto;
  readonly storeAvailable: boolean;
  readonly target?: TargetDto;
}
/**
 * Reply to `page`: `total` calls match the query, `all` are stored; `calls` start at
 * `offset`; `runs` are those calls' runs (the list's run headers). `tools` and
 * `sources` only when `facets` was asked.
 */
export interface PageReply {
  readonly type: 'page';
  readonly id: number;
  readonly offset: number;
  readonly total: number;
  readonly all: number;
  readonly calls: readonly CallDto[];
  readonly runs: readonly RunDto[];
  readonly tools?: readonly string[];
  readonly sources?: readonly string[];
}
/** Reply to `pickRuns`. */
export interface RunsReply {
  readonly type: 'runs';
  readonly id: number;
  readonly runs: readonly RunDto[];
}
/**
 * Reply to `locate`. When the request carried a query: `index`, the call's position in
 * that list (0 = first row), or `hidden` when the filters leave it out.
 */
export interface LocatedReply {
  readonly type: 'located';
  readonly id: number;
  readonly ref: PartRef;
  readonly index?: number;
  readonly hidden?: true;
}
/**
 * Live records, batched (after `ready`): calls started or finished and their runs. The
 * page updates the rows it holds and asks again for the pages on screen (a new call
 * moves every later row), never for everything.
 */
export interface ChangedMessage {
  readonly type: 'changed';
  readonly runs: readonly RunDto[];
  readonly calls: readonly CallDto[];
}
/** The command was run again with a target while the panel was open: select it. */
export interface RevealMessage {
  readonly type: 'reveal';
  readonly target: TargetDto;
}
/** Reply to `detail`. */
export interface DetailReply {
  readonly type: 'detail';
  readonly id: number;
  readonly ref: PartRef;
  readonly call: CallDto;
  readonly part: PartDto;
  readonly preview: PreviewDto;
}
/** Reply to `fetchBytes` / `fetchLines`. */
export interface WindowReply {
  readonly type: 'window';
  readonly id: number;
  readonly window: WindowDto;
}
/**
 * Reply to `findPattern`: `totalMatches` counts the whole output, so 0 differs from a page
 * past the end. `window` is the asked match's lines window (`windowIndex` names the match),
 * exactly what `fetchLines` would answer for it; absent when no window was asked or that
 * match is not on this page.
 */
export interface MatchesReply {
  readonly type: 'matches';
  readonly id: number;
  readonly handle: string;
  readonly pattern: string;
  readonly offset: number;
  readonly totalMatches: number;
  readonly matches: readonly MatchDto[];
  readonly truncated: boolean;
  readonly binary: boolean;
  readonly window?: WindowDto;
  readonly windowIndex?: number;
}
/** Reply to `verify`: `ok` true when every byte matches the recorded sha256. */
export interface VerifiedReply {
  readonly type: 'verified';
  readonly id: number;
  readonly handle: string;
  readonly ok: boolean;
  readonly sha256: string;
  readonly byteCount: number;
  readonly elapsedMs: number;
}
/** Reply to an action (copy, send, open): one sentence saying what happened. */
export interface DoneReply {
  readonly type: 'done';
  readonly id: number;
  readonly message: string;
}
/** One match of a search across outputs: where it is (handle, 1-based line, byte offset) and the line around it. */
export interface SearchMatchDto {
  readonly handle: string;
  readonly tool: string;
  readonly runId: string;
  readonly lineNumber: number;
  readonly byteOffset: number;
  readonly column: number;
  /** The matching line, or a window around the match when the line is long (`window` says which bytes). */
  readonly text: string;
  readonly window?: { readonly start: number; readonly end: number };
}
/** Progress of search `searchId`: calls searched so far, of how many (at most a few per second). */
export interface SearchProgressMessage {
  readonly type: 'searchProgress';
  readonly searchId: number;
  readonly callsDone: number;
  readonly callsTotal: number;
}
/** Reply to `searchOutputs`: `totalMatches` counts every match over every searched output. */
export interface SearchResultsReply {
  readonly type: 'searchResults';
  readonly id: number;
  readonly pattern: string;
  readonly totalMatches: number;
  readonly outputsSearched: number;
  readonly outputsMatched: number;
  readonly truncated: boolean;
  readonly matches: readonly SearchMatchDto[];
  /** Present when the time limit ended the search: it covers the newest `callsSearched` of `callsTotal` calls. */
  readonly stopped?: { readonly timeLimitMs: number; readonly callsSearched: number; readonly callsTotal: number };
}
/** How far one stream of a running command has come (docs/contracts.md §3.4, "Live"). */
export interface LiveStreamDto {
  readonly runId: string;
  readonly callId: string;
  readonly stream: 'stdout' | 'stderr';
  /** Bytes read so far. */
  readonly bytes: number;
  /** The stream's last bytes (at most 2 KiB) decoded leniently, shown as text only. */
  readonly tail: string;
}
/** Running commands' progress, at most two messages a second. */
export interface LiveMessage {
  readonly type: 'live';
  readonly streams: readonly LiveStreamDto[];
}
/** A request failed (the contract's sentence), or a message was malformed (`id` null when unknown). */
export interface ErrorReply {
  readonly type: 'error';
  readonly id: number | null;
  readonly message: string;
}

/** Every message the host sends. */
export type HostToWebview =
  | InitMessage
  | PageReply
  | RunsReply
  | LocatedReply
  | ChangedMessage
  | RevealMessage
  | DetailReply
  | WindowReply
  | MatchesReply
  | VerifiedReply
  | DoneReply
  | SearchProgressMessage
  | SearchResultsReply
  | LiveMessage
  | ErrorReply;

/** The reply each request kind gets when it succeeds (any request may instead get `error`). */
interface ReplyTable {
  readonly refresh: DoneReply;
  readonly page: PageReply;
  readonly pickRuns: RunsReply;
  readonly locate: LocatedReply;
  readonly detail: DetailReply;
  readonly fetchBytes: WindowReply;
  readonly fetchLines: WindowReply;
  readonly findPattern: MatchesReply;
  readonly copyText: DoneReply;
  readonly copyExcerpt: DoneReply;
  readonly sendToChat: DoneReply;
  readonly saveExcerpt: DoneReply;
  readonly verify: VerifiedReply;
  readonly openInEditor: DoneReply;
  readonly compareWindows: DoneReply;
  readonly startAction: DoneReply;
  readonly searchOutputs: SearchResultsReply;
}

/**
 * The reply to a request of kind `K`, so a caller never re-checks `type` (a kind missing from the table is `never`: its
 * callers fail to compile).
 */
export type ReplyTo<K extends WebviewRequest['type']> = K extends keyof ReplyTable ? ReplyTable[K] : never;

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
