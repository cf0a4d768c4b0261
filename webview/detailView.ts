/**
 * Detail of one call part: identity, the preview the model saw (head, omitted gap,
 * tail, with byte ranges), windows fetched three ways (bytes, lines, pattern) with their
 * exact positions and paging, and the actions (copy excerpt, send to chat, verify, open
 * in editor). Every byte of output is put on the page as text segments (text.ts).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeButton } from '@vscode-elements/elements/dist/vscode-button/vscode-button.js';
import type { VscodeTabs } from '@vscode-elements/elements/dist/vscode-tabs/vscode-tabs.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type {
  CallDto,
  CompareSideDto,
  ExcerptRangeDto,
  InspectorLimitsDto,
  InspectorViewState,
  MatchDto,
  PartDto,
  PartRef,
  PreviewDto,
  WindowDto,
  WindowRequestDto,
} from '../src/shared/protocol.js';
import { binaryMatchWindow, lineMatchWindow } from '../src/shared/matchWindow.js';
import { outcomeOf, type LiveOf } from './callsModel.js';
import { append, h, replaceChildren } from './dom.js';
import { count, exactBytes, humanBytes, localTime } from './format.js';
import type { RequestBody, Reply } from './rpc.js';
import { TextSegmenter } from './text.js';

/** Matches fetched per page of pattern results. */
const matchPage = 50;
/** Lines shown around a match. */
const matchContext = 3;
/** The window fetched when a part is opened: lines for text, a byte window for binary or huge outputs. */
const defaultLines = 200;
const defaultBytes = 4096;
const eagerLinesBytes = 64 * 1024 * 1024;

/** What the detail needs from the page. */
export interface DetailDeps {
  request(body: RequestBody): Promise<Reply>;
  /** One sentence in the status line (polite live region). */
  status(message: string, kind?: 'info' | 'error'): void;
  /**
   * Something the saved state depends on changed; `now` when it is a window put on screen
   * (saved at once: a panel hidden right after would otherwise lose it).
   */
  changed(now?: boolean): void;
}

type Tab = 'bytes' | 'lines' | 'pattern';
const tabs: readonly Tab[] = ['bytes', 'lines', 'pattern'];

function field(id: string, label: string, value: string, extra: Record<string, string> = {}): VscodeTextfield {
  return h('vscode-textfield', { id, label, value, ...extra });
}

function button(id: string, label: string, iconName: string, secondary = true, title?: string): VscodeButton {
  return h('vscode-button', { id, icon: iconName, secondary, ...(title ? { title } : {}) }, label);
}

/**
 * Rows of a window to mark, by 0-based row index within the window: the matched line of
 * a pattern, or the window a link named (docs/contracts.md §3.4). The first marked row is
 * the current one and says so in words.
 */
export interface WindowMark {
  readonly from: number;
  readonly to: number;
  /** Said before the first marked row's text ("Matched line 12", "Linked lines 12–15"). */
  readonly label: string;
  /** Also say it after the window's position (a link: the person did not ask for this window here). */
  readonly visible?: boolean;
}

/** Lines shown before and after the lines a link names. */
const linkContext = 3;

/** Renders text as lines of inert segments, with a 1-based line gutter when the first line is known. */
function renderText(target: HTMLElement, text: string, firstLine: number | undefined, mark?: WindowMark): void {
  const seg = new TextSegmenter();
  const frag = document.createDocumentFragment();
  const lines = text.split('\n');
  // A trailing newline ends the last line rather than starting an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const row = h('div', { class: 'wline' });
    if (firstLine !== undefined)
      row.append(h('span', { class: 'ln', 'aria-hidden': 'true' }, String(firstLine + i + 1)));
    if (mark && i >= mark.from && i <= mark.to) {
      row.classList.add('hit');
      if (i === mark.from) {
        // Announced, not only coloured: the row is the current one and says so in words.
        row.setAttribute('aria-current', 'true');
        row.append(h('span', { class: 'sr-only' }, `${mark.label}: `));
      }
    }
    const tx = h('span', { class: 'tx' });
    for (const s of seg.segments(lines[i]!)) {
      if (s.cls) {
        const span = h('span', { class: s.cls }, s.text);
        if (s.cls === 'ctl') span.title = 'control character, shown visibly';
        tx.append(span);
      } else {
        tx.append(document.createTextNode(s.text));
      }
    }
    row.append(tx);
    frag.append(row);
  }
  target.replaceChildren(frag);
}

/** The detail pane. */
export class DetailView {
  readonly element: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly body: HTMLElement;
  private readonly title: HTMLElement;
  private readonly identity: HTMLElement;
  private readonly previewBox: HTMLElement;
  private readonly liveBox: HTMLElement;
  private readonly fetchBox: HTMLElement;
  private readonly fetchNote: HTMLElement;
  private readonly tabsEl: VscodeTabs;
  private readonly fStart: VscodeTextfield;
  private readonly fEnd: VscodeTextfield;
  private readonly fLine: VscodeTextfield;
  private readonly fCount: VscodeTextfield;
  private readonly fPattern: VscodeTextfield;
  private readonly matchInfo: HTMLElement;
  private readonly matchList: HTMLElement;
  private readonly position: HTMLElement;
  private readonly windowError: HTMLElement;
  private readonly windowEl: HTMLElement;
  private readonly verdict: HTMLElement;
  private readonly actionResult: HTMLElement;
  private readonly actionButtons: VscodeButton[];
  private readonly compareButton: VscodeButton;
  /** The window marked by the first "Compare with…" (docs/contracts.md §3.4, "Compare"); kept across outputs. */
  private compareLeft: CompareSideDto | undefined;
  private readonly pagers: VscodeButton[];

