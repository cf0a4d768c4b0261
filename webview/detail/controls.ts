import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeButton } from '@vscode-elements/elements/dist/vscode-button/vscode-button.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import { h } from '../dom.js';

export function field(id: string, label: string, value: string, extra: Record<string, string> = {}): VscodeTextfield {
  return h('vscode-textfield', { id, label, value, ...extra });
}

export function button(id: string, label: string, iconName: string, secondary = true, title?: string): VscodeButton {
  return h('vscode-button', { id, icon: iconName, secondary, ...(title ? { title } : {}) }, label);
}

/** Never the whole page jumps. */
export function reveal(el: HTMLElement): void {
  el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}
