/**
 * The calls list, composed of widgets that share `ListState` and reach each other only through the callbacks wired
 * here; the host answers its pages (docs/contracts.md §3.4). Every cell is text.
 */
import type { ListQueryDto, PageReply, PageRequest, PartRef, RunDto } from '../../src/shared/protocol.js';
import { CallsModel, PAGE_SIZE, partKey, queryOf, type Filters, type Row } from '../callsModel.js';
import { h } from '../dom.js';
import { count } from '../format.js';
import { VirtualList } from '../virtualList.js';
import { ColumnHeader } from './columns.js';
import { FilterBar } from './filterBar.js';
import { PageLoader } from './pageLoader.js';
import { NoMatchNotice } from './noMatch.js';
import { RevealNotice } from './revealNotice.js';
import { RowRenderer } from './rows.js';
import { rowHeight, type ListState } from './state.js';
import { TreeNav } from './treeNav.js';

export interface CallsViewEvents {
  /** `open` when the person asked to open it (Enter, double click). */
  select(ref: PartRef, open: boolean): void;
  copy(text: string, what: string): void;
  refresh(): void;
  /** For saved state. */
  changed(): void;
  page(request: Omit<PageRequest, 'type' | 'id'>): Promise<PageReply>;
  pickRuns(text: string, limit: number): Promise<readonly RunDto[]>;
  problem(message: string): void;
}

