/**
 * What the extension host sends the Evidence Inspector webview: replies naming a request's
 * `id`, and messages of its own (`init`, `changed`, `live`, …). Types only.
 */
import type {
  CallDto,
  InspectorLimitsDto,
  MatchDto,
  PartDto,
  PartRef,
  PreviewDto,
  RunDto,
  TargetDto,
  WindowDto,
} from './protocolData.js';
import type { WebviewRequest } from './webviewToHost.js';

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
