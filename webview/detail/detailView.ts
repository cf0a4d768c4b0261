/**
 * Detail of one call part, composed of widgets that share `DetailState` and reach each other only through the
 * callbacks wired here. Output is put on the page as text segments, never markup.
 */
import type {
  CallDto,
  ExcerptRangeDto,
  InspectorLimitsDto,
  InspectorViewState,
  PartDto,
  PartRef,
  PreviewDto,
  WindowRequestDto,
} from '../../src/shared/protocol.js';
import type { LiveOf } from '../callsModel.js';
import { h } from '../dom.js';
import { count, exactBytes } from '../format.js';
import type { RequestBody, Reply } from '../rpc.js';
import { ActionBar } from './actionBar.js';
import { reveal } from './controls.js';
import { defaultLines, FetchForm } from './fetchForm.js';
import { Identity } from './identity.js';
import { LivePane } from './livePane.js';
import { MatchList } from './matchList.js';
import { PreviewPane } from './previewPane.js';
import { initialDetailState, type DetailState } from './state.js';
import { WindowPane } from './windowPane.js';

const defaultBytes = 4096;
const eagerLinesBytes = 64 * 1024 * 1024;
const linkContext = 3;

const emptyText = 'Select a call or an output to see what the model saw and to read exact ranges.';

export interface DetailDeps {
  request(body: RequestBody): Promise<Reply>;
  /** Polite live region. */
  status(message: string, kind?: 'info' | 'error'): void;
  /** `now` for a window put on screen: saved at once, as a panel hidden right after would lose it. */
  changed(now?: boolean): void;
  /** Not a window loaded by itself. */
  read(): void;
}

export class DetailView {
  readonly element: HTMLElement;
  private readonly shared: DetailState = initialDetailState();
  private readonly status: DetailDeps['status'];
  private readonly empty: HTMLElement;
  private readonly body: HTMLElement;
  private readonly fetchBox: HTMLElement;
  private readonly fetchNote: HTMLElement;
  private readonly identity = new Identity();
  private readonly live = new LivePane();
  private readonly preview: PreviewPane;
  private readonly form: FetchForm;
  private readonly matches: MatchList;
  private readonly pane: WindowPane;
  private readonly actions: ActionBar;

  constructor(deps: DetailDeps, form?: InspectorViewState['form']) {
    const state = this.shared;
    const { request, status, changed } = deps;
    this.status = status;
    this.pane = new WindowPane({
      state,
      request,
      status,
      changed,
      shown: (w) => this.form.showWindow(w),
      paged: (offset) => this.form.setLines(offset),
      find: (pattern, index) => this.matches.find(pattern, index),
      step: (dir) => this.matches.step(dir),
      settled: () => this.updateEnabled(),
    });
    this.matches = new MatchList({
      state,
      request,
      status,
      changed,
      typed: () => this.form.pattern,
      setTyped: (pattern) => (this.form.pattern = pattern),
      showError: (message) => this.pane.showError(message),
      clearError: () => this.pane.clearError(),
      fetch: (req, opts) => this.pane.fetch(req, opts),
    });
    this.form = new FetchForm(
      {
        fetch: (req, snap) => {
          deps.read();
          void this.pane.fetch(req, { snap });
        },
        find: () => {
          deps.read();
          void this.matches.find();
        },
        step: (dir) => this.matches.step(dir),
        changed,
        error: (message) => this.pane.showError(message),
      },
      this.matches,
      form,
    );
    this.preview = new PreviewPane((start, tailStart) => {
      const end = Math.min(tailStart, start + state.limits.maxWindowBytes);
      deps.read();
      this.form.select('bytes');
      void this.pane.fetch({ kind: 'bytes', start, end }).then(() => reveal(this.pane.view));
    });
    this.actions = new ActionBar(state, request);

    this.empty = h('p', { class: 'muted detail-empty' }, emptyText);
    this.fetchNote = h('p', { class: 'muted', id: 'fetch-note' });
    this.fetchBox = h(
      'section',
      { class: 'fetch', 'aria-labelledby': 'fetch-heading' },
      h('h3', { id: 'fetch-heading' }, 'Read exact bytes'),
      this.fetchNote,
      this.form.element,
      ...this.pane.elements,
      this.actions.toolbar,
      this.actions.results,
    );
    this.body = h(
      'div',
      { class: 'detail-body', hidden: true },
      this.identity.title,
      this.identity.list,
      this.live.element,
      this.preview.element,
      this.fetchBox,
    );
    this.element = h('section', { class: 'detail', 'aria-label': 'Detail' }, this.empty, this.body);
    this.updateEnabled();
  }

