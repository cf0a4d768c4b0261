/**
 * Savings you can see (docs/contracts.md §2.14): what the model was spared and what it
 * read back, for any time range of one tenant, per agent, tool, command word or day. The
 * figures are sums the catalog keeps in its `usage` rollup (catalog/database.ts), updated
 * in the same transaction as each record's row, so a report reads at most one row per
 * hour and key of the range and never a run log: constant work per recorded call, and a
 * report at 100,000 runs in milliseconds (`npm run bench -- stats`).
 *
 * Honest to the byte: a call's bytes shown are the UTF-8 bytes of the exact texts a
 * model was handed (its answer, and every `read_tool_output` reply over its handles, as
 * the front ends note them in `call_shown` records); bytes saved are its output bytes
 * minus those, never below 0, and 0 for an output the model saw whole anyway or was never
 * shown. A call recorded before answers were noted counts as an output, never as saved.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { UsageSums } from '../catalog/reads.js';

/** How a report groups its figures. */
export type UsageDimension = 'agent' | 'tool' | 'command' | 'day';

export const USAGE_DIMENSIONS: readonly UsageDimension[] = ['agent', 'tool', 'command', 'day'];

/** A report's range and grouping (`RunStore.usage`). */
export interface UsageQuery {
  /**
   * Only calls started at or after this time (epoch ms; counted by the hour: the hour it falls in is included).
   * Default: all.
   */
  readonly sinceMs?: number;
  /** Only calls started before this time (epoch ms, by the hour). Default: now. */
  readonly untilMs?: number;
  /** Default `command`. */
  readonly by?: UsageDimension;
  /** Groups kept, largest saving first (day: every day of the range), 1–1000; default 50. */
  readonly limit?: number;
}

/** The figures of a set of calls. */
export interface UsageFigures {
  /**
   * Finished calls (outputs kept) and their output bytes: a command's stdout and stderr as observed, any other call's
   * result.
   */
  readonly outputs: number;
  readonly outputBytes: number;
  /** Of those bytes, the ones kept (readable by handle). */
  readonly keptBytes: number;
  /** Outputs that lost bytes (past a capture cap, or with no blob store) and how many. */
  readonly lostOutputs: number;
  readonly lostBytes: number;
  /** Outputs a model was handed an answer for, and the answers' bytes (first views). */
  readonly shownOutputs: number;
  readonly shownBytes: number;
  /** Outputs whose answer held them whole (nothing spared: never counted as saved). */
  readonly wholeOutputs: number;
  /** Reads back by handle (`read_tool_output` replies) and their bytes; outputs read at least once. */
  readonly reads: number;
  readonly readBytes: number;
  readonly recalledOutputs: number;
  /** Output bytes minus every byte shown, over outputs shown and not whole (each never below 0). */
  readonly savedBytes: number;
  /** Outputs no model reached (never shown, never read back: a person's own captures) and their output bytes. */
  readonly unreachedOutputs: number;
  readonly unreachedBytes: number;
}

/** One group of a report. */
export interface UsageGroup extends UsageFigures {
  /** The agent (or source kind), tool, command word ('' for calls that ran no command) or local day (`YYYY-MM-DD`). */
  readonly key: string;
}

/** What `usage` answers. */
export interface UsageReport {
  readonly by: UsageDimension;
  /** The range as counted: hour boundaries, ISO 8601 (`since` absent: from the first call). */
  readonly since?: string;
  readonly until: string;
  readonly total: UsageFigures;
  /**
   * Groups with at least one output (day: every day of a bounded range, empty ones too), largest saving first (day:
   * oldest first).
   */
  readonly groups: readonly UsageGroup[];
  /** Groups left out by `limit`. */
  readonly more: number;
}

const HOUR_MS = 3_600_000;
/** Days a report by day fills in at most (empty days of a bounded range). */
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

/** The sum of two sets of figures. */
function addFigures(a: UsageFigures, b: UsageFigures): UsageFigures {
  const out: Record<string, number> = {};
  for (const k of Object.keys(EMPTY_FIGURES) as (keyof UsageFigures)[]) out[k] = a[k] + b[k];
  return out as unknown as UsageFigures;
}

/** The local calendar day (`YYYY-MM-DD`) of an epoch time. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Checks a query's values; a bad one is a clear error (docs/contracts.md §2.14). */
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

/** A report over the catalog's rollup (`RunStore.usage`). */
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
