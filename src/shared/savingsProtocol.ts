/**
 * Messages between the Savings view (a webview view in the Runs sidebar, webview/savings.ts)
 * and the extension host (src/extension/savings/savingsView.ts), both ways. Types only: the page
 * imports this file for checking, never at run time, and the host validates every message
 * the page sends (src/extension/savings/savingsMessages.ts): a webview is untrusted. The figures are
 * the core's `UsageFigures` (docs/contracts.md §2.14), copied field for field.
 */

/** The figures of a set of calls (the core's `UsageFigures`). */
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

/** One group: a local day (`YYYY-MM-DD`) or a command word ('' for calls that ran no command). */
export interface SavingsGroupDto extends SavingsFiguresDto {
  readonly key: string;
}

/** The ranges the view offers, in days. */
export const SAVINGS_RANGES = [7, 30, 90] as const;
export type SavingsRange = (typeof SAVINGS_RANGES)[number];

/** Host → page. */
export type SavingsHostToPage =
  | {
      readonly type: 'report';
      readonly days: SavingsRange;
      /** The range as counted (ISO 8601, hour boundaries). */
      readonly since: string;
      readonly until: string;
      readonly total: SavingsFiguresDto;
      /** Every day of the range, oldest first. */
      readonly byDay: readonly SavingsGroupDto[];
      /** Commands with the most bytes saved, then with the most reads back (at most 10 each). */
      readonly topSaved: readonly SavingsGroupDto[];
      readonly topRecalled: readonly SavingsGroupDto[];
    }
  | { readonly type: 'error'; readonly message: string };

/** Page → host. */
export type SavingsPageToHost = { readonly type: 'ready' } | { readonly type: 'range'; readonly days: SavingsRange };
