/**
 * What the detail's widgets share: the part shown, the host's limits, and the window on
 * screen with the request that asked for it. One object, owned by the detail view and
 * handed to each widget; a widget reads it and writes only what it fetched.
 */
import type {
  InspectorLimitsDto,
  InspectorViewState,
  MatchDto,
  PartDto,
  PartRef,
  WindowDto,
  WindowRequestDto,
} from '../../src/shared/protocol.js';
import type { Reply } from '../rpc.js';

/** The fetch form's tabs, in their order on screen. */
export type Tab = NonNullable<InspectorViewState['form']>['tab'];
export const tabs: readonly Tab[] = ['bytes', 'lines', 'pattern'];

/** The pattern searched in the part shown, and the page of its matches held. */
interface PatternState {
  readonly pattern: string;
  readonly total: number;
  /** Index of the first match held. */
  readonly offset: number;
  readonly matches: readonly MatchDto[];
  /** The current match (0-based, over all matches). */
  readonly index: number;
  readonly binary: boolean;
}

/** A reply asked for before it is needed, by the key of its request. */
export interface ReadAhead {
  readonly key: string;
  readonly reply: Promise<Reply>;
}

/** The detail's shared state. */
export interface DetailState {
  ref: PartRef | undefined;
  part: PartDto | undefined;
  limits: InspectorLimitsDto;
  /** The window on screen. */
  current: WindowDto | undefined;
  /** What asked for it (a pattern's match, when one is shown): saved, and what Previous / Next move from. */
  currentReq: WindowRequestDto | undefined;
  /** The row marked in the window on screen (a matched or linked line), 0-based within it. */
  currentMarkRow: number | undefined;
  pattern: PatternState | undefined;
  /** Bumped by every fetch and reset: a reply for an older one is dropped. */
  seq: number;
}

/** The state before the host's `init` said its limits. */
export function initialDetailState(): DetailState {
  return {
    ref: undefined,
    part: undefined,
    limits: {
      maxWindowBytes: 65536,
      maxLines: 1000,
      maxMatches: 1000,
      maxPatternChars: 1024,
      maxHandleChars: 256,
      maxSearchMatches: 100,
    },
    current: undefined,
    currentReq: undefined,
    currentMarkRow: undefined,
    pattern: undefined,
    seq: 0,
  };
}
