/** A blank list under "0 of 5 calls" read as broken, so it is said in words with a button that clears them. */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { h, icon } from '../dom.js';

export class NoMatchNotice {
  readonly element: HTMLElement;

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

  update(matching: number, all: number, loading: boolean): void {
    this.element.hidden = !(matching === 0 && all > 0 && !loading);
  }
}
