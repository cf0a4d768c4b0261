/** "Search all outputs" (docs/contracts.md §3.4): text only, never markup. */
import type { VscodeButton } from '@vscode-elements/elements/dist/vscode-button/vscode-button.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type { SearchMatchDto, SearchProgressMessage } from '../src/shared/protocol.js';
import { h, icon, replaceChildren } from './dom.js';
import { count, exactBytes } from './format.js';
import type { RequestBody, Reply } from './rpc.js';

export interface SearchDeps {
  request(body: RequestBody): Promise<Reply>;
  /** So Cancel and progress can name it. */
  nextRequestId(): number;
  post(message: { type: 'cancelSearch'; searchId: number }): void;
  scope(): { tool: string; run: string };
  open(handle: string, pattern: string, index: number): void;
}

/** The host caps at 100 (docs/contracts.md §2.11). */
const searchLimit = 100;

export class SearchView {
  readonly element: HTMLElement;
  private readonly field: VscodeTextfield;
  private readonly run: VscodeButton;
  private readonly cancel: VscodeButton;
  private readonly clearButton: VscodeButton;
  private readonly progress: HTMLElement;
  private readonly results: HTMLElement;
  private running: number | undefined;

  constructor(private readonly deps: SearchDeps) {
    this.field = h('vscode-textfield', {
      id: 'search-pattern',
      label: 'Search all outputs (regular expression)',
      placeholder: 'Search all outputs: regular expression',
    });
    this.run = h('vscode-button', { id: 'search-run', icon: 'search', secondary: true }, 'Search');
    this.cancel = h('vscode-button', { id: 'search-cancel', icon: 'close', secondary: true, hidden: true }, 'Cancel');
    // As VS Code's Search view: also Escape in the field and an emptied field.
    this.clearButton = h(
      'vscode-button',
      {
        id: 'search-clear',
        icon: 'clear-all',
        secondary: true,
        hidden: true,
        title: 'Clear Search Results (Escape in the search field)',
      },
      'Clear',
    );
    this.progress = h('span', { id: 'search-progress', class: 'muted', role: 'status', 'aria-live': 'polite' });
    this.results = h('ol', {
      id: 'search-results',
      class: 'search-results',
      'aria-label': 'Matches across all outputs',
    });
    this.element = h(
      'section',
      { class: 'search-all', 'aria-label': 'Search all outputs' },
      h(
        'div',
        { class: 'search-bar' },
        h('span', { class: 'filter-icon' }, icon('search')),
        this.field,
        this.run,
        this.cancel,
        this.clearButton,
        this.progress,
      ),
      this.results,
    );
    this.run.addEventListener('click', () => {
      void this.search();
    });
    this.cancel.addEventListener('click', () => this.stop());
    this.clearButton.addEventListener('click', () => {
      this.clear();
      this.field.focus();
    });
    this.field.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        void this.search();
      }
      // A second Escape goes on to the workbench.
      if (e.key === 'Escape' && this.running !== undefined) {
        e.preventDefault();
        e.stopPropagation();
        this.stop();
      } else if (e.key === 'Escape' && this.shown) {
        e.preventDefault();
        e.stopPropagation();
        this.clear();
      }
    });
    this.field.addEventListener('input', () => {
      if (!this.field.value && this.running === undefined) this.clear();
    });
  }

  onProgress(msg: SearchProgressMessage): void {
    if (msg.searchId !== this.running) return;
    this.progress.textContent = `Searching… ${count(msg.callsDone)} of ${count(msg.callsTotal)} calls`;
  }

  private get shown(): boolean {
    return this.results.childElementCount > 0 || this.progress.textContent !== '';
  }

  /** The list gets its room back; the pattern stays. */
  clear(): void {
    if (this.running !== undefined) this.stop();
    this.running = undefined;
    this.cancel.hidden = true;
    this.clearButton.hidden = true;
    this.results.replaceChildren();
    this.results.removeAttribute('aria-busy');
    this.progress.textContent = '';
  }

  private stop(): void {
    if (this.running === undefined) return;
    this.deps.post({ type: 'cancelSearch', searchId: this.running });
    this.progress.textContent = 'Cancelling…';
  }

  private async search(): Promise<void> {
    const pattern = this.field.value;
    if (!pattern) {
      this.progress.textContent = 'Type a regular expression first.';
      return;
    }
    if (this.running !== undefined) this.stop();
    const { tool, run } = this.deps.scope();
    const id = this.deps.nextRequestId();
    this.running = id;
    this.cancel.hidden = false;
    this.results.replaceChildren();
    this.results.setAttribute('aria-busy', 'true');
    this.progress.textContent = 'Searching…';
    this.progress.classList.add('muted');
    try {
      const r = await this.deps.request({
        type: 'searchOutputs',
        pattern,
        limit: searchLimit,
        ...(tool ? { tool } : {}),
        ...(run ? { run } : {}),
      });
      if (this.running !== id || r.type !== 'searchResults') return;
      const scope = [tool && `tool ${tool}`, run && `run ${run}`].filter(Boolean).join(', ');
      const found =
        `${count(r.totalMatches)} ${r.totalMatches === 1 ? 'match' : 'matches'} ` +
        `in ${count(r.outputsMatched)} of ${count(r.outputsSearched)} outputs` +
        (scope ? ` (${scope})` : '') +
        (r.truncated ? `; the first ${count(r.matches.length)} shown` : '');
      // A search ended by the time limit must not read as a complete one: that comes first.
      this.progress.textContent = r.stopped
        ? `Stopped at the time limit (${count(r.stopped.timeLimitMs / 1000)} s) after ` +
          `the newest ${count(r.stopped.callsSearched)} ` +
          `of ${count(r.stopped.callsTotal)} calls: ${found}. Narrow by tool or run, ` +
          `or raise boundedEvidence.searchTimeoutMs.`
        : found;
      // Partial answers are said at full strength, not greyed like a routine count.
      this.progress.classList.toggle('muted', !r.stopped);
      this.render(r.pattern, r.matches);
      this.clearButton.hidden = false;
    } catch (e) {
      if (this.running !== id) return;
      this.progress.textContent =
        (e as Error).message === 'pattern search cancelled' ? 'Search cancelled.' : (e as Error).message;
      this.clearButton.hidden = false;
    } finally {
      if (this.running === id) {
        this.running = undefined;
        this.cancel.hidden = true;
        this.results.removeAttribute('aria-busy');
      }
    }
  }

  private render(pattern: string, matches: readonly SearchMatchDto[]): void {
    const seen = new Map<string, number>();
    const items = matches.map((m, i) => {
      // The host returns each output's matches from its first: this one's index in its output.
      const index = seen.get(m.handle) ?? 0;
      seen.set(m.handle, index + 1);
      const b = h(
        'button',
        {
          class: 'search-hit',
          id: `search-hit-${i}`,
          'data-handle': m.handle,
          'data-line': String(m.lineNumber),
          'data-byte': String(m.byteOffset),
        },
        h('span', { class: 'hit-where' }, `${m.handle}:${m.lineNumber}`),
        h(
          'span',
          { class: 'muted hit-meta' },
          ` byte ${count(m.byteOffset)} ` +
            `· ${m.tool}` +
            (m.window
              ? ` · bytes [${m.window.start}, ${m.window.end}) of a long line, ` +
                `${exactBytes(m.window.end - m.window.start)}`
              : ''),
        ),
        h('code', { class: 'hit-text' }, m.text),
      );
      b.title = `Open ${m.handle} at line ${m.lineNumber}`;
      b.addEventListener('click', () => this.deps.open(m.handle, pattern, index));
      return h('li', {}, b);
    });
    replaceChildren(this.results, ...items);
  }
}
