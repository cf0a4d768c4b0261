/** One object, owned by the detail view; a widget writes only what it fetched. */
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

export type Tab = NonNullable<InspectorViewState['form']>['tab'];
export const tabs: readonly Tab[] = ['bytes', 'lines', 'pattern'];

interface PatternState {
  readonly pattern: string;
  readonly total: number;
  readonly offset: number;
  readonly matches: readonly MatchDto[];
  readonly index: number;
  readonly binary: boolean;
}

export interface ReadAhead {
  readonly key: string;
  readonly reply: Promise<Reply>;
}

export interface DetailState {
  ref: PartRef | undefined;
  part: PartDto | undefined;
  limits: InspectorLimitsDto;
  current: WindowDto | undefined;
  /** Saved, and what Previous / Next move from. */
  currentReq: WindowRequestDto | undefined;
  /** 0-based within it. */
  currentMarkRow: number | undefined;
  pattern: PatternState | undefined;
  /** A reply for an older one is dropped. */
  seq: number;
}

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
