/** The next window is read ahead, so reading on costs no round trip (docs/contracts.md §3.4, "Speed"). */
import type { VscodeButton } from '@vscode-elements/elements/dist/vscode-button/vscode-button.js';
import type { WindowDto, WindowRequestDto } from '../../src/shared/protocol.js';
import { h } from '../dom.js';
import { count, exactBytes } from '../format.js';
import type { RequestBody, Reply } from '../rpc.js';
import { button } from './controls.js';
import type { DetailState, ReadAhead } from './state.js';
import { renderText, type WindowMark } from './textRows.js';

export type RangeRequest = Exclude<WindowRequestDto, { kind: 'pattern' }>;

export interface FetchOptions {
  /** The host's `snap`; true unless said. */
  readonly snap?: boolean;
  readonly mark?: (w: WindowDto) => WindowMark | undefined;
  /** The request saved stays the match, not its window. */
  readonly fromMatch?: boolean;
  /** Shown without asking. */
  readonly given?: WindowDto;
}

interface WindowPaneDeps {
  readonly state: DetailState;
  request(body: RequestBody): Promise<Reply>;
  status(message: string): void;
  /** `now` for a window put on screen: saved at once, as a panel hidden right after would lose it. */
  changed(now?: boolean): void;
  shown(w: WindowDto): void;
  paged(offset: number): void;
  find(pattern: string, index: number): Promise<void>;
  step(dir: -1 | 1): void;
  settled(): void;
}

export class WindowPane {
  readonly elements: readonly HTMLElement[];
  readonly view: HTMLElement;
  private readonly position: HTMLElement;
  private readonly error: HTMLElement;
  private readonly pagers: readonly VscodeButton[];
  private ahead: ReadAhead | undefined;

  constructor(private readonly deps: WindowPaneDeps) {
    const prevPage = button('page-prev', 'Previous', 'chevron-left', true, 'Previous window of the same size');
    const nextPage = button('page-next', 'Next', 'chevron-right', true, 'Next window of the same size');
    this.pagers = [prevPage, nextPage];
    this.position = h('span', { id: 'window-position', 'aria-live': 'polite' });
    this.error = h('div', { id: 'window-error', class: 'error', role: 'alert' });
    this.view = h('div', {
      id: 'window',
      class: 'window',
      tabindex: '0',
      role: 'region',
      'aria-label': 'Window contents (text only)',
    });
    this.elements = [h('div', { class: 'window-bar' }, prevPage, nextPage, this.position), this.error, this.view];
    prevPage.addEventListener('click', () => this.page(-1));
    nextPage.addEventListener('click', () => this.page(1));
  }

  reset(): void {
    this.ahead = undefined;
    this.position.textContent = '';
    this.error.textContent = '';
    this.view.replaceChildren();
  }

  update(): void {
    for (const p of this.pagers) p.disabled = !this.deps.state.currentReq;
  }

  /** Said once, next to the window, not again in the status line. */
  showError(message: string): void {
    this.error.textContent = message;
  }

  clearError(): void {
    this.error.textContent = '';
  }

  /** A later fetch wins over an earlier one still in flight. */
  async fetch(req: WindowRequestDto, opts: FetchOptions = {}): Promise<void> {
    const { snap = true, mark, fromMatch = false, given } = opts;
    const s = this.deps.state;
    const handle = s.part?.handle;
    if (!handle) return;
    if (req.kind === 'pattern') {
      await this.deps.find(req.pattern, req.index);
      return;
    }
    const seq = ++s.seq;
    const t0 = performance.now();
    this.error.textContent = '';
    this.view.setAttribute('aria-busy', 'true');
    try {
      const key = this.requestKey(handle, req, snap);
      const ahead = !given && this.ahead?.key === key ? this.ahead.reply : undefined;
      if (!given) this.ahead = undefined;
      const ask = (): Promise<Reply> => this.deps.request(this.requestBody(handle, req, snap));
      const reply: Reply = given ? { type: 'window', id: 0, window: given } : await (ahead ? ahead.catch(ask) : ask());
      if (seq !== s.seq || reply.type !== 'window') return;
      // The round trip alone, apart from rendering (printed by the e2e suite).
      document.body.dataset.lastReplyMs = (performance.now() - t0).toFixed(1);
      s.current = reply.window;
      if (!s.pattern || !fromMatch) s.currentReq = req;
      const r0 = performance.now();
      const m = mark?.(reply.window);
      s.currentMarkRow = m ? Math.max(0, m.from) : undefined;
      this.render(reply.window, m);
      // A link's window is scrolled to: the person came for it (docs/contracts.md §3.4, "Links").
      if (m?.visible)
        this.view.querySelector<HTMLElement>('.wline.hit')?.scrollIntoView({ block: 'center', inline: 'nearest' });
      document.body.dataset.lastRenderMs = (performance.now() - r0).toFixed(1);
      this.deps.shown(reply.window);
      this.deps.changed(true);
      // Timed to the frame after the text is in the DOM: the round trip a person waits for.
      requestAnimationFrame(() => {
        document.body.dataset.lastFetchMs = (performance.now() - t0).toFixed(1);
        document.body.dataset.lastFetchReadAhead = String(ahead !== undefined);
        document.body.dataset.fetchSeq = String(seq);
      });
      this.readAhead(handle);
    } catch (e) {
      if (seq !== s.seq) return;
      s.current = undefined;
      this.view.replaceChildren();
      this.position.textContent =
        req.kind === 'bytes'
          ? `bytes [${req.start}, ${req.end}): not shown`
          : `lines from ${req.offset + 1}: not shown`;
      this.showError((e as Error).message);
    } finally {
      if (seq === s.seq) this.view.removeAttribute('aria-busy');
      this.deps.settled();
    }
  }

