/**
 * The calls list: a toolbar (filter by tool, run and text; sort by time or size; refresh)
 * over a virtualised tree of runs, calls and attachment sub-rows. Keyboard: arrows move,
 * Home/End/PageUp/PageDown jump, Left/Right collapse and expand a run or go to its
 * parent, Enter opens the detail, `c` copies the row's sha256. Every cell is text.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type { OutcomeFilterDto, PartRef } from '../src/shared/protocol.js';
import { CallsModel, outcomeOf, partKey, rowRef, type Filters, type Row } from './callsModel.js';
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
  /** Filters, sort or collapsed runs changed (for saved state). */
  changed(): void;
}

const statusIcon: Record<string, string> = {
  ok: 'pass', error: 'error', failed: 'warning', running: 'loading', interrupted: 'debug-disconnect',
  completed: 'pass', cancelled: 'circle-slash',
};

function option(value: string, label: string): HTMLElement {
  return h('vscode-option', { value }, label);
}

/** How a run source reads in the filter (docs/contracts.md §3.4). */
function sourceLabel(source: string): string {
  const names: Record<string, string> = { tool: 'Model tool calls', participant: '@evidence chat', cli: 'Command line (evidence CLI)', mcp: 'MCP server', command: 'Editor commands', api: 'Extension API' };
  return source.startsWith('hook:') ? `Hook: ${source.slice(5)}` : (names[source] ?? source);
}

/** The toolbar and the virtualised list. */
export class CallsView {
  readonly element: HTMLElement;
  private readonly tool: VscodeSingleSelect;
  private readonly run: VscodeSingleSelect;
  private readonly text: VscodeTextfield;
  private readonly sort: VscodeSingleSelect;
  private readonly outcome: VscodeSingleSelect;
  private readonly source: VscodeSingleSelect;
  private sourceOptions = '';
  private pendingSource = '';
  private readonly summary: HTMLElement;
  private readonly list: VirtualList<Row>;
  private rows: Row[] = [];
  private active = -1;
  private selectedKey: string | undefined;
  private readonly collapsed = new Set<string>();
  private toolOptions = '';
  private loading = false;
  private runOptions = '';
  /** When the first non-empty render happened (ms, performance clock), for the measurements. */
  firstRowsRenderedAt: number | undefined;

  constructor(private readonly model: CallsModel, private readonly events: CallsViewEvents, initial?: { filters?: Filters; collapsed?: readonly string[] }) {
    this.tool = h('vscode-single-select', { id: 'filter-tool', label: 'Filter by tool' }, option('', 'All tools'));
    this.run = h('vscode-single-select', { id: 'filter-run', label: 'Filter by run' }, option('', 'All runs'));
    this.text = h('vscode-textfield', { id: 'filter-text', label: 'Filter by text', placeholder: 'Filter: tool, handle, sha256, arguments…' });
    this.sort = h('vscode-single-select', { id: 'sort', label: 'Sort by' }, option('time', 'Newest first'), option('size', 'Largest first'));
    this.outcome = h('vscode-single-select', { id: 'filter-outcome', label: 'Filter by outcome' },
      option('', 'Any outcome'), option('failed', 'Failed'), option('ok', 'Succeeded'), option('running', 'Running'));
    this.source = h('vscode-single-select', { id: 'filter-source', label: 'Filter by source' }, option('', 'Any source'));
    const refresh = h('vscode-button', { id: 'refresh', secondary: true, icon: 'refresh', title: 'Re-read every run from the store' }, 'Refresh');
    this.summary = h('span', { id: 'list-summary', class: 'muted', 'aria-live': 'polite' });
    const toolbar = h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Filter and sort calls' },
      h('span', { class: 'filter-icon' }, icon('filter')), this.tool, this.run, this.source, this.outcome, this.text, this.sort, refresh, this.summary);

    const header = h('div', { class: 'row-grid list-header', 'aria-hidden': 'true' },
      h('span', {}), h('span', {}, 'Tool / output'), h('span', {}, 'Time'), h('span', {}, 'Status'), h('span', { class: 'num' }, 'Size'),
      h('span', {}, 'Handle'), h('span', {}, 'sha256'), h('span', {}, 'Stored'), h('span', {}, 'Details'));
    const viewport = h('div', { id: 'calls', class: 'vlist', role: 'tree', tabindex: '0', 'aria-label': 'Recorded tool calls, newest first, grouped by run' });
    this.list = new VirtualList<Row>(viewport, {
      rowHeight,
      create: () => this.createRow(),
      render: (el, row, i) => this.renderRow(el, row, i),
      onRendered: (first, last) => {
        document.body.dataset.listRenderMaxMs = this.list.slowestRenderMs.toFixed(1);
        if (this.firstRowsRenderedAt === undefined && last >= first && this.rows.length > 0) this.firstRowsRenderedAt = performance.now();
      },
    });
    this.element = h('section', { class: 'calls', 'aria-label': 'Calls' }, toolbar, header, viewport);

