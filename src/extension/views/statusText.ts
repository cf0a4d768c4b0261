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
  totals: { runs: number; bytes: number; calls?: number },
  week: UsageFigures | undefined,
  running: number,
): StatusTexts {
  // With no run the store still holds its catalog's own few KiB: "0 runs · 4.0 KiB" read as evidence kept.
  const none = totals.runs === 0;
  const stored = none ? 'no evidence' : `${plural(totals.runs, 'run')} · ${formatBytes(totals.bytes)}`;
  const calls = none ? '' : `${totals.calls !== undefined ? ` (${plural(totals.calls, 'call')})` : ''} of evidence`;
  const saving = week ? ` ${savingsLine(week)}` : '';
  return {
    text:
      running > 0
        ? `$(sync~spin) Capturing… · ${none ? 'nothing stored yet' : stored}`
        : `$(database) ${none ? 'Nothing stored' : stored}`,
    tooltip:
      `Bounded Evidence: ${stored}${calls} ` +
      `stored${running > 0 ? `, ${plural(running, 'call')} running` : ''}.${saving} Click to open the inspector.`,
    label: `Bounded Evidence: ${running > 0 ? 'capturing, ' : ''}${stored} stored.${saving} Open the inspector.`,
  };
}
