/** docs/contracts.md §3.4, "Status bar". Editor-free, so the exact texts are unit-tested. */
import type { UsageFigures } from '../../core/index.js';
import { formatBytes } from '../../shared/bytes.js';

export interface StatusTexts {
  readonly text: string;
  readonly tooltip: string;
  readonly label: string;
}

const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The same figures as `bounded-evidence stats`. */
export function savingsLine(f: UsageFigures): string {
  if (f.outputs === 0) return 'No outputs recorded in the last 7 days.';
  return (
    `Last 7 days: ${plural(f.outputs, 'output')} ` +
    `(${formatBytes(f.outputBytes)}); a model was ` +
    `shown ${formatBytes(f.shownBytes)}` +
    ` and read back ${formatBytes(f.readBytes)} in ${plural(f.reads, 'read')}; saved ${formatBytes(f.savedBytes)}` +
    `${f.lostOutputs > 0 ? `; ${plural(f.lostOutputs, 'output')} lost bytes past a cap` : ''}.`
  );
}

export function statusTexts(
  totals: { runs: number; bytes: number; calls?: number; teamRuns?: number; teamCalls?: number },
  week: UsageFigures | undefined,
  running: number,
): StatusTexts {
  // With no run the store still holds its catalog's own few KiB: "0 runs · 4.0 KiB" read as evidence kept.
  const none = totals.runs === 0;
  // With team stores, each figure says whose it is: the bytes and the week are this machine's only.
  const team = totals.teamRuns;
  const here = team !== undefined ? 'local ' : '';
  const stored = none ? `no ${here}evidence` : `${plural(totals.runs, `${here}run`)} · ${formatBytes(totals.bytes)}`;
  const calls = none ? '' : `${totals.calls !== undefined ? ` (${plural(totals.calls, 'call')})` : ''} of evidence`;
  const teamShort = team !== undefined ? ` · ${plural(team, 'team run')}` : '';
  const teamCalls = totals.teamCalls !== undefined ? ` (${plural(totals.teamCalls, 'call')})` : '';
  const teamLong =
    team !== undefined ? ` ${plural(team, 'team run')}${teamCalls} listed read-only from team stores.` : '';
  const line = week ? savingsLine(week) : '';
  const saving = week ? ` ${team !== undefined ? line.replace(/^Last 7 days/, 'Local, last 7 days') : line}` : '';
  const empty = team !== undefined ? 'No local runs' : 'Nothing stored';
  return {
    text:
      running > 0
        ? `$(sync~spin) Capturing… · ${none ? 'nothing stored yet' : stored}${teamShort}`
        : `$(database) ${none ? empty : stored}${teamShort}`,
    tooltip:
      `Bounded Evidence: ${stored}${calls} ` +
      `stored${running > 0 ? `, ${plural(running, 'call')} running` : ''}.${teamLong}${saving} ` +
      'Click to open the inspector.',
    label:
      `Bounded Evidence: ${running > 0 ? 'capturing, ' : ''}${stored} stored.${teamLong}${saving} ` +
      'Open the inspector.',
  };
}