    if (initial?.filters) {
      this.text.value = initial.filters.text;
      this.sort.value = initial.filters.sort;
      this.outcome.value = initial.filters.outcome ?? '';
      this.pendingTool = initial.filters.tool;
      this.pendingRun = initial.filters.run;
      this.pendingSource = initial.filters.source ?? '';
    }
    for (const r of initial?.collapsed ?? []) this.collapsed.add(r);

    for (const el of [this.tool, this.run, this.source, this.sort, this.outcome]) el.addEventListener('change', () => this.filtersChanged());
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

  /** Saved filter values not yet applicable (their options arrive with the data). */
  private pendingTool = '';
  private pendingRun = '';

  /** Current filters. */
  filters(): Filters {
    return {
      tool: this.tool.value || this.pendingTool,
      run: this.run.value || this.pendingRun,
      text: this.text.value,
      sort: this.sort.value === 'size' ? 'size' : 'time',
      outcome: (['ok', 'failed', 'running'] as const).find((o) => o === this.outcome.value) ?? ('' as OutcomeFilterDto),
      source: this.source.value || this.pendingSource,
    };
  }

  /** Whether calls are still arriving (a snapshot in pieces). */
  setLoading(loading: boolean): void {
    this.loading = loading;
    this.list.viewport.setAttribute('aria-busy', String(loading));
    this.updateSummary();
  }

  /** Collapsed run ids. */
  collapsedRuns(): string[] {
    return [...this.collapsed];
  }

  /** Focuses the list. */
  focus(): void {
    this.list.viewport.focus();
  }

  /** Rebuilds rows after the model changed (keeps the selection and, where possible, the active row). */
  refresh(): void {
    this.updateOptions();
    const activeKey = this.rows[this.active]?.key;
    this.rows = this.model.rows(this.filters(), this.collapsed);
    this.active = activeKey ? this.rows.findIndex((r) => r.key === activeKey) : -1;
    if (this.active < 0 && this.selectedKey) this.active = this.rows.findIndex((r) => r.key === this.selectedKey);
    this.list.setItems(this.rows);
    this.updateSummary();
    this.updateActiveDescendant();
  }

  private updateSummary(): void {
    let calls = 0;
    for (const r of this.rows) if (r.kind === 'call') calls++;
    this.summary.textContent = `${count(calls)} of ${count(this.model.size)} calls${this.loading ? ' · loading…' : ''}`;
  }

  /** Re-renders the visible rows only (live sizes changed; the rows themselves did not). */
  repaint(): void {
    this.list.render();
  }

  /** Marks a part selected, expands its run, and scrolls it into view. */
  select(ref: PartRef): void {
    this.selectedKey = partKey(ref);
    if (this.collapsed.delete(ref.runId)) this.refresh();
    const i = this.rows.findIndex((r) => r.key === this.selectedKey);
    if (i >= 0) { this.active = i; this.list.scrollToIndex(i); }
    this.list.render();
    this.updateActiveDescendant();
  }

  private filtersChanged(): void {
    if (this.tool.value) this.pendingTool = '';
    if (this.run.value) this.pendingRun = '';
    if (this.source.value) this.pendingSource = '';
    this.refresh();
    this.events.changed();
  }

  private updateOptions(): void {
    // Options are rebuilt only when the set changes: replacing them resets the control.
    const tools = this.model.tools();
    const toolsKey = tools.join('\n');
    if (toolsKey !== this.toolOptions) {
      this.toolOptions = toolsKey;
      const keep = this.tool.value || this.pendingTool;
      replaceChildren(this.tool, option('', 'All tools'), ...tools.map((t) => option(t, t)));
      if (keep && tools.includes(keep)) { this.tool.value = keep; this.pendingTool = ''; }
    }
    const sources = this.model.sources();
    const sourcesKey = sources.join('\n');
    if (sourcesKey !== this.sourceOptions) {
      this.sourceOptions = sourcesKey;
      const keep = this.source.value || this.pendingSource;
      replaceChildren(this.source, option('', 'Any source'), ...sources.map((s) => option(s, sourceLabel(s))));
      if (keep && sources.includes(keep)) { this.source.value = keep; this.pendingSource = ''; }
    }
    const runs = this.model.runList();
    const runsKey = runs.map((r) => `${r.runId}\t${r.label ?? ''}`).join('\n');
    if (runsKey !== this.runOptions) {
      this.runOptions = runsKey;
      const keep = this.run.value || this.pendingRun;
      replaceChildren(this.run, option('', 'All runs'), ...runs.map((r) => option(r.runId, `${r.label ?? r.runId} · ${localTime(r.startedAt)}`)));
      if (keep && runs.some((r) => r.runId === keep)) { this.run.value = keep; this.pendingRun = ''; }
    }
  }

