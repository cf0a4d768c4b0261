/**
 * Side by side, stacked or one compact column, chosen from the panel's own width (a webview sits in an editor group
 * of any size), with a remembered splitter.
 */
import { h } from './dom.js';

const layoutWidths = { side: 1200, compact: 500 } as const;
export type LayoutMode = 'side' | 'stack' | 'compact';

function layoutFor(width: number): LayoutMode {
  return width >= layoutWidths.side ? 'side' : width < layoutWidths.compact ? 'compact' : 'stack';
}

/** Neither side can vanish. */
function clampSplit(f: number): number {
  return Number.isFinite(f) ? Math.min(0.85, Math.max(0.15, f)) : 0.4;
}

/** The CSS says so too. */
const shortHeight = 260;

/**
 * Side by side the list's fitted columns need more than half; a short stacked split gives half, as the list's toolbar
 * and header take most of 40%.
 */
function defaultSplit(mode: LayoutMode, short: boolean): number {
  return mode === 'side' ? 0.56 : short ? 0.5 : 0.4;
}

const step = 0.05;

export class SplitLayout {
  readonly element: HTMLElement;
  private readonly splitter: HTMLElement;
  private fraction: number;
  private mode: LayoutMode = 'stack';
  private short = false;
  /** Else it follows the mode's default. */
  private chosen: boolean;

  constructor(
    list: HTMLElement,
    detail: HTMLElement,
    initial: number | undefined,
    private readonly changed: () => void,
  ) {
    this.chosen = initial !== undefined;
    this.fraction = clampSplit(initial ?? defaultSplit(this.mode, this.short));
    this.splitter = h('div', {
      class: 'splitter',
      role: 'separator',
      tabindex: '0',
      id: 'splitter',
      'aria-label': 'Resize the calls list and the detail (arrow keys, Home, End)',
      'aria-valuemin': '15',
      'aria-valuemax': '85',
    });
    this.element = h('div', { class: 'split', id: 'split' }, list, this.splitter, detail);
    this.apply();
    // Measured in the next frame: a layout switched inside the observer's callback resizes what it observes, and the
    // browser reports a ResizeObserver loop.
    new ResizeObserver(() => requestAnimationFrame(() => this.measure())).observe(this.element);
    this.splitter.addEventListener('pointerdown', (e) => this.drag(e));
    this.splitter.addEventListener('keydown', (e) => this.key(e));
    this.splitter.addEventListener('dblclick', () => {
      this.set(defaultSplit(this.mode, this.short));
      this.chosen = false;
      this.changed();
    });
  }

  /** Only one the person chose, else the mode's default applies next time too. */
  get split(): number | undefined {
    return this.chosen ? this.fraction : undefined;
  }

  private measure(): void {
    const mode = layoutFor(this.element.clientWidth);
    const short = this.element.clientHeight < shortHeight;
    if (mode === this.mode && short === this.short && this.element.dataset.layout) return;
    this.mode = mode;
    this.short = short;
    if (!this.chosen) this.fraction = defaultSplit(mode, short);
    this.apply();
  }

  private apply(): void {
    this.element.dataset.layout = this.mode;
    this.element.toggleAttribute('data-short', this.short);
    document.body.dataset.layout = this.mode;
    this.splitter.setAttribute('aria-orientation', this.mode === 'side' ? 'vertical' : 'horizontal');
    this.splitter.setAttribute('aria-valuenow', String(Math.round(this.fraction * 100)));
    this.splitter.setAttribute('aria-valuetext', `list ${Math.round(this.fraction * 100)}%`);
    this.element.style.setProperty('--list-share', `${(this.fraction * 100).toFixed(2)}%`);
  }

  private set(f: number): void {
    this.chosen = true;
    this.fraction = clampSplit(f);
    this.apply();
    this.changed();
  }

  private drag(e: PointerEvent): void {
    e.preventDefault();
    this.splitter.setPointerCapture(e.pointerId);
    this.splitter.classList.add('dragging');
    const move = (ev: PointerEvent): void => {
      const r = this.element.getBoundingClientRect();
      const f = this.mode === 'side' ? (ev.clientX - r.left) / r.width : (ev.clientY - r.top) / r.height;
      this.fraction = clampSplit(f);
      this.apply();
    };
    const up = (): void => {
      this.chosen = true;
      this.splitter.classList.remove('dragging');
      this.splitter.removeEventListener('pointermove', move);
      this.splitter.removeEventListener('pointerup', up);
      this.splitter.removeEventListener('pointercancel', up);
      this.changed();
    };
    this.splitter.addEventListener('pointermove', move);
    this.splitter.addEventListener('pointerup', up);
    this.splitter.addEventListener('pointercancel', up);
  }

  private key(e: KeyboardEvent): void {
    const back = this.mode === 'side' ? 'ArrowLeft' : 'ArrowUp';
    const fwd = this.mode === 'side' ? 'ArrowRight' : 'ArrowDown';
    if (e.key === back) this.set(this.fraction - step);
    else if (e.key === fwd) this.set(this.fraction + step);
    else if (e.key === 'Home') this.set(0);
    else if (e.key === 'End') this.set(1);
    else return;
    e.preventDefault();
  }
}
