/**
 * The Savings view's page (src/extension/savingsView.ts): what the model was spared, per day
 * and per command, from the host's report (src/shared/savingsProtocol.ts). The chart is the
 * platform's SVG, built element by element (never markup); every figure it draws is also in
 * the table below it, which is what a screen reader reads (the chart is one labelled image).
 */
import type { SavingsFiguresDto, SavingsGroupDto, SavingsHostToPage, SavingsPageToHost, SavingsRange } from '../src/shared/savingsProtocol.js';
import { h, replaceChildren } from './dom.js';
import { humanBytes } from './format.js';

interface VsCodeApi { postMessage(m: SavingsPageToHost): void }
declare function acquireVsCodeApi(): VsCodeApi;
const api = acquireVsCodeApi();

const SVG = 'http://www.w3.org/2000/svg';
const RANGES: readonly SavingsRange[] = [7, 30, 90];
/** The three series, in the chart's and the table's order, with the theme colour of each (a class). */
const SERIES = [
  { name: 'Kept', field: 'outputBytes', cls: 'kept' },
  { name: 'Shown', field: 'shownBytes', cls: 'shown' },
  { name: 'Read back', field: 'readBytes', cls: 'read' },
] as const;

const count = (n: number): string => n.toLocaleString('en-US');
const counted = (n: number, one: string): string => `${count(n)} ${n === 1 ? one : `${one}s`}`;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Saved as a share of the output bytes (`99.4%`), `–` with no output. */
function share(f: SavingsFiguresDto): string {
  return f.outputBytes > 0 ? `${((100 * f.savedBytes) / f.outputBytes).toFixed(1)}%` : '–';
}

/** `Mon 30 Nov` of a `YYYY-MM-DD` day. */
function dayLabel(day: string, long = false): string {
  const [y, m, d] = day.split('-').map(Number);
  const date = new Date(y!, m! - 1, d!);
  return date.toLocaleDateString('en-GB', long ? { weekday: 'short', day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short' });
}

/**
 * Bars per day on a log scale (bytes span six orders of magnitude: a linear axis would draw the
 * answers as nothing beside the outputs). Powers of 1024 are the grid lines; 0 draws no bar.
 */
function chart(days: readonly SavingsGroupDto[], width: number): SVGSVGElement {
  const height = 200; const left = 56; const bottom = 28; const top = 10;
  const max = Math.max(1024, ...days.flatMap((d) => SERIES.map((s) => d[s.field])));
  const decades = Math.ceil(Math.log(max) / Math.log(1024));
  const y = (v: number): number => top + (height - top - bottom) * (1 - Math.log(Math.max(1, v)) / Math.log(1024 ** decades));
  const label = `Bytes per day, log scale: ${days.map((d) => `${dayLabel(d.key)}: kept ${humanBytes(d.outputBytes)}, shown ${humanBytes(d.shownBytes)}, read back ${humanBytes(d.readBytes)}`).join('; ')}`;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label.slice(0, 4000), class: 'chart', width, height });
  for (let k = 0; k <= decades; k++) {
    const v = 1024 ** k;
    const yy = y(v);
    root.append(svg('line', { x1: left, x2: width, y1: yy, y2: yy, class: 'grid' }));
    root.append(svg('text', { x: left - 6, y: yy + 4, 'text-anchor': 'end', class: 'axis' }, k === 0 ? '1 B' : humanBytes(v)));
  }
  const slot = (width - left) / Math.max(1, days.length);
  const bar = Math.max(1, Math.min(14, (slot - 4) / SERIES.length));
  // Day labels at least 48 px apart (about 5 characters of 11 px text).
  const every = Math.max(1, Math.ceil(48 / slot));
  days.forEach((d, i) => {
    const x0 = left + i * slot + (slot - bar * SERIES.length) / 2;
    SERIES.forEach((s, k) => {
      const v = d[s.field];
      if (v <= 0) return;
      const yy = y(v);
      const rect = svg('rect', { x: x0 + k * bar, y: yy, width: Math.max(1, bar - 1), height: height - bottom - yy, class: `bar ${s.cls}` });
      rect.append(svg('title', {}, `${dayLabel(d.key, true)}, ${s.name.toLowerCase()}: ${humanBytes(v)}`));
      root.append(rect);
    });
    if ((days.length - 1 - i) % every === 0) {
      // A label near the right edge ends there instead of being cut.
      const x = left + i * slot + slot / 2;
      const edge = x + 24 > width;
      root.append(svg('text', { x: edge ? width - 1 : x, y: height - 8, 'text-anchor': edge ? 'end' : 'middle', class: 'axis' }, dayLabel(d.key)));
    }
  });
  return root;
}

function legend(): HTMLElement {
  return h('ul', { class: 'legend', 'aria-label': 'Chart legend' }, ...SERIES.map((s) => h('li', {}, h('span', { class: `swatch ${s.cls}`, 'aria-hidden': 'true' }), s.name)));
}