  private render(w: WindowDto, mark?: WindowMark): void {
    const parts = [`bytes [${w.start}, ${w.end})`, exactBytes(w.end - w.start)];
    if (w.firstLine !== undefined && w.encoding === 'text' && w.end > w.start) {
      const lines = w.text.split('\n').length - (w.text.endsWith('\n') ? 1 : 0);
      const first = count(w.firstLine + 1);
      parts.push(lines <= 1 ? `line ${first}` : `lines ${first}–${count(w.firstLine + lines)}`);
    }
    parts.push(`of ${exactBytes(w.totalBytes)}, ${count(w.totalLines)} ${w.totalLines === 1 ? 'line' : 'lines'}`);
    if (w.encoding === 'hex') parts.push('hex dump');
    this.position.textContent =
      parts.join(' · ') +
      (w.note ? ` — ${w.note}` : '') +
      (w.truncated ? ' (cut)' : '') +
      (mark?.visible ? ` — ${mark.label}` : '');
    this.view.classList.toggle('hex', w.encoding === 'hex');
    renderText(this.view, w.text, w.encoding === 'text' ? w.firstLine : undefined, mark);
    this.view.dataset.start = String(w.start);
    this.view.dataset.end = String(w.end);
  }

  /** Undefined at an end. */
  private pageRequest(dir: -1 | 1): RangeRequest | undefined {
    const s = this.deps.state;
    const req = s.currentReq;
    const w = s.current;
    if (!req || req.kind === 'pattern') return undefined;
    if (req.kind === 'lines') {
      const offset = Math.max(0, req.offset + dir * req.count);
      return dir < 0 && offset === req.offset ? undefined : { kind: 'lines', offset, count: req.count };
    }
    const size = s.part?.sizeBytes ?? 0;
    const len = Math.max(1, w ? w.end - w.start : req.end - req.start);
    const from = w?.start ?? req.start;
    const to = w?.end ?? req.end;
    const start = dir > 0 ? to : Math.max(0, from - len);
    const end = dir > 0 ? Math.min(size, to + len) : from;
    return start < end ? { kind: 'bytes', start, end } : undefined;
  }

  private page(dir: -1 | 1): void {
    const req = this.deps.state.currentReq;
    if (!req) return;
    if (req.kind === 'pattern') {
      this.deps.step(dir);
      return;
    }
    const next = this.pageRequest(dir);
    if (!next) {
      this.deps.status(dir > 0 ? 'Already at the end.' : 'Already at the start.');
      return;
    }
    if (next.kind === 'lines') this.deps.paged(next.offset);
    void this.fetch(next);
  }

  /** One window is kept; a failed or stale read-ahead is simply asked for again. */
  private readAhead(handle: string): void {
    const next = this.pageRequest(1);
    if (!next) {
      this.ahead = undefined;
      return;
    }
    const key = this.requestKey(handle, next, true);
    if (this.ahead?.key === key) return;
    const reply = this.deps.request(this.requestBody(handle, next, true));
    this.ahead = { key, reply };
    // Tests read on once the next window is here, as a person who reads first would.
    document.body.dataset.readAhead = 'pending';
    reply.then(
      () => {
        if (this.ahead?.reply === reply) document.body.dataset.readAhead = 'ready';
      },
      () => undefined,
    );
  }

  private requestKey(handle: string, req: RangeRequest, snap: boolean): string {
    const maxLines = this.deps.state.limits.maxLines;
    return JSON.stringify([
      handle,
      req.kind === 'bytes' ? [req.start, req.end, snap] : [req.offset, Math.min(req.count, maxLines)],
    ]);
  }

  private requestBody(handle: string, req: RangeRequest, snap: boolean): RequestBody {
    const maxLines = this.deps.state.limits.maxLines;
    return req.kind === 'bytes'
      ? { type: 'fetchBytes', handle, start: req.start, end: req.end, snap }
      : { type: 'fetchLines', handle, offset: req.offset, count: Math.min(req.count, maxLines) };
  }
}