  setLive(ref: PartRef, live: LiveOf | undefined): void {
    const shown = this.shared.ref;
    if (!shown || shown.runId !== ref.runId || shown.callId !== ref.callId || !live) {
      if (!live && shown?.callId === ref.callId) this.live.hide();
      return;
    }
    this.live.show(live);
    this.identity.soFar((live.stdout?.bytes ?? 0) + (live.stderr?.bytes ?? 0));
  }

  setLimits(limits: InspectorLimitsDto): void {
    this.shared.limits = limits;
  }

  get shown(): PartRef | undefined {
    return this.shared.ref;
  }

  state(): Pick<InspectorViewState, 'form' | 'window'> {
    const req = this.shared.currentReq;
    return { form: this.form.state(), ...(req ? { window: req } : {}) };
  }

  clear(message?: string): void {
    this.shared.ref = undefined;
    this.shared.part = undefined;
    this.resetWindow();
    this.body.hidden = true;
    this.empty.hidden = false;
    this.empty.textContent = message ?? emptyText;
  }

  show(
    ref: PartRef,
    call: CallDto,
    part: PartDto,
    preview: PreviewDto,
    window?: WindowRequestDto,
    link?: ExcerptRangeDto,
  ): void {
    const was = this.shared.ref;
    const samePart = was && was.runId === ref.runId && was.callId === ref.callId && was.part === ref.part;
    this.shared.ref = ref;
    this.shared.part = part;
    if (!samePart) this.resetWindow();
    if (call.status !== 'running') this.live.hide();
    this.empty.hidden = true;
    this.body.hidden = false;
    this.identity.show(call, part);
    this.preview.show(part, preview, call.status === 'running');
    const readable = part.handle !== undefined && part.readable;
    this.fetchBox.hidden = part.handle === undefined;
    const limits = this.shared.limits;
    this.fetchNote.textContent =
      part.handle === undefined
        ? ''
        : !part.readable
          ? 'These bytes were not kept (preview only): nothing can be read back.'
          : part.binary
            ? 'Binary content: byte windows show as a hex dump with offsets.'
            : `Windows are read through verified ranges, at most ${exactBytes(limits.maxWindowBytes)} at a time.`;
    this.updateEnabled();
    // The same part again keeps its window, unless a window was asked for (a search hit, a link).
    if (!readable || (samePart && !window && !link)) return;
    if (link) {
      this.showLink(link);
      return;
    }
    void this.pane.fetch(window ?? defaultWindow(part));
  }

  /** Or the pattern field when there is none yet. */
  findNext(dir: -1 | 1): void {
    if (!this.shared.part?.handle) return;
    if (this.shared.pattern && this.shared.pattern.total > 0) {
      this.matches.step(dir);
      return;
    }
    this.form.focusPattern();
    this.status('Type a pattern and press Enter; F3 and Shift+F3 then step through the matches.');
  }

  /** docs/contracts.md §3.4, "Links": marked, announced, scrolled to. */
  private showLink(link: ExcerptRangeDto): void {
    if (link.kind === 'bytes') {
      const { start, end } = link;
      this.form.select('bytes');
      void this.pane.fetch(
        { kind: 'bytes', start, end },
        {
          mark: (w) => ({
            from: 0,
            to: Number.MAX_SAFE_INTEGER,
            label: `Linked bytes [${w.start}, ${w.end})`,
            visible: true,
          }),
        },
      );
      return;
    }
    const first = link.offset;
    const last = link.offset + link.count - 1;
    const offset = Math.max(0, first - linkContext);
    const n = Math.min(this.shared.limits.maxLines, last - offset + 1 + linkContext);
    const label =
      first === last ? `Linked line ${count(first + 1)}` : `Linked lines ${count(first + 1)}–${count(last + 1)}`;
    this.form.select('lines');
    this.form.setLines(offset, n);
    void this.pane.fetch(
      { kind: 'lines', offset, count: n },
      {
        mark: (w) =>
          w.firstLine === undefined
            ? undefined
            : { from: first - w.firstLine, to: last - w.firstLine, label, visible: true },
      },
    );
  }

  private resetWindow(): void {
    const s = this.shared;
    s.seq++;
    s.current = undefined;
    s.currentReq = undefined;
    s.currentMarkRow = undefined;
    s.pattern = undefined;
    this.pane.reset();
    this.actions.reset();
    this.matches.reset();
    this.updateEnabled();
  }

  private updateEnabled(): void {
    this.actions.update();
    this.pane.update();
  }
}

function defaultWindow(part: PartDto): WindowRequestDto {
  if (part.binary || part.sizeBytes > eagerLinesBytes)
    return { kind: 'bytes', start: 0, end: Math.max(1, Math.min(defaultBytes, part.sizeBytes)) };
  return { kind: 'lines', offset: 0, count: defaultLines };
}
