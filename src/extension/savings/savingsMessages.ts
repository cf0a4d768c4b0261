/** The Savings view's host side without `vscode`, for unit tests. */
import type { RunStoreApi, UsageFigures, UsageGroup } from '../../core/index.js';
import {
  SAVINGS_RANGES,
  type SavingsFiguresDto,
  type SavingsGroupDto,
  type SavingsHostToPage,
  type SavingsPageToHost,
  type SavingsRange,
} from '../../shared/savingsProtocol.js';

export function parseSavingsMessage(
  m: unknown,
): { ok: true; message: SavingsPageToHost } | { ok: false; error: string } {
  if (typeof m !== 'object' || m === null || Array.isArray(m))
    return { ok: false, error: 'a message must be an object' };
  const o = m as Record<string, unknown>;
  const extra = (allowed: string[]): string | undefined =>
    Object.keys(o).find((k) => k !== 'type' && !allowed.includes(k));
  if (o.type === 'ready') {
    const k = extra([]);
    return k === undefined
      ? { ok: true, message: { type: 'ready' } }
      : { ok: false, error: `unexpected field "${k.slice(0, 40)}"` };
  }
  if (o.type === 'range') {
    const k = extra(['days']);
    if (k !== undefined) return { ok: false, error: `unexpected field "${k.slice(0, 40)}"` };
    if (!SAVINGS_RANGES.includes(o.days as SavingsRange))
      return { ok: false, error: `"days" must be one of ${SAVINGS_RANGES.join(', ')}` };
    return { ok: true, message: { type: 'range', days: o.days as SavingsRange } };
  }
  return { ok: false, error: 'unknown message type' };
}

const TOP = 10;

type SameFields<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Holds<T extends true> = T;
/**
 * The page's figures mirror the core's field for field (src/shared may not import the core,
 * so the type is written twice): a field added, dropped or renamed on one side only fails the
 * type check here, where both are in reach. Exported only so `noUnusedLocals` keeps the check.
 * @public
 */
export type FiguresMirrored = Holds<SameFields<UsageFigures, SavingsFiguresDto>>;

function dto(g: UsageGroup): SavingsGroupDto {
  return { ...figures(g), key: g.key };
}

function figures(f: UsageFigures): UsageFigures {
  return {
    outputs: f.outputs,
    outputBytes: f.outputBytes,
    keptBytes: f.keptBytes,
    lostOutputs: f.lostOutputs,
    lostBytes: f.lostBytes,
    shownOutputs: f.shownOutputs,
    shownBytes: f.shownBytes,
    wholeOutputs: f.wholeOutputs,
    reads: f.reads,
    readBytes: f.readBytes,
    recalledOutputs: f.recalledOutputs,
    savedBytes: f.savedBytes,
    unreachedOutputs: f.unreachedOutputs,
    unreachedBytes: f.unreachedBytes,
  };
}

/** Three reads of the catalog's rollup. */
export async function savingsReport(
  runs: Pick<RunStoreApi, 'usage'>,
  days: SavingsRange,
  now = Date.now(),
): Promise<SavingsHostToPage> {
  const range = { sinceMs: now - days * 86_400_000, untilMs: now };
  const byDay = await runs.usage({ ...range, by: 'day', limit: 1000 });
  const commands = await runs.usage({ ...range, by: 'command', limit: 1000 });
  const recalled = [...commands.groups]
    .filter((g) => g.reads > 0)
    .sort((a, b) => b.reads - a.reads || b.readBytes - a.readBytes || (a.key < b.key ? -1 : 1));
  return {
    type: 'report',
    days,
    since: byDay.since ?? new Date(range.sinceMs).toISOString(),
    until: byDay.until,
    total: figures(byDay.total),
    byDay: byDay.groups.map(dto),
    topSaved: commands.groups
      .filter((g) => g.savedBytes > 0)
      .slice(0, TOP)
      .map(dto),
    topRecalled: recalled.slice(0, TOP).map(dto),
  };
}
