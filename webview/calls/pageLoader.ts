/**
 * Pages of the list, asked of the host (docs/contracts.md §3.4, "Listing in pages"); the pages on screen are swapped
 * in together, and answers to an older query are dropped.
 */
import type { ListQueryDto, PageReply, PageRequest } from '../../src/shared/protocol.js';
import { CallsModel, PAGE_SIZE } from '../callsModel.js';
import { rowHeight, type ListState } from './state.js';

interface PageLoaderDeps {
  readonly model: CallsModel;
  readonly state: ListState;
  readonly viewport: HTMLElement;
  query(): ListQueryDto;
  page(request: Omit<PageRequest, 'type' | 'id'>): Promise<PageReply>;
  arrived(): void;
  loadingChanged(): void;
  problem(message: string): void;
}

export class PageLoader {
  loading = false;
  private reloading: { key: string; again: boolean; done: Promise<void> } | undefined;
  /** Answers to an older one are dropped. */
  private generation = 0;
  private readonly asking = new Set<number>();

  constructor(private readonly deps: PageLoaderDeps) {}

  get loaded(): boolean {
    return this.deps.model.key === CallsModel.keyOf(this.deps.query());
  }

  get pending(): Promise<void> | undefined {
    return this.reloading?.done;
  }

  /** A new query starts at the top; a change in the store keeps the place. */
  reload(top: boolean): Promise<void> {
    const { model } = this.deps;
    const q = this.deps.query();
    const key = CallsModel.keyOf(q);
    // A change while the same pages are being asked for: ask once more when they arrive, not twice at once.
    if (!top && this.reloading && this.reloading.key === key) {
      this.reloading.again = true;
      return this.reloading.done;
    }
    const gen = ++this.generation;
    this.asking.clear();
    if (top) this.deps.viewport.scrollTop = 0;
    const pages = top || model.key !== key ? [0] : this.pagesOnScreen();
    this.setLoading(true);
    const state = { key, again: false, done: Promise.resolve() };
    this.reloading = state;
    state.done = Promise.all(
      pages.map((p) =>
        this.deps.page({
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
          model.replace(key, replies);
          this.setLoading(false);
          this.deps.arrived();
        },
        (e: Error) => {
          if (gen !== this.generation) return;
          this.setLoading(false);
          this.deps.problem(e.message);
        },
      )
      .then(() => {
        if (this.reloading === state) this.reloading = undefined;
        if (state.again && gen === this.generation) return this.reload(false);
        return undefined;
      });
    return state.done;
  }

  /** Each once. */
  fetchMissing(first: number, last: number): void {
    if (!this.loaded) return;
    const { model, state } = this.deps;
    const want = new Set<number>();
    for (let i = first; i <= last; i++) {
      const row = state.rows.at(i);
      if (row.kind === 'pending') want.add(Math.floor(row.index / PAGE_SIZE));
    }
    const q = this.deps.query();
    const key = CallsModel.keyOf(q);
    const gen = this.generation;
    for (const p of want) {
      if (this.asking.has(p) || model.has(p)) continue;
      this.asking.add(p);
      this.setLoading(true);
      this.deps.page({ offset: p * PAGE_SIZE, limit: PAGE_SIZE, query: q }).then(
        (reply) => {
          if (gen !== this.generation) return;
          this.asking.delete(p);
          if (model.add(key, reply)) this.deps.arrived();
          if (this.asking.size === 0) this.setLoading(false);
        },
        (e: Error) => {
          if (gen !== this.generation) return;
          this.asking.delete(p);
          if (this.asking.size === 0) this.setLoading(false);
          this.deps.problem(e.message);
        },
      );
    }
  }

  /** False once the list moved on to another query. */
  async ensure(p: number, query: ListQueryDto): Promise<boolean> {
    const { model } = this.deps;
    const key = CallsModel.keyOf(query);
    if (p < 0 || p * PAGE_SIZE >= model.total || model.has(p)) return model.key === key;
    const reply = await this.deps.page({ offset: p * PAGE_SIZE, limit: PAGE_SIZE, query });
    if (!model.add(key, reply)) return false;
    // Rebuilt now, so a look for a call on this page sees it (else both neighbouring pages were fetched too).
    this.deps.arrived();
    return true;
  }

  private setLoading(loading: boolean): void {
    this.loading = loading;
    this.deps.viewport.setAttribute('aria-busy', String(loading));
    this.deps.loadingChanged();
  }

  private pagesOnScreen(): number[] {
    const h = rowHeight;
    const vp = this.deps.viewport;
    const rows = this.deps.state.rows;
    const first = Math.max(0, Math.floor(vp.scrollTop / h) - 8);
    const last = Math.min(rows.length - 1, Math.ceil((vp.scrollTop + vp.clientHeight) / h) + 8);
    const pages = new Set<number>();
    for (let i = first; i <= last; i++) pages.add(Math.floor(rows.at(i).index / PAGE_SIZE));
    return pages.size > 0 ? [...pages].sort((a, b) => a - b) : [0];
  }
}
