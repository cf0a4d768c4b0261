/**
 * Webview to host: requests carry a numeric `id` their reply names. Types only; the host validates every one, as a
 * webview is untrusted.
 */
import type { ExcerptRangeDto, ListQueryDto, PartRef } from './protocolData.js';

export interface ReadyMessage {
  readonly type: 'ready';
}
export interface RefreshRequest {
  readonly type: 'refresh';
  readonly id: number;
}
/** Reply `page`; `facets` also asks for the pickers' choices. */
export interface PageRequest {
  readonly type: 'page';
  readonly id: number;
  readonly offset: number;
  readonly limit: number;
  readonly query: ListQueryDto;
  readonly facets?: boolean;
}
export interface PickRunsRequest {
  readonly type: 'pickRuns';
  readonly id: number;
  readonly text: string;
  readonly limit: number;
}
/** With the list's `query`, the reply says where the call is in it (docs/contracts.md §3.4, "Reveal"). */
export interface LocateRequest {
  readonly type: 'locate';
  readonly id: number;
  readonly handle?: string;
  readonly runId?: string;
  readonly query?: ListQueryDto;
}
export interface DetailRequest {
  readonly type: 'detail';
  readonly id: number;
  readonly ref: PartRef;
}
/** `snap` moves it inward to character boundaries. */
export interface FetchBytesRequest {
  readonly type: 'fetchBytes';
  readonly id: number;
  readonly handle: string;
  readonly start: number;
  readonly end: number;
  readonly snap: boolean;
}
/** 0-based, end exclusive. */
export interface FetchLinesRequest {
  readonly type: 'fetchLines';
  readonly id: number;
  readonly handle: string;
  readonly offset: number;
  readonly count: number;
}
/**
 * With `window`, the reply also carries that match's lines window: a page of matches is one round trip, not two
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
export interface MatchWindowAskDto {
  readonly index: number;
  readonly context: number;
}
export interface CopyTextRequest {
  readonly type: 'copyText';
  readonly id: number;
  readonly text: string;
}
export interface CopyExcerptRequest {
  readonly type: 'copyExcerpt';
  readonly id: number;
  readonly handle: string;
  readonly range: ExcerptRangeDto;
}
export interface SendToChatRequest {
  readonly type: 'sendToChat';
  readonly id: number;
  readonly handle: string;
  readonly range: ExcerptRangeDto;
}
/** The host asks where. */
export interface SaveExcerptRequest {
  readonly type: 'saveExcerpt';
  readonly id: number;
  readonly handle: string;
  readonly range: ExcerptRangeDto;
}
export interface VerifyRequest {
  readonly type: 'verify';
  readonly id: number;
  readonly handle: string;
}
export interface OpenInEditorRequest {
  readonly type: 'openInEditor';
  readonly id: number;
  readonly handle: string;
  readonly byteOffset: number;
}
export interface CompareSideDto {
  readonly handle: string;
  readonly start: number;
  readonly end: number;
}
/** Each side exactly its bytes (docs/contracts.md §3.4, "Compare"). */
export interface CompareWindowsRequest {
  readonly type: 'compareWindows';
  readonly id: number;
  readonly left: CompareSideDto;
  readonly right: CompareSideDto;
  /** The diff opens beside the panel only when both halves keep room. */
  readonly panelWidth?: number;
}
/** Only these, by name: never a command id from the page. */
export type StartActionDto = 'runCommandAndCapture' | 'importFile' | 'captureDemo';
export interface StartActionRequest {
  readonly type: 'startAction';
  readonly id: number;
  readonly action: StartActionDto;
}
/** docs/contracts.md §3.4; progress comes as `searchProgress` naming `id`. */
export interface SearchOutputsRequest {
  readonly type: 'searchOutputs';
  readonly id: number;
  readonly pattern: string;
  readonly tool?: string;
  readonly run?: string;
  readonly limit: number;
}
/** Its reply becomes an `error` saying it was cancelled. */
export interface CancelSearchMessage {
  readonly type: 'cancelSearch';
  readonly searchId: number;
}
/** A person read a window or ran a pattern. */
export interface ReadMessage {
  readonly type: 'read';
}
/** A CSP violation or an exception: logged by the host. */
export interface ProblemMessage {
  readonly type: 'problem';
  readonly message: string;
}

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
  | ReadMessage
  | ProblemMessage;

export type WebviewRequest = Extract<WebviewToHost, { id: number }>;
