/** Host to webview: replies naming a request's `id`, and messages of its own. Types only. */
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

export interface InitMessage {
  readonly type: 'init';
  readonly limits: InspectorLimitsDto;
  readonly storeAvailable: boolean;
  readonly target?: TargetDto;
}
/**
 * Reply to `page`: `total` calls match the query, `all` are stored; `tools` and `sources` only when `facets` was
 * asked.
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
export interface RunsReply {
  readonly type: 'runs';
  readonly id: number;
  readonly runs: readonly RunDto[];
}
/**
 * Reply to `locate`: with a query, `index` is the call's row in that list, or `hidden` when the filters leave it out.
 */
export interface LocatedReply {
  readonly type: 'located';
  readonly id: number;
  readonly ref: PartRef;
  readonly index?: number;
  readonly hidden?: true;
}
/**
 * Live records, batched: the page updates the rows it holds and asks again for the pages on screen (a new call moves
 * every later row), never for everything.
 */
export interface ChangedMessage {
  readonly type: 'changed';
  readonly runs: readonly RunDto[];
  readonly calls: readonly CallDto[];
}
export interface RevealMessage {
  readonly type: 'reveal';
  readonly target: TargetDto;
}
export interface DetailReply {
  readonly type: 'detail';
  readonly id: number;
  readonly ref: PartRef;
  readonly call: CallDto;
  readonly part: PartDto;
  readonly preview: PreviewDto;
}
export interface WindowReply {
  readonly type: 'window';
  readonly id: number;
  readonly window: WindowDto;
}
/**
 * Reply to `findPattern`: `totalMatches` counts the whole output, so 0 differs from a page past the end; `window` is
 * what `fetchLines` would answer for match `windowIndex`.
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
export interface VerifiedReply {
  readonly type: 'verified';
  readonly id: number;
  readonly handle: string;
  readonly ok: boolean;
  readonly sha256: string;
  readonly byteCount: number;
  readonly elapsedMs: number;
}
export interface DoneReply {
  readonly type: 'done';
  readonly id: number;
  readonly message: string;
}
export interface SearchMatchDto {
  readonly handle: string;
  readonly tool: string;
  readonly runId: string;
  readonly lineNumber: number;
  readonly byteOffset: number;
  readonly column: number;
  /** Or a window around the match when the line is long. */
  readonly text: string;
  readonly window?: { readonly start: number; readonly end: number };
}
export interface SearchProgressMessage {
  readonly type: 'searchProgress';
  readonly searchId: number;
  readonly callsDone: number;
  readonly callsTotal: number;
}
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
/** docs/contracts.md §3.4, "Live". */
export interface LiveStreamDto {
  readonly runId: string;
  readonly callId: string;
  readonly stream: 'stdout' | 'stderr';
  readonly bytes: number;
  /** At most 2 KiB, decoded leniently, shown as text only. */
  readonly tail: string;
}
/** At most two messages a second. */
export interface LiveMessage {
  readonly type: 'live';
  readonly streams: readonly LiveStreamDto[];
}
/** `id` null when unknown. */
export interface ErrorReply {
  readonly type: 'error';
  readonly id: number | null;
  readonly message: string;
}

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

/** Any request may instead get `error`. */
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

/** A kind missing from the table is `never`, so its callers fail to compile. */
export type ReplyTo<K extends WebviewRequest['type']> = K extends keyof ReplyTable ? ReplyTable[K] : never;
