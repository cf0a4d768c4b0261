/**
 * Savings you can see (docs/contracts.md §2.14): sums from the catalog's `usage` rollup, so a report never reads a
 * run log. Bytes shown are the exact texts a model was handed; saved is output minus those, never below 0, and 0 for
 * an output seen whole or never shown.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { UsageSums } from '../catalog/reads.js';

export type UsageDimension = 'agent' | 'tool' | 'command' | 'day';

export const USAGE_DIMENSIONS: readonly UsageDimension[] = ['agent', 'tool', 'command', 'day'];

export interface UsageQuery {
  /** Counted by the hour: the hour it falls in is included. */
  readonly sinceMs?: number;
  /** By the hour. */
  readonly untilMs?: number;
  readonly by?: UsageDimension;
  /** 1–1000; day: every day of the range. */
  readonly limit?: number;
}

export interface UsageFigures {
  /** A command's stdout and stderr as observed, any other call's result. */
  readonly outputs: number;
  readonly outputBytes: number;
  readonly keptBytes: number;
  /** Past a capture cap, or with no blob store. */
  readonly lostOutputs: number;
  readonly lostBytes: number;
  /** First views. */
  readonly shownOutputs: number;
  readonly shownBytes: number;
  /** Never counted as saved. */
  readonly wholeOutputs: number;
  readonly reads: number;
  readonly readBytes: number;
  readonly recalledOutputs: number;
  /** Over outputs shown and not whole. */
  readonly savedBytes: number;
  /** Outputs no model reached (never shown, never read back: a person's own captures) and their output bytes. */
  readonly unreachedOutputs: number;
  readonly unreachedBytes: number;
}

export interface UsageGroup extends UsageFigures {
  /** '' for calls that ran no command; a day is local `YYYY-MM-DD`. */
  readonly key: string;
}

export interface UsageReport {
  readonly by: UsageDimension;
  /** Hour boundaries; `since` absent: from the first call. */
  readonly since?: string;
  readonly until: string;
  readonly total: UsageFigures;
  /** Largest saving first (day: oldest first, empty days of a bounded range too). */
  readonly groups: readonly UsageGroup[];
  readonly more: number;
}

const HOUR_MS = 3_600_000;
const MAX_FILLED_DAYS = 400;

export const EMPTY_FIGURES: UsageFigures = {
  outputs: 0,
  outputBytes: 0,
  keptBytes: 0,
  lostOutputs: 0,
  lostBytes: 0,
  shownOutputs: 0,
  shownBytes: 0,
  wholeOutputs: 0,
  reads: 0,
  readBytes: 0,
  recalledOutputs: 0,
  savedBytes: 0,
  unreachedOutputs: 0,
  unreachedBytes: 0,
};

function figuresOf(s: UsageSums): UsageFigures {
  return {
    outputs: s.outputs,
    outputBytes: s.out_bytes,
    keptBytes: s.kept_bytes,
    lostOutputs: s.lost,
    lostBytes: s.lost_bytes,
    shownOutputs: s.shown,
    shownBytes: s.shown_bytes,
    wholeOutputs: s.whole,
    reads: s.reads,
    readBytes: s.read_bytes,
    recalledOutputs: s.recalled,
    savedBytes: s.saved,
    unreachedOutputs: s.unreached,
    unreachedBytes: s.unreached_bytes,
  };
}

function addFigures(a: UsageFigures, b: UsageFigures): UsageFigures {
  const out: Record<string, number> = {};
  for (const k of Object.keys(EMPTY_FIGURES) as (keyof UsageFigures)[]) out[k] = a[k] + b[k];
  return out as unknown as UsageFigures;
}

export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** docs/contracts.md §2.14. */
function checkQuery(q: UsageQuery): void {
  const time = (name: string, v: number | undefined): void => {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0))
      throw new RangeError(`${name} must be a time (epoch milliseconds, not negative)`);
  };
  time('sinceMs', q.sinceMs);
  time('untilMs', q.untilMs);
  if (q.by !== undefined && !USAGE_DIMENSIONS.includes(q.by))
    throw new RangeError(`by must be one of ${USAGE_DIMENSIONS.join(', ')}`);
  if (q.limit !== undefined && !(Number.isInteger(q.limit) && q.limit >= 1 && q.limit <= 1000))
    throw new RangeError('limit must be an integer from 1 to 1000');
}

export function usageReport(catalog: Catalog, query: UsageQuery = {}, now = Date.now()): UsageReport {
  checkQuery(query);
  const by = query.by ?? 'command';
  const limit = query.limit ?? 50;
  const fromHour = query.sinceMs === undefined ? undefined : Math.floor(query.sinceMs / HOUR_MS);
  const toHour = Math.ceil((query.untilMs ?? now) / HOUR_MS);
  const range = { from: fromHour ?? Number.MIN_SAFE_INTEGER, to: toHour };
  const total = figuresOf(catalog.usageSums(range));
  let groups: UsageGroup[];
  if (by === 'day') {
    const days = new Map<string, UsageFigures>();
    if (fromHour !== undefined && toHour - fromHour <= MAX_FILLED_DAYS * 24) {
      for (let h = fromHour; h < toHour; h += 1) days.set(localDay(h * HOUR_MS), EMPTY_FIGURES);
    }
    for (const { key, sums } of catalog.usageSums(range, 'hour')) {
      const day = localDay(Number(key) * HOUR_MS);
      days.set(day, addFigures(days.get(day) ?? EMPTY_FIGURES, figuresOf(sums)));
    }
    groups = [...days].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, f]) => ({ key, ...f }));
    // The newest days are kept when there are more than `limit`.
    const more = Math.max(0, groups.length - limit);
    groups = groups.slice(more);
    return {
      by,
      ...(fromHour !== undefined ? { since: new Date(fromHour * HOUR_MS).toISOString() } : {}),
      until: new Date(toHour * HOUR_MS).toISOString(),
      total,
      groups,
      more,
    };
  }
  groups = catalog
    .usageSums(range, by)
    .map(({ key, sums }) => ({ key, ...figuresOf(sums) }))
    .sort(
      (a, b) =>
        b.savedBytes - a.savedBytes || b.outputBytes - a.outputBytes || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
  const more = Math.max(0, groups.length - limit);
  return {
    by,
    ...(fromHour !== undefined ? { since: new Date(fromHour * HOUR_MS).toISOString() } : {}),
    until: new Date(toHour * HOUR_MS).toISOString(),
    total,
    groups: groups.slice(0, limit),
    more,
  };
}
