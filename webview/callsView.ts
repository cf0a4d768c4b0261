/**
 * The calls list: a toolbar (filter by tool, run, source, outcome and text; sort by time
 * or size; refresh) over a virtualised tree of runs, calls and attachment sub-rows. The
 * host answers pages of the list (docs/contracts.md §3.4): this view asks for the pages
 * that scroll into sight and for the pages on screen again when the query or the store
 * changes; the run and tool filters are searchable pickers, never one element per run.
 * Columns are resizable (drag a header edge, or focus it and use the arrows) and
 * remembered. Keyboard: arrows move, Home/End/PageUp/PageDown jump, Left/Right collapse
 * and expand a run or go to its parent, Enter opens the detail, `c` copies the row's
 * sha256. Every cell is text.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type {
  ListQueryDto,
  OutcomeFilterDto,
  PageReply,
  PageRequest,
  PartRef,
  RunDto,
} from '../src/shared/protocol.js';
import {
  CallsModel,
  outcomeOf,
  PAGE_SIZE,
  runOutcomeOf,
  partKey,
  queryOf,
  rowRef,
  type Filters,
  type Row,
  type RowSource,
} from './callsModel.js';
import { h, icon, replaceChildren } from './dom.js';
import { clockTime, count, exactBytes, humanBytes, localTime, shortSha } from './format.js';
import { VirtualList } from './virtualList.js';

/** Pixel height of one row (matches `.vlist-row` in inspector.css). */
const rowHeight = 24;

/** What the list tells the rest of the page. */
export interface CallsViewEvents {
  /** The selected part changed (arrows or click); `open` when the person asked to open it (Enter, double click). */
  select(ref: PartRef, open: boolean): void;
  /** Copy a short string (a sha256) through the host. */
  copy(text: string, what: string): void;
  /** Re-read everything from the store. */
  refresh(): void;
  /** Filters, sort, collapsed runs or column widths changed (for saved state). */
  changed(): void;
  /** Asks the host for one page of the list. */
  page(request: Omit<PageRequest, 'type' | 'id'>): Promise<PageReply>;
  /** Asks the host for runs whose id or label contains `text`, newest first. */
  pickRuns(text: string, limit: number): Promise<readonly RunDto[]>;
  /** A request failed: say so. */
  problem(message: string): void;
}

/** The list's resizable columns: cell class, header text, default track (the wide layout's). */
const columns: readonly (readonly [id: string, label: string])[] = [
  ['c1', 'Tool / output'],
  ['c2', 'Time'],
  ['c3', 'Status'],
  ['c4', 'Size'],
  ['c5', 'Handle'],
  ['c6', 'sha256'],
  ['c7', 'Stored'],
  ['c8', 'Details'],
];
/** Narrowest and widest a column may be dragged (CSS pixels). */
const minColumn = 40;
const maxColumn = 1200;
/** Widest a column is fitted to its content (a longer name or handle is cut, its tooltip whole). */
const maxFit = 360;
/** Pixels one arrow key press moves a column edge. */
const columnStep = 16;
/** Choices one picker answer lists. */
const pickerRuns = 30;

const statusIcon: Record<string, string> = {
  ok: 'pass',
  error: 'error',
  failed: 'warning',
  running: 'loading',
  interrupted: 'debug-disconnect',
  completed: 'pass',
  cancelled: 'circle-slash',
};

function option(value: string, label: string): HTMLElement {
  return h('vscode-option', { value }, label);
}

/** How a run source reads in the filter (docs/contracts.md §3.4). */
function sourceLabel(source: string): string {
  const names: Record<string, string> = {
    tool: 'Model tool calls',
    participant: '@evidence chat',
    cli: 'Command line (evidence CLI)',
    mcp: 'MCP server',
    command: 'Editor commands',
    api: 'Extension API',
    hook: "Agents' terminal commands (hooks)",
  };
  return names[source] ?? source;
}

/** How a run reads in the run picker. */
function runLabel(r: RunDto): string {
  return `${r.label ?? r.runId} · ${localTime(r.startedAt)}`;
}

/** One choice a picker offers. */
interface Choice {
  readonly value: string;
  readonly label: string;
  readonly title: string;
}

/**
 * A searchable filter: a text field that finds choices as the person types (the run
 * filter asks the host, `pickRuns`; the tool filter searches the tools the host listed)
 * and offers at most a few dozen in a list box, so 100,000 runs never become 100,000
 * elements. Arrow Down enters the list, Enter picks, Escape closes; emptying the field
 * is "all".
 */
class Picker {
  readonly element: HTMLElement;
  readonly field: VscodeTextfield;
  private readonly box: HTMLElement;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private seq = 0;
  /** The picked value ('' for all) and how it reads. */
  value = '';
  label = '';

