/**
 * The line the list shows when its filters match no call of the calls there are: said in
 * words with a button that clears them (a blank list under "0 of 5 calls" read as broken).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { h, icon } from '../dom.js';

/** "No calls match the filters" with "Clear filters". */
export class NoMatchNotice {
  readonly element: HTMLElement;

  /** `clear` empties every filter. */
  constructor(clear: () => void) {
    const button = h('vscode-button', { id: 'no-match-clear', secondary: true, icon: 'clear-all' }, 'Clear filters');
    button.addEventListener('click', clear);
    this.element = h(
      'div',
      { id: 'no-match', class: 'reveal-notice', role: 'status', hidden: true },
      h('span', { class: 'reveal-text' }, icon('filter'), ' No calls match the filters.'),
      button,
    );
  }

  /** Shown when nothing matches while calls exist and no page is loading. */
  update(matching: number, all: number, loading: boolean): void {
    this.element.hidden = !(matching === 0 && all > 0 && !loading);
  }
}