export class CallsView {
  readonly element: HTMLElement;
  private readonly state: ListState;
  private readonly bar: FilterBar;
  private readonly notice = new RevealNotice();
  private readonly noMatch: NoMatchNotice;
  private readonly columns: ColumnHeader;
  private readonly list: VirtualList<Row>;
  private readonly loader: PageLoader;
  private readonly nav: TreeNav;
  /** Performance clock, for the measurements. */
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
    const collapsed = new Set<string>();
    const state: ListState = (this.state = {
      rows: model.rows(collapsed),
      active: -1,
      selectedKey: undefined,
      collapsed,
      drawn: [0, -1],
    });
    // The saved collapsed runs apply from the first refresh (the rows above are of an empty model).
    for (const r of initial?.collapsed ?? []) collapsed.add(r);
    this.element = h('section', { class: 'calls', 'aria-label': 'Calls' });
    this.bar = new FilterBar(
      {
        tools: () => model.tools,
        pickRuns: (text, limit) => events.pickRuns(text, limit),
        changed: () => this.filtersChanged(),
        refresh: () => events.refresh(),
      },
      initial,
    );
    this.columns = new ColumnHeader(this.element, () => events.changed(), initial?.columns);
    const viewport = h('div', {
      id: 'calls',
      class: 'vlist',
      role: 'tree',
      tabindex: '0',
      'aria-label': 'Recorded tool calls, newest first, grouped by run',
    });
    const rows = new RowRenderer(model, state, viewport);
    this.list = new VirtualList<Row>(viewport, {
      rowHeight,
      create: () => rows.create(),
      render: (el, row, i) => rows.render(el, row, i),
      onRendered: (first, last) => this.rendered(first, last),
    });
    this.loader = new PageLoader({
      model,
      state,
      viewport,
      query: () => queryOf(this.filters()),
      page: (r) => events.page(r),
      arrived: () => this.refresh(),
      loadingChanged: () => this.updateSummary(),
      problem: (message) => events.problem(message),
    });
    this.nav = new TreeNav({
      state,
      list: this.list,
      select: (ref, open) => events.select(ref, open),
      copy: (text, what) => events.copy(text, what),
      toggled: () => {
        this.refresh();
        events.changed();
      },
    });
    this.noMatch = new NoMatchNotice(() => this.clearFilters(() => undefined));
    this.element.append(this.bar.element, this.notice.element, this.noMatch.element, this.columns.element, viewport);
  }

  filters(): Filters {
    return this.bar.filters();
  }

  /** Saved with the filters, so a reload shows it without asking. */
  runLabel(): string {
    return this.bar.runLabel();
  }

  collapsedRuns(): string[] {
    return [...this.state.collapsed];
  }

  columnWidths(): Record<string, number> {
    return this.columns.columnWidths();
  }

  get loaded(): boolean {
    return this.loader.loaded;
  }

  /** `top` for a new query, else the place is kept. */
  reload(top: boolean): Promise<void> {
    return this.loader.reload(top);
  }

  focus(): void {
    this.list.viewport.focus();
  }

  /**
   * A page arriving above the top row grows the rows before it, so the scroll position follows the call that was at
   * the top.
   */
  refresh(): void {
    const s = this.state;
    this.bar.setSources(this.model.sources);
    const activeKey = s.active >= 0 && s.active < s.rows.length ? s.rows.at(s.active).key : undefined;
    const vp = this.list.viewport;
    const topRow = Math.floor(vp.scrollTop / rowHeight);
    const anchor =
      vp.scrollTop > 0 && topRow < s.rows.length
        ? { index: s.rows.at(topRow).index, within: vp.scrollTop - topRow * rowHeight }
        : undefined;
    s.rows = this.model.rows(s.collapsed);
    s.active = activeKey ? s.rows.indexOfKey(activeKey) : -1;
    if (s.active < 0 && s.selectedKey) s.active = s.rows.indexOfKey(s.selectedKey);
    if (anchor) {
      const at = s.rows.indexOfCall(anchor.index);
      if (at >= 0) {
        // The spacer must be tall enough before the scroll position is set.
        this.list.setItems(s.rows, false);
        vp.scrollTop = at * rowHeight + anchor.within;
      }
    }
    this.list.setItems(s.rows);
    this.updateSummary();
    this.nav.updateActiveDescendant();
  }

  /** Live sizes changed; the rows themselves did not. */
  repaint(): void {
    this.list.render();
  }

  select(ref: PartRef): void {
    const s = this.state;
    s.selectedKey = partKey(ref);
    if (s.collapsed.delete(ref.runId)) this.refresh();
    const i = s.rows.indexOfKey(s.selectedKey);
    if (i >= 0) {
      s.active = i;
      this.list.scrollToIndex(i);
    }
    this.list.render();
    this.nav.updateActiveDescendant();
  }

  /**
   * docs/contracts.md §3.4, "Reveal": fetches the call's page if not held, or says the filters hide it, with a
   * button that clears them.
   */
  async reveal(
    ref: PartRef,
    query: ListQueryDto,
    at: { index?: number; hidden?: boolean },
    again: () => void,
  ): Promise<void> {
    this.notice.hide();
    const key = CallsModel.keyOf(query);
    if (at.hidden) {
      if (key === CallsModel.keyOf(queryOf(this.filters()))) this.notice.show(() => this.clearFilters(again));
      return;
    }
    if (at.index === undefined) return;
    await this.loader.pending;
    // The filters changed since the host answered: that list is gone, the selection stands.
    if (this.model.key !== key) return;
    const p = Math.floor(at.index / PAGE_SIZE);
    try {
      if (!(await this.loader.ensure(p, query))) return;
      this.select(ref);
      // Calls recorded since the host answered move the list by a few rows: look on the neighbouring pages.
      if (this.state.rows.indexOfKey(this.state.selectedKey!) < 0) {
        if (!(await this.loader.ensure(p + 1, query)) || !(await this.loader.ensure(p - 1, query))) return;
        this.select(ref);
      }
    } catch (e) {
      this.events.problem((e as Error).message);
      return;
    }
    this.refresh();
    this.select(ref);
    // Focus follows the row unless the person moved on meanwhile.
    const focused = document.activeElement;
    if (!focused || focused === document.body || this.list.viewport.contains(focused)) this.focus();
  }

  private rendered(first: number, last: number): void {
    const rows = this.state.rows;
    document.body.dataset.listRenderMaxMs = this.list.slowestRenderMs.toFixed(1);
    if (this.firstRowsRenderedAt === undefined && last >= first && rows.length > 0 && rows.at(first).kind !== 'pending')
      this.firstRowsRenderedAt = performance.now();
    this.state.drawn = [first, last];
    this.columns.fit(this.list.viewport);
    this.nav.updateActiveDescendant();
    // Rows still loading on screen: ask for their pages.
    if (last >= first) this.loader.fetchMissing(first, last);
  }

  private clearFilters(again: () => void): void {
    this.bar.clear();
    this.events.changed();
    void this.reload(true).then(again);
  }

  private filtersChanged(): void {
    this.notice.hide();
    void this.reload(true);
    this.events.changed();
  }

  private updateSummary(): void {
    const loading = this.loader.loading ? ' · loading…' : '';
    this.bar.summarize(`${count(this.model.total)} of ${count(this.model.size)} calls${loading}`);
    this.noMatch.update(this.model.total, this.model.size, this.loader.loading);
  }
}
