/**
 * Each action says what it did next to the buttons, in live regions; not in the status line too, or a short panel
 * would show it twice.
 */
import type { VscodeButton } from '@vscode-elements/elements/dist/vscode-button/vscode-button.js';
import type { CompareSideDto } from '../../src/shared/protocol.js';
import { h } from '../dom.js';
import { exactBytes } from '../format.js';
import type { RequestBody, Reply } from '../rpc.js';
import { button, reveal } from './controls.js';
import type { DetailState } from './state.js';

const compareTitle =
  'Mark this window, then show another (any output) and press again: the diff editor opens on the two';

/**
 * Its label folds away where the detail is narrow (icon and tooltip stay, the label still named for screen readers):
 * eight labelled buttons wrapped onto three rows.
 */
function squeezable(id: string, label: string, iconName: string, title: string, when = 'narrow'): VscodeButton {
  const b = button(id, '', iconName, true, title);
  b.classList.add(when === 'late' ? 'squeeze-late' : 'squeeze');
  b.append(h('span', { class: 'label' }, label));
  return b;
}

function setLabel(b: VscodeButton, label: string): void {
  const span = b.querySelector('.label');
  if (span) span.textContent = label;
}

export class ActionBar {
  readonly toolbar: HTMLElement;
  readonly results: HTMLElement;
  private readonly verdict: HTMLElement;
  private readonly actionResult: HTMLElement;
  private readonly buttons: {
    readonly copyExcerpt: VscodeButton;
    readonly sendToChat: VscodeButton;
    readonly saveExcerpt: VscodeButton;
    readonly verify: VscodeButton;
    readonly openEditor: VscodeButton;
    readonly copySha: VscodeButton;
    readonly copyHandle: VscodeButton;
    readonly compare: VscodeButton;
  };
  /** docs/contracts.md §3.4, "Compare"; kept across outputs. */
  private compareLeft: CompareSideDto | undefined;

  constructor(
    private readonly state: DetailState,
    private readonly request: (body: RequestBody) => Promise<Reply>,
  ) {
    const b = (this.buttons = {
      copyExcerpt: button(
        'copy-excerpt',
        'Copy excerpt',
        'copy',
        false,
        'Copy the window as Markdown with its provenance',
      ),
      sendToChat: squeezable(
        'send-to-chat',
        'Send to chat',
        'comment-discussion',
        'Put the excerpt into the chat input without sending it',
        'late',
      ),
      saveExcerpt: squeezable(
        'save-excerpt',
        'Save excerpt…',
        'save-as',
        'Save the window to a file with its provenance beside it (Save Excerpt As…)',
      ),
      verify: squeezable('verify', 'Verify', 'verified', 'Re-hash every byte and compare with the recorded sha256'),
      openEditor: squeezable(
        'open-editor',
        'Open in editor',
        'go-to-file',
        'Open the read-only document at this position',
      ),
      copySha: squeezable('copy-sha', 'Copy sha256', 'clippy', 'Copy the sha256 of the whole output'),
      copyHandle: squeezable('copy-handle', 'Copy handle', 'symbol-key', 'Copy the handle'),
      compare: squeezable('compare-with', 'Compare with…', 'diff', compareTitle),
    });
    this.verdict = h('span', { id: 'verdict', role: 'status' });
    this.actionResult = h('span', { id: 'action-result', class: 'muted', role: 'status' });
    this.toolbar = h(
      'div',
      { class: 'actions', role: 'toolbar', 'aria-label': 'Use this window' },
      ...Object.values(b),
    );
    this.results = h('div', { class: 'action-results' }, this.verdict, this.actionResult);
    b.copyExcerpt.addEventListener('click', () => this.excerpt('copyExcerpt'));
    b.sendToChat.addEventListener('click', () => this.excerpt('sendToChat'));
    b.saveExcerpt.addEventListener('click', () => this.excerpt('saveExcerpt'));
    b.verify.addEventListener('click', () => this.verify());
    b.openEditor.addEventListener('click', () => this.openInEditor());
    b.copySha.addEventListener('click', () => this.copy(this.state.part?.sha256, 'sha256'));
    b.copyHandle.addEventListener('click', () => this.copy(this.state.part?.handle, 'handle'));
    b.compare.addEventListener('click', () => this.compareWith());
  }

