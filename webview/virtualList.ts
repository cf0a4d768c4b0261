/**
 * A small virtual list: fixed-height rows, and only the rows in (or just around) the
 * viewport exist in the DOM, reused from a pool as the list scrolls. The items are read
 * by index (`at`), so a list of 100,000 calls whose pages are mostly not fetched is not
 * 100,000 objects. Positions are set through CSSOM (`style.transform`), which the CSP allows.
 */

/** Items read by index (an array fits). */
export interface Items<T> {
  readonly length: number;
  at(index: number): T | undefined;
}

/** How rows are made and filled. */
export interface VirtualListOptions<T> {
  /** Row height in CSS pixels (every row). */
  readonly rowHeight: number;
  /** Makes an empty row element (called once per pooled row). */
  create(): HTMLElement;
  /** Fills a pooled row with an item (called on every render of a visible row). */
  render(el: HTMLElement, item: T, index: number): void;
  /** Rows rendered beyond each edge of the viewport. */
  readonly overscan?: number;
  /** Called after each render with the first and last rendered indexes. */
  onRendered?(first: number, last: number): void;
}

/** A scrolling viewport that renders only visible rows. */
export class VirtualList<T> {
  private readonly spacer: HTMLElement;
  private items: Items<T> = [];
  private readonly pool: HTMLElement[] = [];
  private frame = 0;
  /** Slowest render so far (ms): what scrolling costs this code, apart from the browser's own work. */
  slowestRenderMs = 0;

  constructor(
    readonly viewport: HTMLElement,
    private readonly opts: VirtualListOptions<T>,
  ) {
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    viewport.appendChild(this.spacer);
    viewport.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(viewport);
  }

  /** Replaces the items and renders at once (unless `render` is false: the caller moves the scroll first). */
  setItems(items: Items<T>, render = true): void {
    this.items = items;
    this.spacer.style.height = `${items.length * this.opts.rowHeight}px`;
    if (render) this.render();
  }

  /** Number of items. */
  get length(): number {
    return this.items.length;
  }

  /** Rows that fit in the viewport. */
  get pageSize(): number {
    return Math.max(1, Math.floor(this.viewport.clientHeight / this.opts.rowHeight));
  }

  /** Re-renders on the next animation frame (coalesces scroll events). */
  schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** Scrolls the least distance that makes row `index` fully visible, and renders. */
  scrollToIndex(index: number): void {
    const h = this.opts.rowHeight;
    const top = index * h;
    const vp = this.viewport;
    if (top < vp.scrollTop) vp.scrollTop = top;
    else if (top + h > vp.scrollTop + vp.clientHeight) vp.scrollTop = top + h - vp.clientHeight;
    this.render();
  }

  /** Index of the row at a viewport-relative y, or -1. */
  indexAt(clientY: number): number {
    const y = clientY - this.viewport.getBoundingClientRect().top + this.viewport.scrollTop;
    const i = Math.floor(y / this.opts.rowHeight);
    return i >= 0 && i < this.items.length ? i : -1;
  }

  /** Renders the visible window now. */
  render(): void {
    const t0 = performance.now();
    const h = this.opts.rowHeight;
    const over = this.opts.overscan ?? 8;
    const top = this.viewport.scrollTop;
    const first = Math.max(0, Math.floor(top / h) - over);
    const last = Math.min(this.items.length, Math.ceil((top + this.viewport.clientHeight) / h) + over);
    const needed = last - first;
    while (this.pool.length < needed) {
      const el = this.opts.create();
      el.classList.add('vlist-row');
      this.pool.push(el);
      this.viewport.appendChild(el);
    }
    for (let k = 0; k < this.pool.length; k++) {
      const el = this.pool[k]!;
      const i = first + k;
      if (k >= needed) {
        el.hidden = true;
        el.removeAttribute('id');
        continue;
      }
      el.hidden = false;
      el.style.transform = `translateY(${i * h}px)`;
      this.opts.render(el, this.items.at(i)!, i);
    }
    this.slowestRenderMs = Math.max(this.slowestRenderMs, performance.now() - t0);
    this.opts.onRendered?.(first, last - 1);
  }
}
