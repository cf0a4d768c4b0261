/**
 * What the Evidence Inspector webview sends the extension host: requests carry a numeric
 * `id` their reply names. Types only; the host validates every one (a webview is untrusted).
 */
import type { ExcerptRangeDto, ListQueryDto, PartRef } from './protocolData.js';

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
