/**
 * Resizable, remembered and fitted columns (docs/contracts.md §3.4, "Columns"); widths reach every row's grid
 * through CSS variables.
 */
import { h } from '../dom.js';

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
/** CSS pixels. */
const minColumn = 40;
const maxColumn = 1200;
/** A longer name or handle is cut, its tooltip whole. */
const maxFit = 360;
const columnStep = 16;

export class ColumnHeader {
  readonly element: HTMLElement;
  /** CSS pixels, by column id. */
  private readonly widths = new Map<string, number>();
  private readonly fitted = new Map<string, number>();

  constructor(
    private readonly host: HTMLElement,
    private readonly changed: () => void,
    initial?: Readonly<Record<string, number>>,
  ) {
    this.element = h(
      'div',
      { class: 'row-grid list-header', id: 'list-header' },
      h('span', {}),
      ...columns.map(([id, label]) => this.headerCell(id, label)),
    );
    // A focusable separator states its position.
    new ResizeObserver(() => {
      for (const cell of this.element.querySelectorAll<HTMLElement>('.col-head')) {
        cell
          .querySelector('.col-resize')
          ?.setAttribute(
            'aria-valuenow',
            String(Math.round(Math.min(maxColumn, Math.max(minColumn, cell.getBoundingClientRect().width)))),
          );
      }
    }).observe(this.element);
    for (const [id, w] of Object.entries(initial ?? {}))
      if (columns.some(([c]) => c === id) && Number.isFinite(w)) this.setWidth(id, w);
  }

  columnWidths(): Record<string, number> {
    return Object.fromEntries(this.widths);
  }

  /**
   * The widest content drawn becomes the column's least width (a dragged width still wins), so "stdout" or a whole
   * handle is never cut; widths only grow within a query.
   */
  fit(viewport: HTMLElement): void {
    const range = document.createRange();
    for (const id of ['c1', 'c3', 'c4', 'c5'] as const) {
      // The fitted width already holds the one pixel added below.
      let widest = 0;
      // A run's label is cut, its tooltip whole.
      const rows = id === 'c1' || id === 'c5' ? ['call', 'part'] : ['run', 'call', 'part'];
      for (const cell of viewport.querySelectorAll<HTMLElement>(
        rows.map((k) => `.vlist-row[data-kind="${k}"] .${id}`).join(', '),
      )) {
        // A Range is not clipped by the cell; scrollWidth is rounded and is the column's width when nothing
        // overflows.
        range.selectNodeContents(cell);
        const st = getComputedStyle(cell);
        widest = Math.max(
          widest,
          range.getBoundingClientRect().width + parseFloat(st.paddingLeft) + parseFloat(st.paddingRight),
        );
      }
      // A column keeps what it was fitted to when fewer rows are drawn.
      widest = Math.max(this.fitted.get(id) ?? 0, widest > 0 ? Math.min(maxFit, Math.ceil(widest + 1)) : 0);
      if (widest > 0 && widest !== this.fitted.get(id)) {
        this.fitted.set(id, widest);
        this.host.style.setProperty(`--fit-${id}`, `${widest}px`);
      }
    }
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
        this.changed();
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
      this.changed();
    });
    grip.addEventListener('dblclick', () => {
      this.setWidth(id, undefined);
      this.changed();
    });
    return cell;
  }

  private setWidth(id: string, width: number | undefined): void {
    const grip = this.element.querySelector<HTMLElement>(`.col-resize[data-col="${id}"]`);
    if (width === undefined) {
      this.widths.delete(id);
      this.host.style.removeProperty(`--w-${id}`);
      return;
    }
    const w = Math.round(Math.min(maxColumn, Math.max(minColumn, width)));
    this.widths.set(id, w);
    this.host.style.setProperty(`--w-${id}`, `${w}px`);
    grip?.setAttribute('aria-valuenow', String(w));
  }
}