  update(): void {
    const { part, current } = this.state;
    const readable = !!part?.handle && !!part.readable;
    const hasWindow = !!current && current.end > current.start;
    const b = this.buttons;
    b.compare.disabled = !hasWindow;
    b.saveExcerpt.disabled = !hasWindow;
    b.copyExcerpt.disabled = !hasWindow;
    b.sendToChat.disabled = !hasWindow;
    b.verify.disabled = !readable;
    b.openEditor.disabled = !readable;
    b.copySha.disabled = !part?.sha256;
    b.copyHandle.disabled = !part?.handle;
  }

  /** A compare mark stays. */
  reset(): void {
    this.verdict.textContent = '';
    this.verdict.className = '';
    this.actionResult.textContent = '';
  }

  /** A live region: announced once, shown once. */
  private said(message: string, kind: 'info' | 'error' = 'info'): void {
    this.verdict.textContent = '';
    this.verdict.className = '';
    this.actionResult.textContent = message;
    this.actionResult.className = kind === 'error' ? 'error' : 'muted';
    reveal(this.actionResult);
  }

  private async excerpt(type: 'copyExcerpt' | 'sendToChat' | 'saveExcerpt'): Promise<void> {
    const handle = this.state.part?.handle;
    const w = this.state.current;
    if (!handle || !w || w.end <= w.start) {
      this.said('Fetch a window first: the excerpt is the window on screen.', 'error');
      return;
    }
    try {
      const r = await this.request({ type, handle, range: { kind: 'bytes', start: w.start, end: w.end } });
      if (r.type === 'done') this.said(r.message);
    } catch (e) {
      this.said((e as Error).message, 'error');
    }
  }

  /** The first press marks the left side; the second, on any window of any output, opens the diff. */
  private async compareWith(): Promise<void> {
    const handle = this.state.part?.handle;
    const w = this.state.current;
    if (!handle || !w || w.end <= w.start) {
      this.said('Fetch a window first: a comparison is of the windows on screen.', 'error');
      return;
    }
    const here: CompareSideDto = { handle, start: w.start, end: w.end };
    const left = this.compareLeft;
    const compare = this.buttons.compare;
    if (!left) {
      this.compareLeft = here;
      setLabel(compare, 'Compare with marked');
      compare.title =
        `Open the diff editor on bytes [${here.start}, ${here.end}) of ${handle} ` + `and the window on screen`;
      this.said(
        `Marked bytes [${here.start}, ${here.end}) of ${handle} for comparison: ` +
          `show another window (of any output) and press "Compare with marked".`,
      );
      return;
    }
    this.compareLeft = undefined;
    setLabel(compare, 'Compare with…');
    compare.title = compareTitle;
    try {
      // The diff opens beside the panel only where both keep room (docs/contracts.md §3.4, "Compare").
      const r = await this.request({
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
    const handle = this.state.part?.handle;
    if (!handle) return;
    this.verdict.className = '';
    this.verdict.textContent = 'Verifying every byte…';
    this.verdict.title = '';
    this.actionResult.textContent = '';
    reveal(this.verdict);
    try {
      const r = await this.request({ type: 'verify', handle });
      if (r.type !== 'verified' || this.state.part?.handle !== handle) return;
      this.verdict.className = r.ok ? 'ok' : 'error';
      // A short digest reads better; the whole one is the tooltip and the Copy sha256 button's.
      const short = `${r.sha256.slice(0, 12)}…`;
      this.verdict.textContent = r.ok
        ? `Verified: all ${exactBytes(r.byteCount)} match sha256 ${short} (${r.elapsedMs} ms).`
        : `Verification failed: the stored bytes do not match sha256 ${short}.`;
      this.verdict.title = `sha256 ${r.sha256}`;
    } catch (e) {
      this.verdict.className = 'error';
      this.verdict.textContent = (e as Error).message;
    }
    reveal(this.verdict);
  }

  private async openInEditor(): Promise<void> {
    const handle = this.state.part?.handle;
    if (!handle) return;
    try {
      const r = await this.request({ type: 'openInEditor', handle, byteOffset: this.hitOffset() });
      if (r.type === 'done') this.said(r.message);
    } catch (e) {
      this.said((e as Error).message, 'error');
    }
  }

  /** On the marked line when one is, else at the window's start. */
  private hitOffset(): number {
    const w = this.state.current;
    if (!w) return 0;
    const row = this.state.currentMarkRow;
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
    this.request({ type: 'copyText', text }).then(
      () => this.said(`Copied the ${what}.`),
      (e: Error) => this.said(e.message, 'error'),
    );
  }
}