  private createRow(): HTMLElement {
    const cells = Array.from({ length: 9 }, (_, i) => h('span', { class: `cell c${i}` }));
    const copy = h('button', { class: 'icon-button copy-sha', tabindex: '-1', title: 'Copy sha256', 'aria-label': 'Copy sha256' }, icon('copy'));
    cells[6]!.append(h('span', { class: 'sha' }), copy);
    return h('div', { class: 'row-grid', role: 'treeitem' }, ...cells);
  }

  private renderRow(el: HTMLElement, row: Row, i: number): void {
    // aria-activedescendant may only name a row in the DOM (axe: aria-valid-attr-value): a
    // recycled row gives the name up, the active row's element takes it.
    const vp = this.list.viewport;
    if (el.id && el.id === vp.getAttribute('aria-activedescendant') && i !== this.active) vp.removeAttribute('aria-activedescendant');
    el.id = `row-${i}`;
    if (i === this.active) vp.setAttribute('aria-activedescendant', el.id);
    el.dataset.index = String(i);
    el.dataset.kind = row.kind;
    el.classList.toggle('selected', row.key === this.selectedKey);
    el.classList.toggle('active', i === this.active);
    el.setAttribute('aria-selected', String(row.key === this.selectedKey));
    const c = el.children;
    const set = (k: number, text: string, title?: string): void => {
      const cell = c[k] as HTMLElement;
      cell.textContent = text;
      if (title) cell.title = title; else cell.removeAttribute('title');
    };
    const shaCell = c[6] as HTMLElement;
    const [shaText, copy] = [shaCell.children[0] as HTMLElement, shaCell.children[1] as HTMLElement];
    if (row.kind === 'run') {
      const r = row.run;
      el.setAttribute('aria-level', '1');
      el.setAttribute('aria-expanded', String(!row.collapsed));
      // No aria-label: a treeitem's name comes from its visible cells, so what a screen
      // reader says and what is shown are the same words (WCAG 2.5.3, label in name).
      el.removeAttribute('aria-label');
      replaceChildren(c[0] as HTMLElement, icon(row.collapsed ? 'chevron-right' : 'chevron-down'));
      set(1, r.label ?? r.runId, r.runId);
      set(2, clockTime(r.startedAt), localTime(r.startedAt));
      replaceChildren(c[3] as HTMLElement, icon(statusIcon[r.status] ?? 'circle'), ` ${r.status}`);
      (c[3] as HTMLElement).title = `run ${r.status}`;
      (c[3] as HTMLElement).dataset.outcome = '';
      set(4, humanBytes(r.totalBytes), exactBytes(r.totalBytes));
      set(5, ''); set(7, ''); shaText.textContent = ''; copy.hidden = true;
      set(8, `${localTime(r.startedAt)} · from ${r.source ?? 'tool'} · run ${r.runId} · ${count(row.shown)} of ${count(r.callCount)} calls${r.pinned ? ' · pinned' : ''}`);
      return;
    }
    el.removeAttribute('aria-expanded');
    const part = row.kind === 'call' ? row.call.result : row.part;
    const call = row.call;
    el.setAttribute('aria-level', row.kind === 'call' ? '2' : '3');
    const size = `${humanBytes(part.sizeBytes)} (${exactBytes(part.sizeBytes)})`;
    const name = row.kind === 'call' ? call.tool : part.name;
    const outcome = outcomeOf(call);
    el.removeAttribute('aria-label');
    replaceChildren(c[0] as HTMLElement, row.kind === 'part' ? icon('indent') : icon('symbol-method'));
    set(1, name, row.kind === 'call' ? `${call.tool} · call ${call.callId}` : `${part.name} of call ${call.callId}`);
    set(2, row.kind === 'call' ? clockTime(call.startedAt) : '', localTime(call.startedAt));
    const statusCell = c[3] as HTMLElement;
    statusCell.dataset.outcome = row.kind === 'call' ? outcome.kind : '';
    if (row.kind === 'call') {
      replaceChildren(statusCell, icon(outcome.kind === 'failed' ? 'error' : (statusIcon[call.status] ?? 'circle')), ` ${outcome.label}`);
      statusCell.title = `${outcome.label}: ${outcome.detail} (recorded status ${call.status})`;
    } else set(3, part.truncated ? 'truncated' : '', part.truncated && part.observedBytes !== undefined ? `capture stopped at its cap: ${exactBytes(part.observedBytes)} produced` : undefined);
    const live = row.kind === 'call' && call.status === 'running' ? this.model.liveOf(call.runId, call.callId) : undefined;
    if (live) {
      const bytes = (live.stdout?.bytes ?? 0) + (live.stderr?.bytes ?? 0);
      set(4, `${humanBytes(bytes)} so far`, `running: stdout ${exactBytes(live.stdout?.bytes ?? 0)}, stderr ${exactBytes(live.stderr?.bytes ?? 0)} so far`);
    } else set(4, size, `${exactBytes(part.sizeBytes)}${part.observedBytes !== undefined && part.observedBytes !== part.sizeBytes ? `, ${exactBytes(part.observedBytes)} produced` : ''}`);
    set(5, part.handle ?? '—', part.handle ?? 'small result, shown to the model whole');
    shaText.textContent = shortSha(part.sha256);
    shaText.title = part.sha256 ?? '';
    copy.hidden = !part.sha256;
    set(7, part.stored ?? '', part.readable ? undefined : 'bytes not kept: preview only');
    (c[7] as HTMLElement).dataset.state = part.stored ?? '';
    set(8, row.kind === 'call' ? (call.errorMessage ?? call.argsSummary) : (part.contentType ?? ''));
  }