  constructor(
    id: string,
    fieldLabel: string,
    placeholder: string,
    private readonly allLabel: string,
    private readonly search: (text: string) => Promise<readonly Choice[]>,
    private readonly changed: () => void,
  ) {
    this.field = h('vscode-textfield', { id, label: fieldLabel, placeholder });
    this.box = h('div', {
      id: `${id}-options`,
      class: 'picker-options',
      role: 'listbox',
      'aria-label': fieldLabel,
      hidden: true,
    });
    this.element = h('div', { class: 'picker' }, this.field, this.box);
    this.field.addEventListener('input', () => {
      if (!this.field.value.trim() && this.value) this.choose('', '');
      this.ask();
    });
    // The list opens when asked (a click, typing, ArrowDown), not when the field merely gets
    // focus: tabbing through the toolbar, or the page taking focus back from the palette,
    // must not drop a list over the buttons beside it (the ARIA combobox pattern).
    this.field.addEventListener('click', () => {
      if (this.box.hidden) this.ask();
    });
    this.field.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' && this.box.hidden) {
        e.preventDefault();
        this.ask();
        return;
      }
      if (e.key === 'ArrowDown' && !this.box.hidden) {
        e.preventDefault();
        (this.box.firstElementChild as HTMLElement | null)?.focus();
      }
      if (e.key === 'Escape' && !this.box.hidden) {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
      if (e.key === 'Enter') {
        e.preventDefault();
        (this.box.children[this.box.children.length > 1 ? 1 : 0] as HTMLElement | undefined)?.click();
      }
    });
    this.box.addEventListener('keydown', (e) => {
      const at = document.activeElement as HTMLElement | null;
      if (!at || at.parentElement !== this.box) return;
      if (e.key === 'ArrowDown') (at.nextElementSibling as HTMLElement | null)?.focus();
      else if (e.key === 'ArrowUp') {
        if (at.previousElementSibling) (at.previousElementSibling as HTMLElement).focus();
        else this.field.focus();
      } else if (e.key === 'Enter' || e.key === ' ') at.click();
      else if (e.key === 'Escape') {
        this.close();
        this.field.focus();
      } else return;
      e.preventDefault();
      e.stopPropagation();
    });
    this.element.addEventListener('focusout', (e) => {
      if (!this.element.contains(e.relatedTarget as Node | null)) this.close();
    });
  }

  /** Shows a saved choice. */
  set(value: string, label: string): void {
    this.value = value;
    this.label = label;
    this.field.value = value ? label || value : '';
  }

  private choose(value: string, label: string): void {
    this.set(value, label);
    this.close();
    this.changed();
  }

  private close(): void {
    // A search still waiting for its debounce would open the list again after focus left.
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.box.hidden = true;
    this.seq++;
  }

  private ask(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const seq = ++this.seq;
      // Typing over the picked choice's label searches afresh; the label itself lists them all.
      const text = this.field.value.trim() === this.label ? '' : this.field.value.trim();
      this.search(text).then(
        (choices) => {
          if (seq === this.seq) this.show(choices);
        },
        () => undefined,
      );
    }, 120);
  }

  private show(choices: readonly Choice[]): void {
    const opt = (c: Choice): HTMLElement => {
      const el = h(
        'div',
        {
          class: 'picker-option',
          role: 'option',
          tabindex: '-1',
          'aria-selected': String(c.value === this.value),
          title: c.title,
          'data-value': c.value,
        },
        c.label,
      );
      el.addEventListener('mousedown', (e) => e.preventDefault());
      el.addEventListener('click', () => this.choose(c.value, c.value ? c.label : ''));
      return el;
    };
    replaceChildren(this.box, opt({ value: '', label: this.allLabel, title: this.allLabel }), ...choices.map(opt));
    if (choices.length === 0)
      this.box.append(
        h(
          'div',
          { class: 'picker-empty muted', role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false' },
          'Nothing matches',
        ),
      );
    this.box.hidden = false;
  }
}

/** The toolbar and the virtualised list. */
export class CallsView {
  readonly element: HTMLElement;
  private readonly tool: Picker;
  private readonly run: Picker;
  private readonly text: VscodeTextfield;
  private readonly sort: VscodeSingleSelect;
  private readonly outcome: VscodeSingleSelect;
  private readonly source: VscodeSingleSelect;
  private sourceOptions = '';
  private pendingSource = '';
  private readonly summary: HTMLElement;
  private readonly filterToggle: HTMLElement;
  /** Says that a revealed call is hidden by the filters, with a button that clears them. */
  private readonly notice: HTMLElement;
  private readonly list: VirtualList<Row>;
  private readonly header: HTMLElement;
  private rows: RowSource;
  private active = -1;
  private selectedKey: string | undefined;
  private readonly collapsed = new Set<string>();
  private loading = false;
  /** First and last row indexes the list has drawn. */
  private drawn: [number, number] = [0, -1];
  /** The reload in flight, and whether a change asked for another after it. */
  private reloading: { key: string; again: boolean; done: Promise<void> } | undefined;
  /** Bumped by every reload: answers to an older one are dropped. */
  private generation = 0;
  /** Pages asked for and not answered yet (of the current generation). */
  private readonly asking = new Set<number>();
  /** Column widths the person set (CSS pixels, by column id). */
  private readonly widths = new Map<string, number>();
  /** Widths the name and handle columns were fitted to (CSS pixels). */
  private readonly fitted = new Map<string, number>();
  /** When the first non-empty render happened (ms, performance clock), for the measurements. */
  firstRowsRenderedAt: number | undefined;

