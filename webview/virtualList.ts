/**
 * Only the rows around the viewport exist, reused from a pool; items are read by index, so 100,000 calls mostly not
 * fetched are not 100,000 objects. Positions go through CSSOM, which the CSP allows.
 */

export interface Items<T> {
  readonly length: number;
  at(index: number): T | undefined;
}

export interface VirtualListOptions<T> {
  readonly rowHeight: number;
  create(): HTMLElement;
  render(el: HTMLElement, item: T, index: number): void;
  readonly overscan?: number;
  onRendered?(first: number, last: number): void;
}

export class VirtualList<T> {
  private readonly spacer: HTMLElement;
  private items: Items<T> = [];
  private readonly pool: HTMLElement[] = [];
  private frame = 0;
  /** Apart from the browser's own work. */
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

  /** `render` false: the caller moves the scroll first. */
  setItems(items: Items<T>, render = true): void {
    this.items = items;
    this.spacer.style.height = `${items.length * this.opts.rowHeight}px`;
    if (render) this.render();
  }

  get length(): number {
    return this.items.length;
  }

  get pageSize(): number {
    return Math.max(1, Math.floor(this.viewport.clientHeight / this.opts.rowHeight));
  }

  /** Coalesces scroll events. */
  schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  scrollToIndex(index: number): void {
    const h = this.opts.rowHeight;
    const top = index * h;
    const vp = this.viewport;
    if (top < vp.scrollTop) vp.scrollTop = top;
    else if (top + h > vp.scrollTop + vp.clientHeight) vp.scrollTop = top + h - vp.clientHeight;
    this.render();
  }

  indexAt(clientY: number): number {
    const y = clientY - this.viewport.getBoundingClientRect().top + this.viewport.scrollTop;
    const i = Math.floor(y / this.opts.rowHeight);
    return i >= 0 && i < this.items.length ? i : -1;
  }

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