  private updateActiveDescendant(): void {
    const vp = this.list.viewport;
    if (this.active >= 0 && this.active < this.rows.length && vp.querySelector(`#row-${this.active}`)) vp.setAttribute('aria-activedescendant', `row-${this.active}`);
    else vp.removeAttribute('aria-activedescendant');
  }

  private moveTo(i: number, open = false): void {
    if (this.rows.length === 0) return;
    this.active = Math.max(0, Math.min(this.rows.length - 1, i));
    const row = this.rows[this.active]!;
    const ref = rowRef(row);
    if (ref) { this.selectedKey = row.key; this.events.select(ref, open); }
    this.list.scrollToIndex(this.active);
    this.updateActiveDescendant();
  }

  private toggleRun(runId: string, collapse: boolean): void {
    if (collapse) this.collapsed.add(runId); else this.collapsed.delete(runId);
    this.refresh();
    this.events.changed();
  }

  private onKey(e: KeyboardEvent): void {
    const row = this.rows[this.active];
    const page = this.list.pageSize;
    switch (e.key) {
      case 'ArrowDown': this.moveTo(this.active + 1); break;
      case 'ArrowUp': this.moveTo(this.active - 1); break;
      case 'Home': this.moveTo(0); break;
      case 'End': this.moveTo(this.rows.length - 1); break;
      case 'PageDown': this.moveTo(this.active + page); break;
      case 'PageUp': this.moveTo(this.active - page); break;
      case 'ArrowRight':
        if (row?.kind === 'run' && row.collapsed) this.toggleRun(row.run.runId, false);
        else this.moveTo(this.active + 1);
        break;
      case 'ArrowLeft':
        if (row?.kind === 'run') { if (!row.collapsed) this.toggleRun(row.run.runId, true); }
        else if (row) this.moveTo(this.parentIndex(this.active));
        break;
      case 'Enter':
        if (row?.kind === 'run') this.toggleRun(row.run.runId, !row.collapsed);
        else this.moveTo(this.active, true);
        break;
      case 'c': {
        const sha = row && row.kind !== 'run' ? (row.kind === 'call' ? row.call.result.sha256 : row.part.sha256) : undefined;
        if (sha) this.events.copy(sha, 'sha256');
        break;
      }
      default: return;
    }
    e.preventDefault();
  }

  private parentIndex(i: number): number {
    const kind = this.rows[i]?.kind;
    for (let j = i - 1; j >= 0; j--) {
      const k = this.rows[j]!.kind;
      if (kind === 'part' ? k === 'call' : k === 'run') return j;
    }
    return i;
  }

  private onClick(e: MouseEvent, open: boolean): void {
    const target = e.target as HTMLElement;
    const rowEl = target.closest<HTMLElement>('.vlist-row');
    if (!rowEl) return;
    const i = Number(rowEl.dataset.index);
    const row = this.rows[i];
    if (!row) return;
    if (target.closest('.copy-sha')) {
      const sha = row.kind === 'call' ? row.call.result.sha256 : row.kind === 'part' ? row.part.sha256 : undefined;
      if (sha) this.events.copy(sha, 'sha256');
      return;
    }
    if (row.kind === 'run') { this.active = i; this.toggleRun(row.run.runId, !row.collapsed); return; }
    this.moveTo(i, open);
    this.list.viewport.focus({ preventScroll: true });
  }
}
