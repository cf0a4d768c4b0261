import '@vscode-elements/elements/dist/vscode-button/index.js';
import { h, icon, replaceChildren } from '../dom.js';

export class RevealNotice {
  readonly element: HTMLElement = h('div', {
    id: 'reveal-hidden',
    class: 'reveal-notice',
    role: 'status',
    hidden: true,
  });

  hide(): void {
    this.element.hidden = true;
    replaceChildren(this.element);
  }

  show(clear: () => void): void {
    const button = h('vscode-button', { id: 'reveal-clear', secondary: true, icon: 'clear-all' }, 'Clear filters');
    button.addEventListener('click', clear);
    replaceChildren(
      this.element,
      h('span', { class: 'reveal-text' }, icon('eye-closed'), ' The linked call is hidden by the filter.'),
      button,
    );
    this.element.hidden = false;
  }
}
