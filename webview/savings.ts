/**
 * The Savings view's page: every figure the chart draws is also in the table below it, which is what a screen reader
 * reads (the canvas is one labelled image).
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LogarithmicScale,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import type {
  SavingsFiguresDto,
  SavingsGroupDto,
  SavingsHostToPage,
  SavingsPageToHost,
  SavingsRange,
} from '../src/shared/savingsProtocol.js';
import { h, replaceChildren } from './dom.js';
import { savedWords } from '../src/shared/savedWords.js';
import { humanBytes } from './format.js';

interface VsCodeApi {
  postMessage(m: SavingsPageToHost): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const api = acquireVsCodeApi();

const RANGES: readonly SavingsRange[] = [7, 30, 90];
const SERIES = [
  { name: 'Kept', field: 'outputBytes', cls: 'kept', colour: '--vscode-charts-blue', fallback: '#3794ff' },
  { name: 'Shown', field: 'shownBytes', cls: 'shown', colour: '--vscode-charts-orange', fallback: '#d18616' },
  { name: 'Read back', field: 'readBytes', cls: 'read', colour: '--vscode-charts-green', fallback: '#89d185' },
] as const;

const count = (n: number): string => n.toLocaleString('en-US');
const counted = (n: number, one: string): string => `${count(n)} ${n === 1 ? one : `${one}s`}`;

function share(f: SavingsFiguresDto): string {
  return f.outputBytes > 0 ? `${((100 * f.savedBytes) / f.outputBytes).toFixed(1)}%` : '–';
}

function dayLabel(day: string, long = false): string {
  const [y, m, d] = day.split('-').map(Number);
  const date = new Date(y!, m! - 1, d!);
  return date.toLocaleDateString(
    'en-GB',
    long ? { weekday: 'short', day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short' },
  );
}

Chart.register(BarController, BarElement, CategoryScale, LogarithmicScale, Tooltip);

/** VS Code sets them as CSS variables and changes them with the theme. */
function themeColour(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/**
 * Log scale: bytes span six orders of magnitude, and a linear axis would draw the answers as nothing. 0 draws no bar.
 */
function chartConfig(days: readonly SavingsGroupDto[]): ChartConfiguration<'bar', (number | null)[], string> {
  const max = Math.max(1024, ...days.flatMap((d) => SERIES.map((s) => d[s.field])));
  const decades = Math.ceil(Math.log(max) / Math.log(1024));
  const grid = themeColour('--vscode-editorWidget-border', '#8884');
  const text = themeColour('--vscode-foreground', '#888');
  return {
    type: 'bar',
    data: {
      labels: days.map((d) => dayLabel(d.key)),
      datasets: SERIES.map((s) => ({
        label: s.name,
        data: days.map((d) => (d[s.field] > 0 ? d[s.field] : null)),
        backgroundColor: themeColour(s.colour, s.fallback),
        maxBarThickness: 14,
      })),
    },
    options: {
      // No motion, also for people who asked for less.
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: {
          grid: { display: false },
          ticks: { color: text, maxRotation: 0, autoSkipPadding: 12, font: { size: 11 } },
        },
        y: {
          type: 'logarithmic',
          min: 1,
          max: 1024 ** decades,
          grid: { color: grid },
          ticks: {
            color: text,
            font: { size: 11 },
            callback: (v) => (Number(v) === 1 ? '1 B' : humanBytes(Number(v))),
          },
          // The grid at powers of 1024 (KiB, MiB, GiB), not the scale's powers of ten.
          afterBuildTicks: (axis) => {
            axis.ticks = Array.from({ length: decades + 1 }, (_, k) => ({ value: 1024 ** k }));
          },
        },
      },
      plugins: {
        tooltip: {
          callbacks: {
            title: (items) => dayLabel(days[items[0]!.dataIndex]!.key, true),
            label: (item) => `${item.dataset.label}: ${humanBytes(item.parsed.y ?? 0)}`,
          },
        },
      },
    },
  };
}

function legend(): HTMLElement {
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'Chart legend' },
    ...SERIES.map((s) => h('li', {}, h('span', { class: `swatch ${s.cls}`, 'aria-hidden': 'true' }), s.name)),
  );
}

function table(caption: string, head: readonly string[], rows: readonly (readonly string[])[]): HTMLElement {
  // Scrolls sideways (and takes focus, so a keyboard can scroll it) when the sidebar is narrower.
  return h(
    'div',
    { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...head.map((c, i) => h('th', { scope: 'col', class: i === 0 ? '' : 'num' }, c)))),
      h(
        'tbody',
        {},
        ...rows.map((r) =>
          h('tr', {}, ...r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', { class: 'num' }, c)))),
        ),
      ),
    ),
  );
}