  constructor(
    private readonly model: CallsModel,
    private readonly events: CallsViewEvents,
    initial?: {
      filters?: Filters;
      collapsed?: readonly string[];
      columns?: Readonly<Record<string, number>>;
      runLabel?: string;
    },
  ) {
    this.rows = model.rows(this.collapsed);
    // Tools: the names the host listed (facets), searched here; runs: asked of the host as the person types.
    this.tool = new Picker(
      'filter-tool',
      'Filter by tool',
      'All tools: type to find a tool',
      'All tools',
      async (text) => {
        const needle = text.toLowerCase();
        return this.model.tools
          .filter((t) => t.toLowerCase().includes(needle))
          .slice(0, pickerRuns)
          .map((t) => ({ value: t, label: t, title: `only ${t} calls` }));
      },
      () => this.filtersChanged(),
    );
    this.run = new Picker(
      'filter-run',
      'Filter by run',
      'All runs: type to find a run',
      'All runs',
      async (text) =>
        (await this.events.pickRuns(text, pickerRuns)).map((r) => ({
          value: r.runId,
          label: runLabel(r),
          title: `run ${r.runId} · ${r.callCount} calls · from ${r.source ?? 'tool'}`,
        })),
      () => this.filtersChanged(),
    );
    this.text = h('vscode-textfield', {
      id: 'filter-text',
      label: 'Filter by text',
      placeholder: 'Filter: tool, run, call id or handle…',
    });
    this.sort = h(
      'vscode-single-select',
      { id: 'sort', label: 'Sort by' },
      option('time', 'Newest first'),
      option('size', 'Largest first'),
    );
    this.outcome = h(
      'vscode-single-select',
      { id: 'filter-outcome', label: 'Filter by outcome' },
      option('', 'Any outcome'),
      option('failed', 'Failed'),
      option('ok', 'Succeeded'),
      option('running', 'Running'),
    );
    this.source = h(
      'vscode-single-select',
      { id: 'filter-source', label: 'Filter by source' },
      option('', 'Any source'),
    );
    const refresh = h(
      'vscode-button',
      { id: 'refresh', secondary: true, icon: 'refresh', title: 'Ask the store again for the calls on screen' },
      'Refresh',
    );
    this.summary = h('span', { id: 'list-summary', class: 'muted', 'aria-live': 'polite' });
    // Where room is short (compact layout, short panel: inspector.css) the pickers, outcome,
    // source and sort sit behind "Filters", which says how many are in force.
    this.filterToggle = h(
      'vscode-button',
      {
        id: 'toggle-filters',
        class: 'filter-toggle',
        secondary: true,
        icon: 'filter',
        'aria-expanded': 'false',
        title: 'Show or hide the tool, run, source, outcome and sort filters',
      },
      'Filters',
    );
    for (const el of [this.tool.element, this.run.element, this.source, this.outcome, this.sort])
      el.classList.add('filter-extra');
    const toolbar = h(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Filter and sort calls' },
      h('span', { class: 'filter-icon' }, icon('filter')),
      this.text,
      this.filterToggle,
      this.tool.element,
      this.run.element,
      this.source,
      this.outcome,
      this.sort,
      refresh,
      this.summary,
    );
    this.filterToggle.addEventListener('click', () => {
      const open = !toolbar.classList.contains('open');
      toolbar.classList.toggle('open', open);
      this.filterToggle.setAttribute('aria-expanded', String(open));
    });

    this.header = h(
      'div',
      { class: 'row-grid list-header', id: 'list-header' },
      h('span', {}),
      ...columns.map(([id, label]) => this.headerCell(id, label)),
    );
    // A focusable separator states its position: each grip says its column's width as laid out.
    new ResizeObserver(() => {
      for (const cell of this.header.querySelectorAll<HTMLElement>('.col-head')) {
        cell
          .querySelector('.col-resize')
          ?.setAttribute(
            'aria-valuenow',
            String(Math.round(Math.min(maxColumn, Math.max(minColumn, cell.getBoundingClientRect().width)))),
          );
      }
    }).observe(this.header);
    const viewport = h('div', {
      id: 'calls',
      class: 'vlist',
      role: 'tree',
      tabindex: '0',
      'aria-label': 'Recorded tool calls, newest first, grouped by run',
    });
    this.list = new VirtualList<Row>(viewport, {
      rowHeight,
      create: () => this.createRow(),
      render: (el, row, i) => this.renderRow(el, row, i),
      onRendered: (first, last) => {
        document.body.dataset.listRenderMaxMs = this.list.slowestRenderMs.toFixed(1);
        if (
          this.firstRowsRenderedAt === undefined &&
          last >= first &&
          this.rows.length > 0 &&
          this.rows.at(first).kind !== 'pending'
        )
          this.firstRowsRenderedAt = performance.now();
        this.drawn = [first, last];
        this.fitColumns();
        this.updateActiveDescendant();
        // Rows still loading on screen (scrolled or jumped to): ask for their pages.
        if (last >= first) this.fetchMissing(first, last);
      },
    });
    this.notice = h('div', { id: 'reveal-hidden', class: 'reveal-notice', role: 'status', hidden: true });
    this.element = h('section', { class: 'calls', 'aria-label': 'Calls' }, toolbar, this.notice, this.header, viewport);

    if (initial?.filters) {
      this.text.value = initial.filters.text;
      this.sort.value = initial.filters.sort;
      this.outcome.value = initial.filters.outcome ?? '';
      this.tool.set(initial.filters.tool, initial.filters.tool);
      this.run.set(initial.filters.run, initial.runLabel ?? '');
      // Older panels saved `hook:<agent>`; the list filters hooks as one source.
      this.pendingSource = initial.filters.source?.startsWith('hook:') ? 'hook' : (initial.filters.source ?? '');
    }
    for (const [id, w] of Object.entries(initial?.columns ?? {}))
      if (columns.some(([c]) => c === id) && Number.isFinite(w)) this.setWidth(id, w);
    for (const r of initial?.collapsed ?? []) this.collapsed.add(r);
    this.countFilters();

    for (const el of [this.source, this.sort, this.outcome]) el.addEventListener('change', () => this.filtersChanged());
    this.text.addEventListener('input', () => this.filtersChanged());
    // Escape empties the text filter (and stays in the field); a second Escape goes on to the workbench.
    this.text.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || !this.text.value) return;
      e.preventDefault();
      e.stopPropagation();
      this.text.value = '';
      this.filtersChanged();
    });
    refresh.addEventListener('click', () => this.events.refresh());
    viewport.addEventListener('keydown', (e) => this.onKey(e));
    viewport.addEventListener('click', (e) => this.onClick(e, false));
    viewport.addEventListener('dblclick', (e) => this.onClick(e, true));
  }

  /** Current filters. */
  filters(): Filters {
    return {
      tool: this.tool.value,
      run: this.run.value,
      text: this.text.value,
      sort: this.sort.value === 'size' ? 'size' : 'time',
      outcome: (['ok', 'failed', 'running'] as const).find((o) => o === this.outcome.value) ?? ('' as OutcomeFilterDto),
      source: this.source.value || this.pendingSource,
    };
  }

  /** The picked run's label (saved with the filters, so a reload shows it without asking). */
  runLabel(): string {
    return this.run.label;
  }

  /** Whether pages are being asked for. */
  private setLoading(loading: boolean): void {
    this.loading = loading;
    this.list.viewport.setAttribute('aria-busy', String(loading));
    this.updateSummary();
  }

  /** Whether the first answer for the current query has arrived. */
  get loaded(): boolean {
    return this.model.key === CallsModel.keyOf(queryOf(this.filters()));
  }

  /**
   * Asks again for the pages on screen (all of them at once, swapped in together): a new
   * query starts at the top; a change in the store keeps the place. The tools and sources
   * the pickers offer come with the first page.
   */
  reload(top: boolean): Promise<void> {
    const q = queryOf(this.filters());
    const key = CallsModel.keyOf(q);
    // A change while the same pages are being asked for: ask once more when they arrive, not twice at once.
    if (!top && this.reloading && this.reloading.key === key) {
      this.reloading.again = true;
      return this.reloading.done;
    }
    const gen = ++this.generation;
    this.asking.clear();
    if (top) this.list.viewport.scrollTop = 0;
    const pages = top || this.model.key !== key ? [0] : this.pagesOnScreen();
    this.setLoading(true);
    const state = { key, again: false, done: Promise.resolve() };
    this.reloading = state;
    state.done = Promise.all(
      pages.map((p) =>
        this.events.page({
          offset: p * PAGE_SIZE,
          limit: PAGE_SIZE,
          query: q,
          ...(p === pages[0] ? { facets: true } : {}),
        }),
      ),
    )
      .then(
        (replies) => {
          if (gen !== this.generation) return;
          this.model.replace(key, replies);
          this.setLoading(false);
          this.refresh();
        },
        (e: Error) => {
          if (gen !== this.generation) return;
          this.setLoading(false);
          this.events.problem(e.message);
        },
      )
      .then(() => {
        if (this.reloading === state) this.reloading = undefined;
        if (state.again && gen === this.generation) return this.reload(false);
        return undefined;
      });
    return state.done;
  }

  /** Pages whose calls are on screen (or just around it). */
  private pagesOnScreen(): number[] {
    const h = rowHeight;
    const vp = this.list.viewport;
    const first = Math.max(0, Math.floor(vp.scrollTop / h) - 8);
    const last = Math.min(this.rows.length - 1, Math.ceil((vp.scrollTop + vp.clientHeight) / h) + 8);
    const pages = new Set<number>();
    for (let i = first; i <= last; i++) pages.add(Math.floor(this.rows.at(i).index / PAGE_SIZE));
    return pages.size > 0 ? [...pages].sort((a, b) => a - b) : [0];
  }

  /** Asks for the pages of rows `first..last` the model does not hold (each once). */
  private fetchMissing(first: number, last: number): void {
    if (!this.loaded) return;
    const want = new Set<number>();
    for (let i = first; i <= last; i++) {
      const row = this.rows.at(i);
      if (row.kind === 'pending') want.add(Math.floor(row.index / PAGE_SIZE));
    }
    const q = queryOf(this.filters());
    const key = CallsModel.keyOf(q);
    const gen = this.generation;
    for (const p of want) {
      if (this.asking.has(p) || this.model.has(p)) continue;
      this.asking.add(p);
      this.setLoading(true);
      this.events.page({ offset: p * PAGE_SIZE, limit: PAGE_SIZE, query: q }).then(
        (reply) => {
          if (gen !== this.generation) return;
          this.asking.delete(p);
          if (this.model.add(key, reply)) this.refresh();
          if (this.asking.size === 0) this.setLoading(false);
        },
        (e: Error) => {
          if (gen !== this.generation) return;
          this.asking.delete(p);
          if (this.asking.size === 0) this.setLoading(false);
          this.events.problem(e.message);
        },
      );
    }
  }

  /**
   * Fits the name, status, size and handle columns to what they hold (docs/contracts.md §3.4, "Columns"):
   * the widest tool or stream name and handle of the rows drawn becomes the column's
   * least width (a width the person dragged still wins), so "stdout" and "stderr" and a
   * whole handle are never cut to "s…" or "out_…_std". Widths only grow within a query.
   */
  private fitColumns(): void {
    const range = document.createRange();
    for (const id of ['c1', 'c3', 'c4', 'c5'] as const) {
      let widest = this.fitted.get(id) ?? 0;
      // Names and handles of calls and outputs; the status and size of runs too (a run's label is cut, its tooltip whole).
      const rows = id === 'c1' || id === 'c5' ? ['call', 'part'] : ['run', 'call', 'part'];
      for (const cell of this.list.viewport.querySelectorAll<HTMLElement>(
        rows.map((k) => `.vlist-row[data-kind="${k}"] .${id}`).join(', '),
      )) {
        // The text's own extent (a Range is not clipped by the cell; scrollWidth is rounded and is
        // the column's width when nothing overflows) plus the cell's padding.
        range.selectNodeContents(cell);
        const st = getComputedStyle(cell);
        widest = Math.max(
          widest,
          range.getBoundingClientRect().width + parseFloat(st.paddingLeft) + parseFloat(st.paddingRight),
        );
      }
      widest = Math.min(maxFit, Math.ceil(widest + 1));
      if (widest > 0 && widest !== this.fitted.get(id)) {
        this.fitted.set(id, widest);
        this.element.style.setProperty(`--fit-${id}`, `${widest}px`);
      }
    }
  }

  /** Collapsed run ids. */
  collapsedRuns(): string[] {
    return [...this.collapsed];
  }

  /** Column widths the person set. */
  columnWidths(): Record<string, number> {
    return Object.fromEntries(this.widths);
  }

  private headerCell(id: string, label: string): HTMLElement {
    const grip = h('span', {
      class: 'col-resize',
      role: 'separator',
      tabindex: '0',
      'aria-orientation': 'vertical',
      'aria-label': `Resize the ${label} column`,
      'aria-valuemin': String(minColumn),
      'aria-valuemax': String(maxColumn),
      'data-col': id,
      title: 'Drag to resize; arrows with focus; double-click to reset',
    });
    const cell = h(
      'span',
      { class: `col-head ${id === 'c4' ? 'num ' : ''}h${id}`, 'data-col': id },
      h('span', { class: 'col-label' }, label),
      grip,
    );
    grip.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      grip.setPointerCapture(e.pointerId);
      const startX = e.clientX;
      const startW = cell.getBoundingClientRect().width;
      const move = (m: PointerEvent): void => this.setWidth(id, startW + (m.clientX - startX));
      const up = (): void => {
        grip.removeEventListener('pointermove', move);
        grip.removeEventListener('pointerup', up);
        grip.removeEventListener('pointercancel', up);
        this.events.changed();
      };
      grip.addEventListener('pointermove', move);
      grip.addEventListener('pointerup', up);
      grip.addEventListener('pointercancel', up);
    });
    grip.addEventListener('keydown', (e) => {
      const now = this.widths.get(id) ?? cell.getBoundingClientRect().width;
      if (e.key === 'ArrowRight' || e.key === 'ArrowUp') this.setWidth(id, now + columnStep);
      else if (e.key === 'ArrowLeft' || e.key === 'ArrowDown') this.setWidth(id, now - columnStep);
      else if (e.key === 'Home' || e.key === 'Delete') this.setWidth(id, undefined);
      else return;
      e.preventDefault();
      this.events.changed();
    });
    grip.addEventListener('dblclick', () => {
      this.setWidth(id, undefined);
      this.events.changed();
    });
    return cell;
  }

  /** Sets a column's width (undefined: back to its default), through a CSS variable every row's grid uses. */
  private setWidth(id: string, width: number | undefined): void {
    const grip = this.header.querySelector<HTMLElement>(`.col-resize[data-col="${id}"]`);
    if (width === undefined) {
      this.widths.delete(id);
      this.element.style.removeProperty(`--w-${id}`);
      return;
    }
    const w = Math.round(Math.min(maxColumn, Math.max(minColumn, width)));
    this.widths.set(id, w);
    this.element.style.setProperty(`--w-${id}`, `${w}px`);
    grip?.setAttribute('aria-valuenow', String(w));
  }

  /** Focuses the list. */
  focus(): void {
    this.list.viewport.focus();
  }

  /**
   * Rebuilds rows after the model changed, keeping the selection, the active row and what
   * is on screen: a page arriving above the top row grows the rows before it, so the
   * scroll position follows the call that was at the top.
   */
  refresh(): void {
    this.updateOptions();
    const activeKey = this.active >= 0 && this.active < this.rows.length ? this.rows.at(this.active).key : undefined;
    const vp = this.list.viewport;
    const topRow = Math.floor(vp.scrollTop / rowHeight);
    const anchor =
      vp.scrollTop > 0 && topRow < this.rows.length
        ? { index: this.rows.at(topRow).index, within: vp.scrollTop - topRow * rowHeight }
        : undefined;
    this.rows = this.model.rows(this.collapsed);
    this.active = activeKey ? this.rows.indexOfKey(activeKey) : -1;
    if (this.active < 0 && this.selectedKey) this.active = this.rows.indexOfKey(this.selectedKey);
    if (anchor) {
      const at = this.rows.indexOfCall(anchor.index);
      if (at >= 0) {
        // The spacer must be tall enough before the scroll position is set.
        this.list.setItems(this.rows, false);
        vp.scrollTop = at * rowHeight + anchor.within;
      }
    }
    this.list.setItems(this.rows);
    this.updateSummary();
    this.updateActiveDescendant();
  }

  private updateSummary(): void {
    this.summary.textContent = `${count(this.model.total)} of ${count(this.model.size)} calls${this.loading ? ' · loading…' : ''}`;
  }

  /** Re-renders the visible rows only (live sizes changed; the rows themselves did not). */
  repaint(): void {
    this.list.render();
  }

  /** Marks a part selected, expands its run, and scrolls it into view when its page is held. */
  select(ref: PartRef): void {
    this.selectedKey = partKey(ref);
    if (this.collapsed.delete(ref.runId)) this.refresh();
    const i = this.rows.indexOfKey(this.selectedKey);
    if (i >= 0) {
      this.active = i;
      this.list.scrollToIndex(i);
    }
    this.list.render();
    this.updateActiveDescendant();
  }

  /**
   * Brings a revealed call into the list (docs/contracts.md §3.4, "Reveal"): the host said
   * where it is under `query` (`index`), so its page is fetched if not held, and the row
   * scrolled into view, selected and focused; or that the filters hide it (`hidden`), which
   * is said next to the list with a button that clears them and then calls `again`.
   */
  async reveal(
    ref: PartRef,
    query: ListQueryDto,
    at: { index?: number; hidden?: boolean },
    again: () => void,
  ): Promise<void> {
    this.showHidden(undefined);
    const key = CallsModel.keyOf(query);
    if (at.hidden) {
      if (key === CallsModel.keyOf(queryOf(this.filters()))) this.showHidden(again);
      return;
    }
    if (at.index === undefined) return;
    await this.reloading?.done;
    // The filters changed since the host answered: that list is gone, the selection stands.
    if (this.model.key !== key) return;
    const fetch = async (p: number): Promise<boolean> => {
      if (p < 0 || p * PAGE_SIZE >= this.model.total || this.model.has(p)) return this.model.key === key;
      const reply = await this.events.page({ offset: p * PAGE_SIZE, limit: PAGE_SIZE, query });
      if (!this.model.add(key, reply)) return false;
      // The rows are rebuilt from the model, so the look for the call below sees this page
      // (without it the look always missed and both neighbouring pages were fetched too).
      this.refresh();
      return true;
    };
    const p = Math.floor(at.index / PAGE_SIZE);
    try {
      if (!(await fetch(p))) return;
      this.select(ref);
      // Calls recorded since the host answered move the list by a few rows: look on the neighbouring pages.
      if (this.rows.indexOfKey(this.selectedKey!) < 0) {
        if (!(await fetch(p + 1)) || !(await fetch(p - 1))) return;
        this.select(ref);
      }
    } catch (e) {
      this.events.problem((e as Error).message);
      return;
    }
    this.refresh();
    this.select(ref);
    // Focus follows the row unless the person moved on meanwhile (typing in a field while the page came).
    const focused = document.activeElement;
    if (!focused || focused === document.body || this.list.viewport.contains(focused)) this.focus();
  }

  /** Shows (with what to do after clearing) or hides the "hidden by the filter" notice. */
  private showHidden(again: (() => void) | undefined): void {
    if (!again) {
      this.notice.hidden = true;
      replaceChildren(this.notice);
      return;
    }
    const clear = h('vscode-button', { id: 'reveal-clear', secondary: true, icon: 'clear-all' }, 'Clear filters');
    clear.addEventListener('click', () => {
      this.text.value = '';
      this.tool.set('', '');
      this.run.set('', '');
      this.outcome.value = '';
      this.source.value = '';
      this.pendingSource = '';
      this.events.changed();
      void this.reload(true).then(again);
    });
    replaceChildren(
      this.notice,
      h('span', { class: 'reveal-text' }, icon('eye-closed'), ' The linked call is hidden by the filter.'),
      clear,
    );
    this.notice.hidden = false;
  }

  private filtersChanged(): void {
    this.showHidden(undefined);
    this.countFilters();
    if (this.source.value) this.pendingSource = '';
    void this.reload(true);
    this.events.changed();
  }

  /** "Filters (2)": what the toggle hides is never in force unseen. */
  private countFilters(): void {
    const f = this.filters();
    const inForce = [f.tool, f.run, f.source, f.outcome, f.sort === 'size' ? 'size' : ''].filter(Boolean).length;
    this.filterToggle.textContent = inForce ? `Filters (${inForce})` : 'Filters';
  }

  private updateOptions(): void {
    // Options are rebuilt only when the set changes: replacing them resets the control.
    const sources = this.model.sources;
    const sourcesKey = sources.join('\n');
    if (sourcesKey !== this.sourceOptions) {
      this.sourceOptions = sourcesKey;
      const keep = this.source.value || this.pendingSource;
      replaceChildren(this.source, option('', 'Any source'), ...sources.map((s) => option(s, sourceLabel(s))));
      if (keep && sources.includes(keep)) {
        this.source.value = keep;
        this.pendingSource = '';
      }
    }
  }

  private createRow(): HTMLElement {
    const cells = Array.from({ length: 9 }, (_, i) => h('span', { class: `cell c${i}` }));
    const copy = h(
      'button',
      { class: 'icon-button copy-sha', tabindex: '-1', title: 'Copy sha256', 'aria-label': 'Copy sha256' },
      icon('copy'),
    );
    cells[6]!.append(h('span', { class: 'sha' }), copy);
    return h('div', { class: 'row-grid', role: 'treeitem' }, ...cells);
  }

  private renderRow(el: HTMLElement, row: Row, i: number): void {
    // aria-activedescendant may only name a row in the DOM (axe: aria-valid-attr-value): a
    // recycled row gives the name up, the active row's element takes it.
    const vp = this.list.viewport;
    if (el.id && el.id === vp.getAttribute('aria-activedescendant') && i !== this.active)
      vp.removeAttribute('aria-activedescendant');
    el.id = `row-${i}`;
    if (i === this.active) vp.setAttribute('aria-activedescendant', el.id);
    el.dataset.index = String(i);
    el.dataset.kind = row.kind;
    el.dataset.call = String(row.index);
    el.classList.toggle('selected', row.key === this.selectedKey);
    el.classList.toggle('active', i === this.active);
    el.setAttribute('aria-selected', String(row.key === this.selectedKey));
    const c = el.children;
    const set = (k: number, text: string, title?: string): void => {
      const cell = c[k] as HTMLElement;
      cell.textContent = text;
      if (title) cell.title = title;
      else cell.removeAttribute('title');
    };
    const shaCell = c[6] as HTMLElement;
    const [shaText, copy] = [shaCell.children[0] as HTMLElement, shaCell.children[1] as HTMLElement];
    if (row.kind === 'pending') {
      el.setAttribute('aria-level', '2');
      el.removeAttribute('aria-expanded');
      replaceChildren(c[0] as HTMLElement);
      set(1, 'Loading…', `call ${count(row.index + 1)} of ${count(this.model.total)}: asked of the host`);
      for (const k of [2, 3, 4, 5, 7, 8]) set(k, '');
      (c[3] as HTMLElement).dataset.outcome = '';
      shaText.textContent = '';
      copy.hidden = true;
      return;
    }
    if (row.kind === 'run') {
      const r = row.run;
      el.setAttribute('aria-level', '1');
      el.setAttribute('aria-expanded', String(!row.collapsed));
      // No aria-label: a treeitem's name comes from its visible cells, so what a screen
      // reader says and what is shown are the same words (WCAG 2.5.3, label in name).
      el.removeAttribute('aria-label');
      replaceChildren(c[0] as HTMLElement, icon(row.collapsed ? 'chevron-right' : 'chevron-down'));
      // The label is the command line (docs/contracts.md §2): whole in the tooltip, with the run's id.
      set(1, r.label ?? r.runId, `${r.label ?? r.runId}\nrun ${r.runId}`);
      set(2, clockTime(r.startedAt), localTime(r.startedAt));
      // A completed run with a failed call reads as failed, like its call (runOutcomeOf).
      const ro = runOutcomeOf(r);
      replaceChildren(
        c[3] as HTMLElement,
        icon(ro.kind === 'failed' ? 'error' : (statusIcon[r.status] ?? 'circle')),
        h('span', { class: 'st-text' }, ` ${ro.label}`),
      );
      (c[3] as HTMLElement).title = `run ${ro.label}: ${ro.detail}`;
      (c[3] as HTMLElement).dataset.outcome = ro.kind;
      set(4, humanBytes(r.totalBytes), exactBytes(r.totalBytes));
      set(5, '');
      set(7, '');
      shaText.textContent = '';
      copy.hidden = true;
      set(
        8,
        `${localTime(r.startedAt)} · from ${r.source ?? 'tool'} · run ${r.runId} · ${count(row.shown)} of ${count(r.callCount)} calls${r.pinned ? ' · pinned' : ''}`,
      );
      return;
    }
    el.removeAttribute('aria-expanded');
    const part = row.kind === 'call' ? row.call.result : row.part;
    const call = row.call;
    el.setAttribute('aria-level', row.kind === 'call' ? '2' : '3');
    const name = row.kind === 'call' ? call.tool : part.name;
    const outcome = outcomeOf(call);
    el.removeAttribute('aria-label');
    replaceChildren(c[0] as HTMLElement, row.kind === 'part' ? icon('indent') : icon('symbol-method'));
    set(1, name, row.kind === 'call' ? `${call.tool} · call ${call.callId}` : `${part.name} of call ${call.callId}`);
    set(2, row.kind === 'call' ? clockTime(call.startedAt) : '', localTime(call.startedAt));
    const statusCell = c[3] as HTMLElement;
    statusCell.dataset.outcome = row.kind === 'call' ? outcome.kind : '';
    if (row.kind === 'call') {
      replaceChildren(
        statusCell,
        icon(outcome.kind === 'failed' ? 'error' : (statusIcon[call.status] ?? 'circle')),
        h('span', { class: 'st-text' }, ` ${outcome.label}`),
      );
      statusCell.title = `${outcome.label}: ${outcome.detail}`;
    } else
      set(
        3,
        part.truncated ? 'truncated' : '',
        part.truncated && part.observedBytes !== undefined
          ? `capture stopped at its cap: ${exactBytes(part.observedBytes)} produced`
          : undefined,
      );
    const live =
      row.kind === 'call' && call.status === 'running' ? this.model.liveOf(call.runId, call.callId) : undefined;
    if (live) {
      const bytes = (live.stdout?.bytes ?? 0) + (live.stderr?.bytes ?? 0);
      set(
        4,
        `${humanBytes(bytes)} so far`,
        `running: stdout ${exactBytes(live.stdout?.bytes ?? 0)}, stderr ${exactBytes(live.stderr?.bytes ?? 0)} so far`,
      );
    } else {
      set(
        4,
        '',
        `${exactBytes(part.sizeBytes)}${part.observedBytes !== undefined && part.observedBytes !== part.sizeBytes ? `, ${exactBytes(part.observedBytes)} produced` : ''}`,
      );
      // The exact count is its own span: the compact column shows the human size alone (exact in the tooltip).
      (c[4] as HTMLElement).append(
        humanBytes(part.sizeBytes),
        h('span', { class: 'exact' }, ` (${exactBytes(part.sizeBytes)})`),
      );
    }
    set(5, part.handle ?? '—', part.handle ?? 'small result, shown to the model whole');
    shaText.textContent = shortSha(part.sha256);
    shaText.title = part.sha256 ?? '';
    copy.hidden = !part.sha256;
    set(7, part.stored ?? '', part.readable ? undefined : 'bytes not kept: preview only');
    (c[7] as HTMLElement).dataset.state = part.stored ?? '';
    set(8, row.kind === 'call' ? (call.errorMessage ?? call.argsSummary) : (part.contentType ?? ''));
  }

  /** Points the tree at the active row, only while that row is drawn (an id that is not in the page is an invalid reference). */
  private updateActiveDescendant(): void {
    const vp = this.list.viewport;
    const drawn = this.active >= this.drawn[0] && this.active <= this.drawn[1];
    if (this.active >= 0 && this.active < this.rows.length && drawn)
      vp.setAttribute('aria-activedescendant', `row-${this.active}`);
    else vp.removeAttribute('aria-activedescendant');
  }

  private moveTo(i: number, open = false): void {
    if (this.rows.length === 0) return;
    this.active = Math.max(0, Math.min(this.rows.length - 1, i));
    const row = this.rows.at(this.active);
    const ref = rowRef(row);
    if (ref) {
      this.selectedKey = row.key;
      this.events.select(ref, open);
    }
    this.list.scrollToIndex(this.active);
    this.updateActiveDescendant();
  }

  private toggleRun(runId: string, collapse: boolean): void {
    if (collapse) this.collapsed.add(runId);
    else this.collapsed.delete(runId);
    this.refresh();
    this.events.changed();
  }

  private onKey(e: KeyboardEvent): void {
    const row = this.active >= 0 && this.active < this.rows.length ? this.rows.at(this.active) : undefined;
    const page = this.list.pageSize;
    switch (e.key) {
      case 'ArrowDown':
        this.moveTo(this.active + 1);
        break;
      case 'ArrowUp':
        this.moveTo(this.active - 1);
        break;
      case 'Home':
        this.moveTo(0);
        break;
      case 'End':
        this.moveTo(this.rows.length - 1);
        break;
      case 'PageDown':
        this.moveTo(this.active + page);
        break;
      case 'PageUp':
        this.moveTo(this.active - page);
        break;
      case 'ArrowRight':
        if (row?.kind === 'run' && row.collapsed) this.toggleRun(row.run.runId, false);
        else this.moveTo(this.active + 1);
        break;
      case 'ArrowLeft':
        if (row?.kind === 'run') {
          if (!row.collapsed) this.toggleRun(row.run.runId, true);
        } else if (row) this.moveTo(this.parentIndex(this.active));
        break;
      case 'Enter':
        if (row?.kind === 'run') this.toggleRun(row.run.runId, !row.collapsed);
        else this.moveTo(this.active, true);
        break;
      case 'c': {
        const sha = row?.kind === 'call' ? row.call.result.sha256 : row?.kind === 'part' ? row.part.sha256 : undefined;
        if (sha) this.events.copy(sha, 'sha256');
        break;
      }
      default:
        return;
    }
    e.preventDefault();
  }

  private parentIndex(i: number): number {
    const kind = i >= 0 && i < this.rows.length ? this.rows.at(i).kind : undefined;
    for (let j = i - 1; j >= 0; j--) {
      const k = this.rows.at(j).kind;
      if (kind === 'part' ? k === 'call' : k === 'run') return j;
    }
    return i;
  }

  private onClick(e: MouseEvent, open: boolean): void {
    const target = e.target as HTMLElement;
    const rowEl = target.closest<HTMLElement>('.vlist-row');
    if (!rowEl) return;
    const i = Number(rowEl.dataset.index);
    if (!(i >= 0 && i < this.rows.length)) return;
    const row = this.rows.at(i);
    if (target.closest('.copy-sha')) {
      const sha = row.kind === 'call' ? row.call.result.sha256 : row.kind === 'part' ? row.part.sha256 : undefined;
      if (sha) this.events.copy(sha, 'sha256');
      return;
    }
    if (row.kind === 'run') {
      this.active = i;
      this.toggleRun(row.run.runId, !row.collapsed);
      return;
    }
    if (row.kind === 'pending') return;
    this.moveTo(i, open);
    this.list.viewport.focus({ preventScroll: true });
  }
}
