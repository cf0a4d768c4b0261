/** The fields always say the window on screen, however it came. */
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import type { VscodeTabs } from '@vscode-elements/elements/dist/vscode-tabs/vscode-tabs.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type { InspectorViewState, WindowDto, WindowRequestDto } from '../../src/shared/protocol.js';
import { h } from '../dom.js';
import { button, field, reveal } from './controls.js';
import { tabs, type Tab } from './state.js';

export const defaultLines = 200;

interface FetchFormEvents {
  /** `snap`: widen a byte range to whole characters. */
  fetch(req: Exclude<WindowRequestDto, { kind: 'pattern' }>, snap: boolean): void;
  find(): void;
  step(dir: -1 | 1): void;
  changed(): void;
  error(message: string): void;
}

export class FetchForm {
  readonly element: VscodeTabs;
  private readonly fStart: VscodeTextfield;
  private readonly fEnd: VscodeTextfield;
  private readonly fLine: VscodeTextfield;
  private readonly fCount: VscodeTextfield;
  private readonly fPattern: VscodeTextfield;

  constructor(
    private readonly events: FetchFormEvents,
    matches: { readonly info: HTMLElement; readonly list: HTMLElement },
    form?: InspectorViewState['form'],
  ) {
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
    const labelled = (text: string, el: HTMLElement): HTMLElement =>
      h('label', { class: 'labelled' }, h('span', { class: 'label-text' }, text), el);
    const formBytes = h(
      'form',
      { class: 'fetch-form', id: 'form-bytes' },
      labelled('Start', this.fStart),
      labelled('End', this.fEnd),
      fetchBytes,
      h('span', { class: 'muted hint' }, 'half-open [start, end)'),
    );
    const formLines = h(
      'form',
      { class: 'fetch-form', id: 'form-lines' },
      labelled('From line', this.fLine),
      labelled('Count', this.fCount),
      fetchLines,
    );
    const formPattern = h(
      'form',
      { class: 'fetch-form', id: 'form-pattern' },
      labelled('Pattern', this.fPattern),
      find,
      prevMatch,
      nextMatch,
      matches.info,
    );
    this.element = h(
      'vscode-tabs',
      { id: 'fetch-tabs', 'selected-index': String(Math.max(0, tabs.indexOf(form?.tab ?? 'bytes'))) },
      h('vscode-tab-header', { slot: 'header' }, 'Byte range'),
      h('vscode-tab-panel', {}, formBytes),
      h('vscode-tab-header', { slot: 'header' }, 'Lines'),
      h('vscode-tab-panel', {}, formLines),
      h('vscode-tab-header', { slot: 'header' }, 'Pattern'),
      h('vscode-tab-panel', {}, formPattern, matches.list),
    );

    // Enter in a field submits; submit never navigates.
    const onSubmit = (form: HTMLFormElement, fn: () => void): void => {
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        fn();
      });
    };
    onSubmit(formBytes, () => this.fetchBytes());
    onSubmit(formLines, () => this.fetchLines());
    onSubmit(formPattern, () => events.find());
    for (const f of [this.fStart, this.fEnd])
      f.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.fetchBytes();
      });
    for (const f of [this.fLine, this.fCount])
      f.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.fetchLines();
      });
    this.fPattern.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') events.find();
    });
    for (const f of [this.fStart, this.fEnd, this.fLine, this.fCount, this.fPattern])
      f.addEventListener('input', () => events.changed());
    this.element.addEventListener('vsc-tabs-select', () => events.changed());
    fetchBytes.addEventListener('click', () => this.fetchBytes());
    fetchLines.addEventListener('click', () => this.fetchLines());
    find.addEventListener('click', () => events.find());
    prevMatch.addEventListener('click', () => events.step(-1));
    nextMatch.addEventListener('click', () => events.step(1));
  }

  state(): NonNullable<InspectorViewState['form']> {
    return {
      tab: tabs[this.element.selectedIndex] ?? 'bytes',
      start: this.fStart.value,
      end: this.fEnd.value,
      line: this.fLine.value,
      count: this.fCount.value,
      pattern: this.fPattern.value,
    };
  }

  select(tab: Tab): void {
    this.element.selectedIndex = tabs.indexOf(tab);
  }

  get pattern(): string {
    return this.fPattern.value;
  }

  set pattern(value: string) {
    this.fPattern.value = value;
  }

  focusPattern(): void {
    this.select('pattern');
    reveal(this.element);
    this.fPattern.focus();
  }

  setLines(offset: number, count?: number): void {
    this.fLine.value = String(offset + 1);
    if (count !== undefined) this.fCount.value = String(count);
  }

  /** No stale values after a link. */
  showWindow(w: WindowDto): void {
    this.fStart.value = String(w.start);
    this.fEnd.value = String(w.end);
    if (w.encoding === 'text' && w.firstLine !== undefined && w.end > w.start) {
      this.fLine.value = String(w.firstLine + 1);
      this.fCount.value = String(Math.max(1, w.text.split('\n').length - (w.text.endsWith('\n') ? 1 : 0)));
    }
  }

  private parseInt(f: VscodeTextfield, name: string, min: number): number | undefined {
    const v = f.value.trim().replace(/[,_\s]/g, '');
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min) {
      this.events.error(`${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}`);
      return undefined;
    }
    return n;
  }

  private fetchBytes(): void {
    const start = this.parseInt(this.fStart, 'Start', 0);
    const end = start === undefined ? undefined : this.parseInt(this.fEnd, 'End', 0);
    if (start === undefined || end === undefined) return;
    this.events.fetch({ kind: 'bytes', start, end }, false);
  }

  private fetchLines(): void {
    const line = this.parseInt(this.fLine, 'First line', 1);
    const n = line === undefined ? undefined : this.parseInt(this.fCount, 'Count', 1);
    if (line === undefined || n === undefined) return;
    this.events.fetch({ kind: 'lines', offset: line - 1, count: n }, true);
  }
}