  private ref: PartRef | undefined;
  private part: PartDto | undefined;
  private current: WindowDto | undefined;
  private currentReq: WindowRequestDto | undefined;
  /** The row marked in the window on screen (a matched or linked line), 0-based within it. */
  private currentMarkRow: number | undefined;
  private seq = 0;
  /** The next page of pattern matches read ahead, by handle, pattern and offset. */
  private matchesAhead: { key: string; reply: Promise<Reply> } | undefined;
  /** The window read ahead (the next page), by request key. */
  private ahead: { key: string; reply: Promise<Reply> } | undefined;
  private pattern:
    | { pattern: string; total: number; offset: number; matches: readonly MatchDto[]; index: number; binary: boolean }
    | undefined;
  private limits: InspectorLimitsDto = {
    maxWindowBytes: 65536,
    maxLines: 1000,
    maxMatches: 1000,
    maxPatternChars: 1024,
    maxHandleChars: 256,
    maxSearchMatches: 100,
  };

  constructor(
    private readonly deps: DetailDeps,
    form?: InspectorViewState['form'],
  ) {
    this.empty = h(
      'p',
      { class: 'muted detail-empty' },
      'Select a call or an output to see what the model saw and to read exact ranges.',
    );
    this.title = h('h2', { id: 'detail-title' });
    this.identity = h('dl', { class: 'identity', 'aria-label': 'Identity' });
    this.previewBox = h('div', { class: 'preview' });
    this.liveBox = h('section', { id: 'live', class: 'live', 'aria-label': 'Output so far', hidden: true });

    this.fStart = field('bytes-start', 'Start byte (inclusive)', form?.start ?? '0', { inputmode: 'numeric' });
    this.fEnd = field('bytes-end', 'End byte (exclusive)', form?.end ?? '4096', { inputmode: 'numeric' });
    this.fLine = field('lines-from', 'First line (1-based)', form?.line ?? '1', { inputmode: 'numeric' });
    this.fCount = field('lines-count', 'Number of lines', form?.count ?? String(defaultLines), {
      inputmode: 'numeric',
    });
    this.fPattern = field('pattern', 'Regular expression', form?.pattern ?? '', { placeholder: 'e.g. ERROR|panic' });
    const fetchBytes = button('fetch-bytes', 'Fetch bytes', 'arrow-down', false);
    const fetchLines = button('fetch-lines', 'Fetch lines', 'arrow-down', false);
    const find = button('find', 'Find', 'search', false);
    const prevMatch = button('prev-match', 'Previous match', 'arrow-up');
    const nextMatch = button('next-match', 'Next match', 'arrow-down');
    this.matchInfo = h('span', { id: 'match-info', class: 'muted', 'aria-live': 'polite' });
    // Not id="matches": an element id becomes a property of `window` (named access), and
    // vscode-single-select calls `.matches` on whatever of its event path has one, window included.
    this.matchList = h('div', {
      id: 'pattern-matches',
      class: 'matches',
      role: 'listbox',
      tabindex: '0',
      'aria-label': 'Matching lines',
    });
    const labelled = (text: string, el: HTMLElement): HTMLElement =>
      h('label', { class: 'labelled' }, h('span', { class: 'label-text' }, text), el);
    this.tabsEl = h(
      'vscode-tabs',
      { id: 'fetch-tabs', 'selected-index': String(Math.max(0, tabs.indexOf(form?.tab ?? 'bytes'))) },
      h('vscode-tab-header', { slot: 'header' }, 'Byte range'),
      h(
        'vscode-tab-panel',
        {},
        h(
          'form',
          { class: 'fetch-form', id: 'form-bytes' },
          labelled('Start', this.fStart),
          labelled('End', this.fEnd),
          fetchBytes,
          h('span', { class: 'muted hint' }, 'half-open [start, end)'),
        ),
      ),
      h('vscode-tab-header', { slot: 'header' }, 'Lines'),
      h(
        'vscode-tab-panel',
        {},
        h(
          'form',
          { class: 'fetch-form', id: 'form-lines' },
          labelled('From line', this.fLine),
          labelled('Count', this.fCount),
          fetchLines,
        ),
      ),
      h('vscode-tab-header', { slot: 'header' }, 'Pattern'),
      h(
        'vscode-tab-panel',
        {},
        h(
          'form',
          { class: 'fetch-form', id: 'form-pattern' },
          labelled('Pattern', this.fPattern),
          find,
          prevMatch,
          nextMatch,
          this.matchInfo,
        ),
        this.matchList,
      ),
    );
    this.fetchNote = h('p', { class: 'muted', id: 'fetch-note' });

    const prevPage = button('page-prev', 'Previous', 'chevron-left', true, 'Previous window of the same size');
    const nextPage = button('page-next', 'Next', 'chevron-right', true, 'Next window of the same size');
    this.pagers = [prevPage, nextPage];
    this.position = h('span', { id: 'window-position', 'aria-live': 'polite' });
    this.windowError = h('div', { id: 'window-error', class: 'error', role: 'alert' });
    this.windowEl = h('div', {
      id: 'window',
      class: 'window',
      tabindex: '0',
      role: 'region',
      'aria-label': 'Window contents (text only)',
    });

    const copyExcerpt = button(
      'copy-excerpt',
      'Copy excerpt',
      'copy',
      false,
      'Copy the window as Markdown with its provenance',
    );
    const sendToChat = button(
      'send-to-chat',
      'Send to chat',
      'comment-discussion',
      true,
      'Put the excerpt into the chat input without sending it',
    );
    const saveExcerpt = button(
      'save-excerpt',
      'Save excerpt…',
      'save-as',
      true,
      'Save the window to a file with its provenance beside it (Save Excerpt As…)',
    );
    const verify = button(
      'verify',
      'Verify',
      'verified',
      true,
      'Re-hash every byte and compare with the recorded sha256',
    );
    const openEditor = button(
      'open-editor',
      'Open in editor',
      'go-to-file',
      true,
      'Open the read-only document at this position',
    );
    const copySha = button('copy-sha', 'Copy sha256', 'clippy');
    const copyHandle = button('copy-handle', 'Copy handle', 'symbol-key');
    this.compareButton = button(
      'compare-with',
      'Compare with…',
      'diff',
      true,
      'Mark this window, then show another (any output) and press again: the diff editor opens on the two',
    );
    this.actionButtons = [
      copyExcerpt,
      sendToChat,
      saveExcerpt,
      verify,
      openEditor,
      copySha,
      copyHandle,
      this.compareButton,
    ];
    // Results appear once, next to the buttons that asked for them (the eye is there), in
    // live regions so screen readers announce them; not in the page's status line too (on a
    // short panel both are on screen: the same sentence twice).
    this.verdict = h('span', { id: 'verdict', role: 'status' });
    this.actionResult = h('span', { id: 'action-result', class: 'muted', role: 'status' });

    this.fetchBox = h(
      'section',
      { class: 'fetch', 'aria-labelledby': 'fetch-heading' },
      h('h3', { id: 'fetch-heading' }, 'Read exact bytes'),
      this.fetchNote,
      this.tabsEl,
      h('div', { class: 'window-bar' }, prevPage, nextPage, this.position),
      this.windowError,
      this.windowEl,
      h('div', { class: 'actions', role: 'toolbar', 'aria-label': 'Use this window' }, ...this.actionButtons),
      h('div', { class: 'action-results' }, this.verdict, this.actionResult),
    );
    this.body = h(
      'div',
      { class: 'detail-body', hidden: true },
      this.title,
      this.identity,
      this.liveBox,
      h(
        'section',
        { 'aria-labelledby': 'preview-heading' },
        h('h3', { id: 'preview-heading' }, 'What the model saw'),
        this.previewBox,
      ),
      this.fetchBox,
    );
    this.element = h('section', { class: 'detail', 'aria-label': 'Detail' }, this.empty, this.body);

    // Forms make Enter in a field submit; submit never navigates (no action, prevented).
    const onSubmit = (id: string, fn: () => void): void => {
      this.element.querySelector(`#${id}`)?.addEventListener('submit', (e) => {
        e.preventDefault();
        fn();
      });
    };
    onSubmit('form-bytes', () => this.fetchBytesFromForm());
    onSubmit('form-lines', () => this.fetchLinesFromForm());
    onSubmit('form-pattern', () => this.find());
    for (const f of [this.fStart, this.fEnd])
      f.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.fetchBytesFromForm();
      });
    for (const f of [this.fLine, this.fCount])
      f.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.fetchLinesFromForm();
      });
    this.fPattern.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.find();
    });
    for (const f of [this.fStart, this.fEnd, this.fLine, this.fCount, this.fPattern])
      f.addEventListener('input', () => this.deps.changed());
    this.tabsEl.addEventListener('vsc-tabs-select', () => this.deps.changed());
    fetchBytes.addEventListener('click', () => this.fetchBytesFromForm());
    fetchLines.addEventListener('click', () => this.fetchLinesFromForm());
    find.addEventListener('click', () => this.find());
    prevMatch.addEventListener('click', () => this.stepMatch(-1));
    nextMatch.addEventListener('click', () => this.stepMatch(1));
    prevPage.addEventListener('click', () => this.page(-1));
    nextPage.addEventListener('click', () => this.page(1));
    copyExcerpt.addEventListener('click', () => this.excerpt('copyExcerpt'));
    sendToChat.addEventListener('click', () => this.excerpt('sendToChat'));
    saveExcerpt.addEventListener('click', () => this.excerpt('saveExcerpt'));
    verify.addEventListener('click', () => this.verify());
    openEditor.addEventListener('click', () => this.openInEditor());
    copySha.addEventListener('click', () => this.copy(this.part?.sha256, 'sha256'));
    copyHandle.addEventListener('click', () => this.copy(this.part?.handle, 'handle'));
    this.compareButton.addEventListener('click', () => this.compareWith());
    this.matchList.addEventListener('click', (e) => {
      const el = (e.target as HTMLElement).closest<HTMLElement>('[data-match]');
      if (el) void this.showMatch(Number(el.dataset.match));
    });
    this.matchList.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.stepMatch(e.key === 'ArrowDown' ? 1 : -1);
      }
    });
    this.updateEnabled();
  }

  /**
   * A running call's output so far (docs/contracts.md §3.4, "Live"): the size of each
   * stream and the last lines of the one with content, as text. Hidden once it finished.
   */
  setLive(ref: PartRef, live: LiveOf | undefined): void {
    const shown = this.ref;
    if (!shown || shown.runId !== ref.runId || shown.callId !== ref.callId || !live) {
      if (!live && shown?.callId === ref.callId) this.liveBox.hidden = true;
      return;
    }
    const stream = live.stdout && (live.stdout.bytes > 0 || !live.stderr?.bytes) ? 'stdout' : 'stderr';
    const tail = live[stream]?.tail ?? '';
    const sizes = (['stdout', 'stderr'] as const).map((n) => `${n} ${exactBytes(live[n]?.bytes ?? 0)}`).join(' · ');
    replaceChildren(
      this.liveBox,
      h('h3', {}, 'Running: output so far'),
      h('p', { id: 'live-sizes', role: 'status' }, sizes),
      h('div', { class: 'range-label' }, `Last bytes of ${stream}`),
      h(
        'pre',
        { id: 'live-tail', class: 'window live-tail', tabindex: '0', 'aria-label': `Last bytes of ${stream} so far` },
        tail,
      ),
    );
    this.liveBox.hidden = false;
    // The newest lines are the point: keep the end in view.
    const pre = this.liveBox.querySelector('pre');
    if (pre) pre.scrollTop = pre.scrollHeight;
  }

  /** Limits from the host's `init`. */
  setLimits(limits: InspectorLimitsDto): void {
    this.limits = limits;
  }

  /** The part shown, if any. */
  get shown(): PartRef | undefined {
    return this.ref;
  }

  /** The form and window for saved state. */
  state(): Pick<InspectorViewState, 'form' | 'window'> {
    return {
      form: {
        tab: tabs[this.tabsEl.selectedIndex] ?? 'bytes',
        start: this.fStart.value,
        end: this.fEnd.value,
        line: this.fLine.value,
        count: this.fCount.value,
        pattern: this.fPattern.value,
      },
      ...(this.currentReq ? { window: this.currentReq } : {}),
    };
  }

  /** Nothing selected (or the selection vanished). */
  clear(message?: string): void {
    this.ref = undefined;
    this.part = undefined;
    this.resetWindow();
    this.body.hidden = true;
    this.empty.hidden = false;
    this.empty.textContent =
      message ?? 'Select a call or an output to see what the model saw and to read exact ranges.';
  }

  /**
   * Shows a part; fetches `window` (restored state), the window a link named (`link`:
   * scrolled to and marked), or the default first window.
   */
  show(
    ref: PartRef,
    call: CallDto,
    part: PartDto,
    preview: PreviewDto,
    window?: WindowRequestDto,
    link?: ExcerptRangeDto,
  ): void {
    const samePart =
      this.ref && this.ref.runId === ref.runId && this.ref.callId === ref.callId && this.ref.part === ref.part;
    this.ref = ref;
    this.part = part;
    if (!samePart) this.resetWindow();
    if (call.status !== 'running') this.liveBox.hidden = true;
    this.empty.hidden = true;
    this.body.hidden = false;
    this.renderHeader(call, part);
    this.renderPreview(part, preview);
    const readable = part.handle !== undefined && part.readable;
    this.fetchBox.hidden = part.handle === undefined;
    this.fetchNote.textContent =
      part.handle === undefined
        ? ''
        : !part.readable
          ? 'These bytes were not kept (preview only): nothing can be read back.'
          : part.binary
            ? 'Binary content: byte windows show as a hex dump with offsets.'
            : `Windows are read through verified ranges, at most ${exactBytes(this.limits.maxWindowBytes)} at a time.`;
    this.updateEnabled();
    // The same part again keeps its window, unless a window was asked for (a search hit, a link).
    if (!readable || (samePart && !window && !link)) return;
    if (link) {
      this.showLink(link);
      return;
    }
    const req = window ?? this.defaultWindow(part);
    void this.fetch(req);
  }

  /**
   * The window a link named (docs/contracts.md §3.4, "Links"): lines with a few lines
   * around them, or the exact bytes; marked, announced, scrolled to, and said after the
   * window's position.
   */
  private showLink(link: ExcerptRangeDto): void {
    if (link.kind === 'bytes') {
      const { start, end } = link;
      this.tabsEl.selectedIndex = tabs.indexOf('bytes');
      void this.fetch({ kind: 'bytes', start, end }, true, (w) => ({
        from: 0,
        to: Number.MAX_SAFE_INTEGER,
        label: `Linked bytes [${w.start}, ${w.end})`,
        visible: true,
      }));
      return;
    }
    const first = link.offset;
    const last = link.offset + link.count - 1;
    const offset = Math.max(0, first - linkContext);
    const n = Math.min(this.limits.maxLines, last - offset + 1 + linkContext);
    const label =
      first === last ? `Linked line ${count(first + 1)}` : `Linked lines ${count(first + 1)}–${count(last + 1)}`;
    this.tabsEl.selectedIndex = tabs.indexOf('lines');
    this.fLine.value = String(offset + 1);
    this.fCount.value = String(n);
    void this.fetch({ kind: 'lines', offset, count: n }, true, (w) =>
      w.firstLine === undefined
        ? undefined
        : { from: first - w.firstLine, to: last - w.firstLine, label, visible: true },
    );
  }

  private defaultWindow(part: PartDto): WindowRequestDto {
    if (part.binary || part.sizeBytes > eagerLinesBytes)
      return { kind: 'bytes', start: 0, end: Math.max(1, Math.min(defaultBytes, part.sizeBytes)) };
    return { kind: 'lines', offset: 0, count: defaultLines };
  }

  private resetWindow(): void {
    this.seq++;
    this.ahead = undefined;
    this.matchesAhead = undefined;
    this.current = undefined;
    this.currentReq = undefined;
    this.currentMarkRow = undefined;
    this.pattern = undefined;
    this.position.textContent = '';
    this.windowError.textContent = '';
    this.windowEl.replaceChildren();
    this.verdict.textContent = '';
    this.verdict.className = '';
    this.actionResult.textContent = '';
    this.matchInfo.textContent = '';
    this.matchList.replaceChildren();
    this.updateEnabled();
  }

  private renderHeader(call: CallDto, part: PartDto): void {
    const outcome = outcomeOf(call);
    replaceChildren(
      this.title,
      part.name === 'result' ? `${call.tool} result` : `${part.name} of ${call.tool}`,
      h('span', { class: `badge outcome-${outcome.kind}`, id: 'detail-outcome', title: outcome.detail }, outcome.label),
      part.stored ? h('span', { class: 'badge' }, part.stored) : null,
    );
    const rows: [string, string, string?][] = [];
    if (part.handle) rows.push(['Handle', part.handle, 'id-handle']);
    if (part.sha256) {
      rows.push(['Artifact id', `artifact-${part.sha256}`]);
      rows.push(['sha256', part.sha256, 'id-sha']);
    }
    rows.push(['Size', `${exactBytes(part.sizeBytes)} (${humanBytes(part.sizeBytes)})`, 'id-size']);
    if (part.observedBytes !== undefined && part.observedBytes !== part.sizeBytes)
      rows.push([
        'Produced',
        `${exactBytes(part.observedBytes)}${part.truncated ? ' (capture stopped at its cap)' : ''}`,
      ]);
    if (part.lineCount !== undefined) rows.push(['Lines', count(part.lineCount), 'id-lines']);
    if (part.contentType) rows.push(['Content type', `${part.contentType}${part.binary ? ' (binary)' : ''}`]);
    rows.push(['Stored', part.stored ? `${part.stored}${part.readable ? '' : ' (not readable)'}` : '—']);
    rows.push(['Outcome', `${outcome.label}: ${outcome.detail}`, 'id-outcome']);
    rows.push([
      'Call',
      `${call.callId} · ${localTime(call.startedAt)}${call.finishedAt ? ` → ${localTime(call.finishedAt)}` : ''}`,
    ]);
    rows.push(['Run', call.runId]);
    if (call.argsSummary) rows.push(['Arguments', call.argsSummary]);
    if (call.errorMessage) rows.push(['Error', call.errorMessage]);
    this.identity.replaceChildren();
    for (const [k, v, id] of rows) append(this.identity, h('dt', {}, k), h('dd', id ? { id } : {}, v));
  }

  private renderPreview(part: PartDto, p: PreviewDto): void {
    const box = this.previewBox;
    box.replaceChildren();
    if (p.errorLines) append(box, errorLinesBlock(p.errorLines));
    if (p.head !== undefined && p.tail !== undefined && p.headEnd !== undefined && p.tailStart !== undefined) {
      const head = h('div', {
        class: 'window preview-text',
        id: 'preview-head',
        tabindex: '0',
        'aria-label': 'Head of the preview',
      });
      const tail = h('div', {
        class: 'window preview-text',
        id: 'preview-tail',
        tabindex: '0',
        'aria-label': 'Tail of the preview',
      });
      renderText(head, p.head, undefined);
      renderText(tail, p.tail, undefined);
      append(
        box,
        h('div', { class: 'range-label' }, `Head · bytes [0, ${p.headEnd})`),
        head,
        this.gapButton(p.headEnd, p.tailStart),
        h('div', { class: 'range-label' }, `Tail · bytes [${p.tailStart}, ${part.sizeBytes})`),
        tail,
      );
      return;
    }
    if (part.binary) {
      append(box, h('p', { class: 'muted' }, 'Binary content: the model saw its size and handle, no text.'));
      return;
    }
    const whole = h('div', {
      class: 'window preview-text',
      id: 'preview-whole',
      tabindex: '0',
      'aria-label': 'Preview',
    });
    renderText(whole, p.text, undefined);
    append(
      box,
      h(
        'div',
        { class: 'range-label' },
        part.handle
          ? 'Preview as the model saw it'
          : `Whole result, shown to the model as is (${exactBytes(part.sizeBytes)})`,
      ),
      whole,
    );
  }

  /** The omitted middle, as a button that fetches its first window into the reader below. */
  private gapButton(headEnd: number, tailStart: number): HTMLElement {
    const b = h(
      'button',
      { class: 'gap', id: 'preview-gap', type: 'button', title: 'Fetch the omitted bytes into the window below' },
      `… bytes [${headEnd}, ${tailStart}) omitted: ${exactBytes(tailStart - headEnd)} the model did not see — fetch them …`,
    );
    b.addEventListener('click', () => {
      const end = Math.min(tailStart, headEnd + this.limits.maxWindowBytes);
      this.tabsEl.selectedIndex = tabs.indexOf('bytes');
      void this.fetch({ kind: 'bytes', start: headEnd, end }, true).then(() => this.reveal(this.windowEl));
    });
    return b;
  }

  /** F3 / Shift+F3: the next or previous match of the pattern, or the pattern field when there is none yet. */
  findNext(dir: -1 | 1): void {
    if (!this.part?.handle) return;
    if (this.pattern && this.pattern.total > 0) {
      this.stepMatch(dir);
      return;
    }
    this.tabsEl.selectedIndex = tabs.indexOf('pattern');
    this.reveal(this.tabsEl);
    this.fPattern.focus();
    this.deps.status('Type a pattern and press Enter; F3 and Shift+F3 then step through the matches.');
  }

  private updateEnabled(): void {
    const readable = !!this.part?.handle && !!this.part.readable;
    const hasWindow = !!this.current && this.current.end > this.current.start;
    const [copyExcerpt, sendToChat, saveExcerpt, verify, openEditor, copySha, copyHandle, compare] = this.actionButtons;
    compare!.disabled = !hasWindow;
    saveExcerpt!.disabled = !hasWindow;
    copyExcerpt!.disabled = !hasWindow;
    sendToChat!.disabled = !hasWindow;
    verify!.disabled = !readable;
    openEditor!.disabled = !readable;
    copySha!.disabled = !this.part?.sha256;
    copyHandle!.disabled = !this.part?.handle;
    for (const p of this.pagers) p.disabled = !this.currentReq;
  }

  private parseInt(f: VscodeTextfield, name: string, min: number): number | undefined {
    const v = f.value.trim().replace(/[,_\s]/g, '');
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min) {
      this.showError(`${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}`);
      return undefined;
    }
    return n;
  }

  private fetchBytesFromForm(): void {
    const start = this.parseInt(this.fStart, 'Start', 0);
    const end = start === undefined ? undefined : this.parseInt(this.fEnd, 'End', 0);
    if (start === undefined || end === undefined) return;
    void this.fetch({ kind: 'bytes', start, end }, false);
  }

  private fetchLinesFromForm(): void {
    const line = this.parseInt(this.fLine, 'First line', 1);
    const n = line === undefined ? undefined : this.parseInt(this.fCount, 'Count', 1);
    if (line === undefined || n === undefined) return;
    void this.fetch({ kind: 'lines', offset: line - 1, count: n });
  }

  /** Said once, next to the window (an alert region), not again in the status line. */
  private showError(message: string): void {
    this.windowError.textContent = message;
  }

  /** Fetches a window; a later fetch wins over an earlier one still in flight. */
  private async fetch(
    req: WindowRequestDto,
    snap = true,
    mark?: (w: WindowDto) => WindowMark | undefined,
    fromMatch = false,
    given?: WindowDto,
  ): Promise<void> {
    const handle = this.part?.handle;
    if (!handle) return;
    if (req.kind === 'pattern') {
      await this.find(req.pattern, req.index);
      return;
    }
    const seq = ++this.seq;
    const t0 = performance.now();
    this.windowError.textContent = '';
    this.windowEl.setAttribute('aria-busy', 'true');
    try {
      // The window a matches reply carried (`given`: no request), the one read ahead when it
      // is the one asked for (Next, usually), else a request.
      const key = this.requestKey(handle, req, snap);
      const ahead = !given && this.ahead?.key === key ? this.ahead.reply : undefined;
      if (!given) this.ahead = undefined;
      const ask = (): Promise<Reply> => this.deps.request(this.requestBody(handle, req, snap));
      const reply: Reply = given ? { type: 'window', id: 0, window: given } : await (ahead ? ahead.catch(ask) : ask());
      if (seq !== this.seq || reply.type !== 'window') return;
      // The round trip alone (page → host → page), apart from rendering (printed by the e2e suite).
      document.body.dataset.lastReplyMs = (performance.now() - t0).toFixed(1);
      this.current = reply.window;
      if (!this.pattern || !fromMatch) this.currentReq = req;
      const r0 = performance.now();
      const m = mark?.(reply.window);
      this.currentMarkRow = m ? Math.max(0, m.from) : undefined;
      this.renderWindow(reply.window, m);
      // A link's window is scrolled to: the person came for it (docs/contracts.md §3.4, "Links").
      if (m?.visible)
        this.windowEl.querySelector<HTMLElement>('.wline.hit')?.scrollIntoView({ block: 'center', inline: 'nearest' });
      document.body.dataset.lastRenderMs = (performance.now() - r0).toFixed(1);
      // Both forms say the window on screen, however it came (a link, a match, Next): no stale values after a link.
      const w = reply.window;
      this.fStart.value = String(w.start);
      this.fEnd.value = String(w.end);
      if (w.encoding === 'text' && w.firstLine !== undefined && w.end > w.start) {
        this.fLine.value = String(w.firstLine + 1);
        this.fCount.value = String(Math.max(1, w.text.split('\n').length - (w.text.endsWith('\n') ? 1 : 0)));
      }
      this.deps.changed(true);
      // Timed to the frame after the text is in the DOM: the round trip a person waits for.
      requestAnimationFrame(() => {
        document.body.dataset.lastFetchMs = (performance.now() - t0).toFixed(1);
        document.body.dataset.lastFetchReadAhead = String(ahead !== undefined);
        document.body.dataset.fetchSeq = String(seq);
      });
      this.readAhead(handle);
    } catch (e) {
      if (seq !== this.seq) return;
      this.current = undefined;
      this.windowEl.replaceChildren();
      this.position.textContent =
        req.kind === 'bytes'
          ? `bytes [${req.start}, ${req.end}): not shown`
          : `lines from ${req.offset + 1}: not shown`;
      this.showError((e as Error).message);
    } finally {
      if (seq === this.seq) this.windowEl.removeAttribute('aria-busy');
      this.updateEnabled();
    }
  }

  private renderWindow(w: WindowDto, mark?: WindowMark): void {
    const parts = [`bytes [${w.start}, ${w.end})`, exactBytes(w.end - w.start)];
    if (w.firstLine !== undefined && w.encoding === 'text' && w.end > w.start) {
      const lines = w.text.split('\n').length - (w.text.endsWith('\n') ? 1 : 0);
      parts.push(
        lines <= 1 ? `line ${count(w.firstLine + 1)}` : `lines ${count(w.firstLine + 1)}–${count(w.firstLine + lines)}`,
      );
    }
    parts.push(`of ${exactBytes(w.totalBytes)}, ${count(w.totalLines)} ${w.totalLines === 1 ? 'line' : 'lines'}`);
    if (w.encoding === 'hex') parts.push('hex dump');
    this.position.textContent =
      parts.join(' · ') +
      (w.note ? ` — ${w.note}` : '') +
      (w.truncated ? ' (cut)' : '') +
      (mark?.visible ? ` — ${mark.label}` : '');
    this.windowEl.classList.toggle('hex', w.encoding === 'hex');
    renderText(this.windowEl, w.text, w.encoding === 'text' ? w.firstLine : undefined, mark);
    this.windowEl.dataset.start = String(w.start);
    this.windowEl.dataset.end = String(w.end);
  }

  /** The window Previous / Next shows: the same size, before or after the one on screen; undefined at an end. */
  private pageRequest(dir: -1 | 1): Exclude<WindowRequestDto, { kind: 'pattern' }> | undefined {
    const req = this.currentReq;
    const w = this.current;
    if (!req || req.kind === 'pattern') return undefined;
    if (req.kind === 'lines') {
      const offset = Math.max(0, req.offset + dir * req.count);
      return dir < 0 && offset === req.offset ? undefined : { kind: 'lines', offset, count: req.count };
    }
    const size = this.part?.sizeBytes ?? 0;
    const len = Math.max(1, w ? w.end - w.start : req.end - req.start);
    const from = w?.start ?? req.start;
    const to = w?.end ?? req.end;
    const start = dir > 0 ? to : Math.max(0, from - len);
    const end = dir > 0 ? Math.min(size, to + len) : from;
    return start < end ? { kind: 'bytes', start, end } : undefined;
  }

  private page(dir: -1 | 1): void {
    const req = this.currentReq;
    if (!req) return;
    if (req.kind === 'pattern') {
      this.stepMatch(dir);
      return;
    }
    const next = this.pageRequest(dir);
    if (!next) {
      this.deps.status(dir > 0 ? 'Already at the end.' : 'Already at the start.');
      return;
    }
    if (next.kind === 'lines') this.fLine.value = String(next.offset + 1);
    void this.fetch(next, true);
  }

  /**
   * Read-ahead: once a window is on screen, the next one (what Next shows) is asked for
   * in the background, so reading on costs no round trip to the host (the round trip is
   * most of a fetch: docs/contracts.md §3.4, "Speed"). One window is kept; a failed or
   * stale read-ahead is simply asked for again.
   */
  private readAhead(handle: string): void {
    const next = this.pageRequest(1);
    if (!next) {
      this.ahead = undefined;
      return;
    }
    const key = this.requestKey(handle, next, true);
    if (this.ahead?.key === key) return;
    const reply = this.deps.request(this.requestBody(handle, next, true));
    reply.catch(() => undefined);
    this.ahead = { key, reply };
  }

  private requestKey(handle: string, req: Exclude<WindowRequestDto, { kind: 'pattern' }>, snap: boolean): string {
    return JSON.stringify([
      handle,
      req.kind === 'bytes' ? [req.start, req.end, snap] : [req.offset, Math.min(req.count, this.limits.maxLines)],
    ]);
  }

  private requestBody(handle: string, req: Exclude<WindowRequestDto, { kind: 'pattern' }>, snap: boolean): RequestBody {
    return req.kind === 'bytes'
      ? { type: 'fetchBytes', handle, start: req.start, end: req.end, snap }
      : { type: 'fetchLines', handle, offset: req.offset, count: Math.min(req.count, this.limits.maxLines) };
  }

  private async find(patternArg?: string, index = 0): Promise<void> {
    const handle = this.part?.handle;
    const pattern = patternArg ?? this.fPattern.value;
    if (!handle) return;
    if (!pattern) {
      this.showError('Type a regular expression first.');
      return;
    }
    this.fPattern.value = pattern;
    const t0 = performance.now();
    this.matchInfo.textContent = 'Searching…';
    this.windowError.textContent = '';
    const offset = Math.floor(index / matchPage) * matchPage;
    try {
      // The page read ahead when it is the one asked for (Next past the last match held), else a request.
      const key = JSON.stringify([handle, pattern, offset]);
      const ahead = this.matchesAhead?.key === key ? this.matchesAhead.reply : undefined;
      this.matchesAhead = undefined;
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
      if (r.type !== 'matches' || this.part?.handle !== handle) return;
      // The round trip alone (0 when read ahead), apart from rendering (bench/inspectorClick.bench.ts).
      document.body.dataset.lastFindReplyMs = (performance.now() - t0).toFixed(1);
      // Binary content is searched as bytes too (docs/contracts.md §2.10): its matches are shown by byte offset, in a hex dump.
      this.pattern = {
        pattern,
        total: r.totalMatches,
        offset,
        matches: r.matches,
        index: Math.min(index, Math.max(0, r.totalMatches - 1)),
        binary: r.binary,
      };
      this.renderMatches();
      if (r.totalMatches > 0)
        await this.showMatch(this.pattern.index, r.windowIndex === this.pattern.index ? r.window : undefined);
      else {
        this.currentReq = { kind: 'pattern', pattern, index: 0 };
        this.deps.changed();
      }
      // Read ahead the next page of matches with its first match's window (after this page is
      // drawn, so it never delays it): Next at this page's end then waits for no round trip.
      if (offset + matchPage < r.totalMatches && this.part?.handle === handle) {
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
        this.matchesAhead = { key: JSON.stringify([handle, pattern, next]), reply };
      }
      // Click to the matched line's text on screen (bench/inspectorClick.bench.ts).
      requestAnimationFrame(() => {
        document.body.dataset.lastFindMs = (performance.now() - t0).toFixed(1);
        document.body.dataset.findSeq = String(Number(document.body.dataset.findSeq ?? '0') + 1);
      });
    } catch (e) {
      this.matchInfo.textContent = '';
      this.matchList.replaceChildren();
      this.showError((e as Error).message);
    }
  }

  private renderMatches(): void {
    const p = this.pattern;
    if (!p) return;
    this.matchInfo.textContent = p.total === 0 ? 'No matches.' : `Match ${count(p.index + 1)} of ${count(p.total)}`;
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
    this.matchList.replaceChildren(frag);
    this.matchList.setAttribute('aria-activedescendant', `match-${p.index}`);
  }

  private stepMatch(dir: -1 | 1): void {
    const p = this.pattern;
    if (!p || p.total === 0) return;
    const next = p.index + dir;
    if (next < 0 || next >= p.total) {
      this.deps.status(dir > 0 ? 'That was the last match.' : 'That was the first match.');
      return;
    }
    void this.showMatch(next);
  }

  /** Shows match `index` (fetching its page if needed) as a lines window around it. */
  private async showMatch(index: number, given?: WindowDto): Promise<void> {
    let p = this.pattern;
    if (!p) return;
    if (index < p.offset || index >= p.offset + p.matches.length) {
      await this.find(p.pattern, index);
      return;
    }
    p = this.pattern = { ...p, index };
    this.renderMatches();
    document.getElementById(`match-${index}`)?.scrollIntoView({ block: 'nearest' });
    const m = p.matches[index - p.offset]!;
    const req = { kind: 'pattern', pattern: p.pattern, index } as const;
    this.currentReq = req;
    if (p.binary) {
      const { start, end } = binaryMatchWindow(m.byteOffset, this.part?.sizeBytes ?? m.byteOffset + 1);
      const row = Math.floor((m.byteOffset - start) / 16);
      await this.fetch(
        { kind: 'bytes', start, end },
        false,
        () => ({ from: row, to: row, label: `Matched byte ${count(m.byteOffset)}` }),
        true,
        given,
      );
    } else {
      const line = m.lineNumber - 1;
      await this.fetch(
        { kind: 'lines', ...lineMatchWindow(m.lineNumber, matchContext) },
        true,
        (w) =>
          w.firstLine === undefined
            ? undefined
            : { from: line - w.firstLine, to: line - w.firstLine, label: `Matched line ${line + 1}` },
        true,
        given,
      );
    }
    this.currentReq = req;
    this.deps.changed(true);
  }

  /** Scrolls an element of the detail into view if it is not (never the whole page jumps). */
  private reveal(el: HTMLElement): void {
    el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  /** Says what an action did next to its button (a live region: announced once, shown once). */
  private said(message: string, kind: 'info' | 'error' = 'info'): void {
    this.verdict.textContent = '';
    this.verdict.className = '';
    this.actionResult.textContent = message;
    this.actionResult.className = kind === 'error' ? 'error' : 'muted';
    this.reveal(this.actionResult);
  }

  private async excerpt(type: 'copyExcerpt' | 'sendToChat' | 'saveExcerpt'): Promise<void> {
    const handle = this.part?.handle;
    const w = this.current;
    if (!handle || !w || w.end <= w.start) {
      this.said('Fetch a window first: the excerpt is the window on screen.', 'error');
      return;
    }
    try {
      const r = await this.deps.request({ type, handle, range: { kind: 'bytes', start: w.start, end: w.end } });
      if (r.type === 'done') this.said(r.message);
    } catch (e) {
      this.said((e as Error).message, 'error');
    }
  }

  /**
   * "Compare with…": the first press marks the window on screen as the left side; the
   * second, on any window of any output, opens the diff editor on the two (exactly
   * their bytes), and the mark is cleared.
   */
  private async compareWith(): Promise<void> {
    const handle = this.part?.handle;
    const w = this.current;
    if (!handle || !w || w.end <= w.start) {
      this.said('Fetch a window first: a comparison is of the windows on screen.', 'error');
      return;
    }
    const here: CompareSideDto = { handle, start: w.start, end: w.end };
    const left = this.compareLeft;
    if (!left) {
      this.compareLeft = here;
      this.compareButton.textContent = 'Compare with marked';
      this.compareButton.title = `Open the diff editor on bytes [${here.start}, ${here.end}) of ${handle} and the window on screen`;
      this.said(
        `Marked bytes [${here.start}, ${here.end}) of ${handle} for comparison: show another window (of any output) and press "Compare with marked".`,
      );
      return;
    }
    this.compareLeft = undefined;
    this.compareButton.textContent = 'Compare with…';
    this.compareButton.title =
      'Mark this window, then show another (any output) and press again: the diff editor opens on the two';
    try {
      // The diff opens beside the panel only where both keep room (docs/contracts.md §3.4, "Compare").
      const r = await this.deps.request({
        type: 'compareWindows',
        left,
        right: here,
        panelWidth: Math.round(document.documentElement.clientWidth),
      });
      if (r.type === 'done') this.said(r.message);
    } catch (e) {
      this.said((e as Error).message, 'error');
    }
  }

  private async verify(): Promise<void> {
    const handle = this.part?.handle;
    if (!handle) return;
    this.verdict.className = '';
    this.verdict.textContent = 'Verifying every byte…';
    this.actionResult.textContent = '';
    this.reveal(this.verdict);
    try {
      const r = await this.deps.request({ type: 'verify', handle });
      if (r.type !== 'verified' || this.part?.handle !== handle) return;
      this.verdict.className = r.ok ? 'ok' : 'error';
      this.verdict.textContent = r.ok
        ? `Verified: all ${exactBytes(r.byteCount)} match sha256 ${r.sha256} (${r.elapsedMs} ms).`
        : `Verification failed: the stored bytes do not match sha256 ${r.sha256}.`;
    } catch (e) {
      this.verdict.className = 'error';
      this.verdict.textContent = (e as Error).message;
    }
    this.reveal(this.verdict);
  }

  private async openInEditor(): Promise<void> {
    const handle = this.part?.handle;
    if (!handle) return;
    try {
      const r = await this.deps.request({ type: 'openInEditor', handle, byteOffset: this.hitOffset() });
      if (r.type === 'done') this.said(r.message);
    } catch (e) {
      this.said((e as Error).message, 'error');
    }
  }

  /**
   * Where Open in editor puts the cursor: on the matched or linked line when one is marked
   * (its byte offset: the window's start plus the UTF-8 bytes of the lines before it), else
   * at the window's start.
   */
  private hitOffset(): number {
    const w = this.current;
    if (!w) return 0;
    const row = this.currentMarkRow;
    if (row === undefined || row === 0 || w.encoding !== 'text') return w.start;
    let at = 0;
    for (let i = 0; i < row; i++) {
      const nl = w.text.indexOf('\n', at);
      if (nl < 0) return w.start;
      at = nl + 1;
    }
    return Math.min(w.end, w.start + new TextEncoder().encode(w.text.slice(0, at)).length);
  }

  private copy(text: string | undefined, what: string): void {
    if (!text) return;
    this.deps.request({ type: 'copyText', text }).then(
      () => this.said(`Copied the ${what}.`),
      (e: Error) => this.said(e.message, 'error'),
    );
  }
}

/**
 * The error lines the model saw first (docs/contracts.md §2.13), each marked with its line
 * number and byte offset; text only, never markup.
 */
function errorLinesBlock(e: NonNullable<PreviewDto['errorLines']>): HTMLElement {
  const list = h('div', {
    class: 'window preview-text error-lines',
    id: 'preview-errors',
    tabindex: '0',
    'aria-label': 'Error lines the model saw',
  });
  for (const l of e.lines)
    append(
      list,
      h(
        'div',
        { class: 'error-line' },
        h('span', { class: 'error-line-at' }, `line ${l.lineNumber}, byte ${l.byteOffset}: `),
        h('mark', {}, l.text),
      ),
    );
  return h(
    'div',
    {},
    h(
      'div',
      { class: 'range-label', id: 'preview-errors-label' },
      `Error lines the model saw first · ${e.lines.length} of ${e.total}`,
    ),
    list,
  );
}
