/**
 * Types only: the host validates every message the page sends, as a webview is untrusted (docs/contracts.md §2.14).
 */

export interface SavingsFiguresDto {
  readonly outputs: number;
  readonly outputBytes: number;
  readonly keptBytes: number;
  readonly lostOutputs: number;
  readonly lostBytes: number;
  readonly shownOutputs: number;
  readonly shownBytes: number;
  readonly wholeOutputs: number;
  readonly reads: number;
  readonly readBytes: number;
  readonly recalledOutputs: number;
  readonly savedBytes: number;
  /** Outputs no model reached (a person's own captures) and their bytes. */
  readonly unreachedOutputs: number;
  readonly unreachedBytes: number;
}

export interface SavingsGroupDto extends SavingsFiguresDto {
  readonly key: string;
}

export const SAVINGS_RANGES = [7, 30, 90] as const;
export type SavingsRange = (typeof SAVINGS_RANGES)[number];

export type SavingsHostToPage =
  | {
      readonly type: 'report';
      readonly days: SavingsRange;
      readonly since: string;
      readonly until: string;
      readonly total: SavingsFiguresDto;
      readonly byDay: readonly SavingsGroupDto[];
      /** At most 10 each. */
      readonly topSaved: readonly SavingsGroupDto[];
      readonly topRecalled: readonly SavingsGroupDto[];
    }
  | { readonly type: 'error'; readonly message: string };

export type SavingsPageToHost = { readonly type: 'ready' } | { readonly type: 'range'; readonly days: SavingsRange };