/** A table: header cells with scope, numbers right-aligned. */
function table(caption: string, head: readonly string[], rows: readonly (readonly string[])[]): HTMLElement {
  // In a region that scrolls sideways (and takes focus, so a keyboard can scroll it) when the sidebar is narrower.
  return h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': caption }, h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...head.map((c, i) => h('th', { scope: 'col', class: i === 0 ? '' : 'num' }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', { class: 'num' }, c))))))));
}

function totals(f: SavingsFiguresDto, days: number): HTMLElement {
  const item = (term: string, value: string): HTMLElement[] => [h('dt', {}, term), h('dd', {}, value)];
  return h('dl', { class: 'totals', 'aria-label': `Totals of the last ${days} days` },
    ...item('Saved', `${humanBytes(f.savedBytes)} (${share(f)} of output bytes)`),
    ...item('Outputs kept', `${count(f.outputs)} · ${humanBytes(f.outputBytes)}`),
    ...item('Shown to a model', `${humanBytes(f.shownBytes)} in ${counted(f.shownOutputs, 'answer')} (${count(f.wholeOutputs)} whole)`),
    ...item('Read back', `${humanBytes(f.readBytes)} in ${counted(f.reads, 'read')} of ${counted(f.recalledOutputs, 'output')}`),
    ...item('Lost past a cap', `${counted(f.lostOutputs, 'output')} · ${humanBytes(f.lostBytes)}`));
}

const commandName = (key: string): string => (key === '' ? '(no command)' : key);

function render(r: Extract<SavingsHostToPage, { type: 'report' }>): void {
  const main = document.getElementById('savings')!;
  const ranges = h('div', { class: 'ranges', role: 'group', 'aria-label': 'Range' }, ...RANGES.map((d) => {
    const b = h('button', { type: 'button', 'aria-pressed': d === r.days ? 'true' : 'false' }, `${d} days`);
    b.addEventListener('click', () => api.postMessage({ type: 'range', days: d }));
    return b;
  }));
  const empty = r.total.outputs === 0;
  replaceChildren(main,
    h('h2', { id: 'heading' }, 'Savings'),
    ranges,
    h('p', { id: 'status', role: 'status' }, empty ? `Nothing recorded in the last ${r.days} days.` : `Last ${r.days} days: ${humanBytes(r.total.savedBytes)} the model never had to read.`),
    totals(r.total, r.days),
    h('h3', {}, 'Per day'),
    legend(),
    h('div', { id: 'chart' }),
    table(`Bytes per day, last ${r.days} days (the chart's figures)`, ['Day', 'Kept', 'Shown', 'Read back', 'Saved'],
      [...r.byDay].reverse().filter((d) => d.outputs > 0).map((d) => [dayLabel(d.key, true), humanBytes(d.outputBytes), humanBytes(d.shownBytes), humanBytes(d.readBytes), humanBytes(d.savedBytes)])),
    h('h3', {}, 'Top commands by bytes saved'),
    r.topSaved.length
      ? table('Commands by bytes saved', ['Command', 'Outputs', 'Output', 'Shown', 'Saved', 'Saved %'],
        r.topSaved.map((g) => [commandName(g.key), count(g.outputs), humanBytes(g.outputBytes), humanBytes(g.shownBytes), humanBytes(g.savedBytes), share(g)]))
      : h('p', {}, 'No command saved bytes in this range.'),
    h('h3', {}, 'Top commands by recalls'),
    r.topRecalled.length
      ? table('Commands by reads back', ['Command', 'Reads', 'Outputs read', 'Read back'],
        r.topRecalled.map((g) => [commandName(g.key), count(g.reads), count(g.recalledOutputs), humanBytes(g.readBytes)]))
      : h('p', {}, 'No output was read back by handle in this range.'),
    h('p', { class: 'note' }, 'Saved = output bytes − every byte shown of them (answers and reads back), per output; an output the model was shown whole saves nothing. Same figures as bounded-evidence stats.'),
  );
  main.setAttribute('aria-busy', 'false');
  shown = r;
  drawChart();
}

/** The report on screen, redrawn at the view's width (in CSS pixels: the text stays 11 px at any width). */
let shown: Extract<SavingsHostToPage, { type: 'report' }> | undefined;
let drawnWidth = 0;
function drawChart(): void {
  const box = document.getElementById('chart');
  if (!box || !shown) return;
  const width = Math.max(240, Math.floor(box.clientWidth));
  drawnWidth = width;
  replaceChildren(box, chart(shown.byDay, width));
}
new ResizeObserver(() => {
  const box = document.getElementById('chart');
  if (box && Math.abs(Math.floor(box.clientWidth) - drawnWidth) > 4) drawChart();
}).observe(document.body);

window.addEventListener('message', (e: MessageEvent<SavingsHostToPage>) => {
  const m = e.data;
  if (m.type === 'report') render(m);
  else if (m.type === 'error') {
    const main = document.getElementById('savings')!;
    replaceChildren(main, h('h2', { id: 'heading' }, 'Savings'), h('p', { id: 'status', role: 'alert', class: 'error' }, m.message));
    main.setAttribute('aria-busy', 'false');
  }
});
api.postMessage({ type: 'ready' });