function totals(f: SavingsFiguresDto, days: number): HTMLElement {
  const item = (term: string, value: string): HTMLElement[] => [h('dt', {}, term), h('dd', {}, value)];
  return h(
    'dl',
    { class: 'totals', 'aria-label': `Totals of the last ${days} days` },
    ...item('Saved', savedWords(f, humanBytes)),
    ...item('Outputs kept', `${count(f.outputs)} · ${humanBytes(f.outputBytes)}`),
    ...item(
      'Shown to a model',
      `${humanBytes(f.shownBytes)} in ${counted(f.shownOutputs, 'answer')} (${count(f.wholeOutputs)} whole)`,
    ),
    ...item(
      'Read back',
      `${humanBytes(f.readBytes)} in ${counted(f.reads, 'read')} of ${counted(f.recalledOutputs, 'output')}`,
    ),
    ...item('Lost past a cap', `${counted(f.lostOutputs, 'output')} · ${humanBytes(f.lostBytes)}`),
  );
}

const commandName = (key: string): string => (key === '' ? '(no command)' : key);

function render(r: Extract<SavingsHostToPage, { type: 'report' }>): void {
  const main = document.getElementById('savings')!;
  const ranges = h(
    'div',
    { class: 'ranges', role: 'group', 'aria-label': 'Range' },
    ...RANGES.map((d) => {
      const b = h('button', { type: 'button', 'aria-pressed': d === r.days ? 'true' : 'false' }, `${d} days`);
      b.addEventListener('click', () => api.postMessage({ type: 'range', days: d }));
      return b;
    }),
  );
  const empty = r.total.outputs === 0;
  replaceChildren(
    main,
    h('h2', { id: 'heading' }, 'Savings'),
    ranges,
    h(
      'p',
      { id: 'status', role: 'status' },
      empty
        ? `Nothing recorded in the last ${r.days} days.`
        : `Last ${r.days} days: ${humanBytes(r.total.savedBytes)} the model never had to read.`,
    ),
    totals(r.total, r.days),
    h('h3', {}, 'Per day'),
    legend(),
    h('div', { id: 'chart' }),
    table(
      `Bytes per day, last ${r.days} days (the chart's figures)`,
      ['Day', 'Kept', 'Shown', 'Read back', 'Saved'],
      [...r.byDay]
        .reverse()
        .filter((d) => d.outputs > 0)
        .map((d) => [
          dayLabel(d.key, true),
          humanBytes(d.outputBytes),
          humanBytes(d.shownBytes),
          humanBytes(d.readBytes),
          humanBytes(d.savedBytes),
        ]),
    ),
    h('h3', {}, 'Top commands by bytes saved'),
    r.topSaved.length
      ? table(
          'Commands by bytes saved',
          ['Command', 'Outputs', 'Output', 'Shown', 'Saved', 'Saved %'],
          r.topSaved.map((g) => [
            commandName(g.key),
            count(g.outputs),
            humanBytes(g.outputBytes),
            humanBytes(g.shownBytes),
            humanBytes(g.savedBytes),
            share(g),
          ]),
        )
      : h('p', {}, 'No command saved bytes in this range.'),
    h('h3', {}, 'Top commands by recalls'),
    r.topRecalled.length
      ? table(
          'Commands by reads back',
          ['Command', 'Reads', 'Outputs read', 'Read back'],
          r.topRecalled.map((g) => [
            commandName(g.key),
            count(g.reads),
            count(g.recalledOutputs),
            humanBytes(g.readBytes),
          ]),
        )
      : h('p', {}, 'No output was read back by handle in this range.'),
    h(
      'p',
      { class: 'note' },
      'Saved = output bytes − every byte shown of them (answers and reads back), ' +
        'per output; an output the model was shown whole saves nothing. Same figures ' +
        'as bounded-evidence stats.',
    ),
  );
  main.setAttribute('aria-busy', 'false');
  shown = r;
  drawChart();
}

let shown: Extract<SavingsHostToPage, { type: 'report' }> | undefined;
let drawn: Chart<'bar', (number | null)[], string> | undefined;
function drawChart(): void {
  const box = document.getElementById('chart');
  drawn?.destroy();
  drawn = undefined;
  if (!box || !shown) return;
  const days = shown.byDay;
  const perDay = days.map(
    (d) =>
      `${dayLabel(d.key)}: kept ${humanBytes(d.outputBytes)}, ` +
      `shown ${humanBytes(d.shownBytes)}, read back ${humanBytes(d.readBytes)}`,
  );
  const label = `Bytes per day, log scale: ${perDay.join('; ')}`;
  const canvas = h('canvas', { class: 'chart', role: 'img', 'aria-label': label.slice(0, 4000) });
  replaceChildren(box, canvas);
  drawn = new Chart(canvas, chartConfig(days));
}
// A theme change sets new colour variables and body classes: draw again in the new colours.
new MutationObserver(() => {
  if (shown) drawChart();
}).observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-id'] });

window.addEventListener('message', (e: MessageEvent<SavingsHostToPage>) => {
  const m = e.data;
  if (m.type === 'report') render(m);
  else if (m.type === 'error') {
    const main = document.getElementById('savings')!;
    replaceChildren(
      main,
      h('h2', { id: 'heading' }, 'Savings'),
      h('p', { id: 'status', role: 'alert', class: 'error' }, m.message),
    );
    main.setAttribute('aria-busy', 'false');
  }
});
api.postMessage({ type: 'ready' });
