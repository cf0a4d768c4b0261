/** `stats` (docs/contracts.md §2.14, §6): a table for a person; `--json` prints the core's report as it is. */
import { USAGE_DIMENSIONS, type UsageDimension, type UsageReport } from '../core/index.js';
import { formatBytes } from '../shared/bytes.js';
import { savedShare, savedWords } from '../shared/savedWords.js';
import { parseFlags, UsageError } from './args.js';
import type { CliIo } from './io.js';
import { openSession, storageDirOf } from './session.js';

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

export function sinceOf(raw: string | undefined, now: number): number | undefined {
  if (raw === undefined || raw === 'all') return undefined;
  const rel = /^([1-9][0-9]{0,5})([hdw])$/.exec(raw);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2]!]!;
  // A date alone is local midnight (Date.parse reads `YYYY-MM-DD` as UTC).
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const ms = day
    ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime()
    : /^\d{4}-\d{2}-\d{2}T/.test(raw)
      ? Date.parse(raw)
      : NaN;
  if (!Number.isFinite(ms))
    throw new UsageError('--since must be like 12h, 7d, 2w, all, or a date (2026-11-30) or ISO time');
  return ms;
}

const shortBytes = (n: number): string => formatBytes(n, 'short');

const count = (n: number): string => n.toLocaleString('en-US');
const counted = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;

const HEADINGS: Readonly<Record<UsageDimension, string>> = {
  agent: 'Agent',
  tool: 'Tool',
  command: 'Command',
  day: 'Day',
};

export function statsTable(r: UsageReport, rangeWords: string): string {
  const t = r.total;
  const lines = [
    `Bounded Evidence savings, ${rangeWords}`,
    '',
    `Outputs kept:      ${count(t.outputs)} (${shortBytes(t.outputBytes)} produced, ${shortBytes(t.keptBytes)} kept)`,
    `Lost past a cap:   ${counted(t.lostOutputs, 'output')} (${shortBytes(t.lostBytes)} not kept)`,
    `Shown to a model:  ${shortBytes(t.shownBytes)} ` +
      `in ${counted(t.shownOutputs, 'answer')} (${count(t.wholeOutputs)} shown ` +
      `whole)`,
    `Read back:         ${shortBytes(t.readBytes)} ` +
      `in ${counted(t.reads, 'read')} of ${counted(t.recalledOutputs, 'output')}`,
    `Saved:             ${savedWords(t, shortBytes)}`,
  ];
  if (r.groups.length === 0) return `${lines.join('\n')}\n\nNothing recorded in this range.\n`;
  const head = [HEADINGS[r.by], 'Outputs', 'Output', 'Shown', 'Read back', 'Recalls', 'Lost', 'Saved', 'Saved%'];
  const rows = r.groups.map((g) => [
    g.key === '' ? '(no command)' : g.key,
    count(g.outputs),
    shortBytes(g.outputBytes),
    shortBytes(g.shownBytes),
    shortBytes(g.readBytes),
    count(g.reads),
    count(g.lostOutputs),
    shortBytes(g.savedBytes),
    savedShare(g),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const fmt = (row: string[]): string =>
    row
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  lines.push('', fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt));
  if (r.more > 0) lines.push(`… and ${count(r.more)} more (--json lists up to 1000 with --limit)`);
  lines.push(
    '',
    'Saved = output bytes − bytes shown (answers + reads), per output; an output shown whole saves nothing.',
    "Saved% is of the output bytes a model reached; outputs no model reached (a person's own captures) save nothing.",
  );
  return `${lines.join('\n')}\n`;
}

export async function stats(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      storage: { type: 'string' },
      since: { type: 'string' },
      by: { type: 'string' },
      json: { type: 'boolean' },
      limit: { type: 'string' },
    },
    { min: 0, max: 0, name: 'argument' },
  );
  const by = (values.by ?? 'command') as UsageDimension;
  if (!USAGE_DIMENSIONS.includes(by)) throw new UsageError(`--by must be one of ${USAGE_DIMENSIONS.join(', ')}`);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000))
    throw new UsageError('--limit must be a whole number from 1 to 1000');
  const now = Date.now();
  const raw = values.since ?? '30d';
  const sinceMs = sinceOf(raw, now);
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  const report = await session.runs.usage({
    ...(sinceMs !== undefined ? { sinceMs } : {}),
    untilMs: now,
    by,
    ...(limit !== undefined ? { limit } : {}),
  });
  if (values.json) {
    await io.out(`${JSON.stringify(report)}\n`);
    return 0;
  }
  const words =
    sinceMs === undefined
      ? 'all time'
      : /^[0-9]+[hdw]$/.test(raw)
        ? `last ${raw} (since ${report.since})`
        : `since ${report.since}`;
  await io.out(statsTable(report, words));
  return 0;
}
