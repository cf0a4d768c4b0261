/**
 * A page of matches at a time, as a list box; binary content is searched as bytes (docs/contracts.md §2.10) and the
 * next page is read ahead.
 */
import type { WindowDto } from '../../src/shared/protocol.js';
import { binaryMatchWindow, lineMatchWindow } from '../../src/shared/matchWindow.js';
import { h } from '../dom.js';
import { count } from '../format.js';
import type { RequestBody, Reply } from '../rpc.js';
import { TextSegmenter } from '../text.js';
import type { DetailState, ReadAhead } from './state.js';
import type { FetchOptions, RangeRequest } from './windowPane.js';

const matchPage = 50;
const matchContext = 3;

interface MatchListDeps {
  readonly state: DetailState;
  request(body: RequestBody): Promise<Reply>;
  status(message: string): void;
  /** `now` for a window put on screen: saved at once, as a panel hidden right after would lose it. */
  changed(now?: boolean): void;
  typed(): string;
  setTyped(pattern: string): void;
  showError(message: string): void;
  clearError(): void;
  fetch(req: RangeRequest, opts: FetchOptions): Promise<void>;
}

export class MatchList {
  readonly info: HTMLElement;
  readonly list: HTMLElement;
  private ahead: ReadAhead | undefined;

  constructor(private readonly deps: MatchListDeps) {
    this.info = h('span', { id: 'match-info', class: 'muted', 'aria-live': 'polite' });
    // Not id="matches": an element id becomes a property of `window`, and vscode-single-select calls `.matches` on
    // whatever of its event path has one.
    this.list = h('div', {
      id: 'pattern-matches',
      class: 'matches',
      role: 'listbox',
      tabindex: '0',
      'aria-label': 'Matching lines',
    });
    this.list.addEventListener('click', (e) => {
      const el = (e.target as HTMLElement).closest<HTMLElement>('[data-match]');
      if (el) void this.show(Number(el.dataset.match));
    });
    this.list.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.step(e.key === 'ArrowDown' ? 1 : -1);
      }
    });
  }

  reset(): void {
    this.ahead = undefined;
    this.info.textContent = '';
    this.list.replaceChildren();
  }

  async find(patternArg?: string, index = 0): Promise<void> {
    const s = this.deps.state;
    const handle = s.part?.handle;
    const pattern = patternArg ?? this.deps.typed();
    if (!handle) return;
    if (!pattern) {
      this.deps.showError('Type a regular expression first.');
      return;
    }
    this.deps.setTyped(pattern);
    const t0 = performance.now();
    this.info.textContent = 'Searching…';
    this.deps.clearError();
    const offset = Math.floor(index / matchPage) * matchPage;
    try {
      // The page read ahead when it is the one asked for, else a request.
      const key = JSON.stringify([handle, pattern, offset]);
      const ahead = this.ahead?.key === key ? this.ahead.reply : undefined;
      this.ahead = undefined;
      // Each page comes with the lines window of the match it will show (one round trip).
      const ask = (): Promise<Reply> =>
        this.deps.request({
          type: 'findPattern',
          handle,
          pattern,
          offset,
          limit: matchPage,
          window: { index, context: matchContext },
        });
      const r = await (ahead ? ahead.catch(ask) : ask());
      if (r.type !== 'matches' || s.part?.handle !== handle) return;
      // The round trip alone, apart from rendering (bench/inspectorClick.bench.ts).
      document.body.dataset.lastFindReplyMs = (performance.now() - t0).toFixed(1);
      const p = (s.pattern = {
        pattern,
        total: r.totalMatches,
        offset,
        matches: r.matches,
        index: Math.min(index, Math.max(0, r.totalMatches - 1)),
        binary: r.binary,
      });
      this.render();
      if (r.totalMatches > 0) await this.show(p.index, r.windowIndex === p.index ? r.window : undefined);
      else {
        s.currentReq = { kind: 'pattern', pattern, index: 0 };
        this.deps.changed();
      }
      // After this page is drawn, so it never delays it: Next at this page's end then waits for no round trip.
      if (offset + matchPage < r.totalMatches && s.part?.handle === handle) {
        const next = offset + matchPage;
        const reply = this.deps.request({
          type: 'findPattern',
          handle,
          pattern,
          offset: next,
          limit: matchPage,
          window: { index: next, context: matchContext },
        });
        reply.catch(() => undefined);
        this.ahead = { key: JSON.stringify([handle, pattern, next]), reply };
      }
      // Click to the matched line's text on screen (bench/inspectorClick.bench.ts).
      requestAnimationFrame(() => {
        document.body.dataset.lastFindMs = (performance.now() - t0).toFixed(1);
        document.body.dataset.findSeq = String(Number(document.body.dataset.findSeq ?? '0') + 1);
      });
    } catch (e) {
      this.info.textContent = '';
      this.list.replaceChildren();
      this.deps.showError((e as Error).message);
    }
  }

  step(dir: -1 | 1): void {
    const p = this.deps.state.pattern;
    if (!p || p.total === 0) return;
    const next = p.index + dir;
    if (next < 0 || next >= p.total) {
      this.deps.status(dir > 0 ? 'That was the last match.' : 'That was the first match.');
      return;
    }
    void this.show(next);
  }

  private render(): void {
    const p = this.deps.state.pattern;
    if (!p) return;
    this.info.textContent = p.total === 0 ? 'No matches.' : `Match ${count(p.index + 1)} of ${count(p.total)}`;
    const frag = document.createDocumentFragment();
    const seg = new TextSegmenter();
    p.matches.forEach((m, i) => {
      const global = p.offset + i;
      const el = h(
        'div',
        {
          class: 'match',
          role: 'option',
          id: `match-${global}`,
          'data-match': String(global),
          'aria-selected': String(global === p.index),
        },
        h('span', { class: 'ln' }, p.binary ? `byte ${count(m.byteOffset)}` : `line ${count(m.lineNumber)}`),
      );
      const tx = h('span', { class: 'tx' });
      for (const s of seg.segments(m.text))
        tx.append(s.cls ? h('span', { class: s.cls }, s.text) : document.createTextNode(s.text));
      el.append(tx);
      frag.append(el);
    });
    this.list.replaceChildren(frag);
    this.list.setAttribute('aria-activedescendant', `match-${p.index}`);
  }

  private async show(index: number, given?: WindowDto): Promise<void> {
    const s = this.deps.state;
    let p = s.pattern;
    if (!p) return;
    if (index < p.offset || index >= p.offset + p.matches.length) {
      await this.find(p.pattern, index);
      return;
    }
    p = s.pattern = { ...p, index };
    this.render();
    document.getElementById(`match-${index}`)?.scrollIntoView({ block: 'nearest' });
    const m = p.matches[index - p.offset]!;
    const req = { kind: 'pattern', pattern: p.pattern, index } as const;
    s.currentReq = req;
    if (p.binary) {
      const { start, end } = binaryMatchWindow(m.byteOffset, s.part?.sizeBytes ?? m.byteOffset + 1);
      const row = Math.floor((m.byteOffset - start) / 16);
      await this.deps.fetch(
        { kind: 'bytes', start, end },
        {
          snap: false,
          mark: () => ({ from: row, to: row, label: `Matched byte ${count(m.byteOffset)}` }),
          fromMatch: true,
          given,
        },
      );
    } else {
      const line = m.lineNumber - 1;
      await this.deps.fetch(
        { kind: 'lines', ...lineMatchWindow(m.lineNumber, matchContext) },
        {
          snap: true,
          mark: (w) =>
            w.firstLine === undefined
              ? undefined
              : { from: line - w.firstLine, to: line - w.firstLine, label: `Matched line ${line + 1}` },
          fromMatch: true,
          given,
        },
      );
    }
    s.currentReq = req;
    this.deps.changed(true);
  }
}
