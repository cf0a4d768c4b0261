/** Offers at most a few dozen choices, so 100,000 runs never become 100,000 elements. */
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import { h, replaceChildren } from '../dom.js';

interface Choice {
  readonly value: string;
  readonly label: string;
  readonly title: string;
}

export class Picker {
  readonly element: HTMLElement;
  readonly field: VscodeTextfield;
  private readonly box: HTMLElement;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private seq = 0;
  value = '';
  label = '';

  constructor(
    id: string,
    fieldLabel: string,
    placeholder: string,
    private readonly allLabel: string,
    private readonly search: (text: string) => Promise<readonly Choice[]>,
    private readonly changed: () => void,
  ) {
    this.field = h('vscode-textfield', { id, label: fieldLabel, placeholder });
    this.box = h('div', {
      id: `${id}-options`,
      class: 'picker-options',
      role: 'listbox',
      'aria-label': fieldLabel,
      hidden: true,
    });
    this.element = h('div', { class: 'picker' }, this.field, this.box);
    this.field.addEventListener('input', () => {
      if (!this.field.value.trim() && this.value) this.choose('', '');
      this.ask();
    });
    // The list opens when asked, not on focus: tabbing through the toolbar must not drop a list over the buttons
    // beside it (the ARIA combobox pattern).
    this.field.addEventListener('click', () => {
      if (this.box.hidden) this.ask();
    });
    this.field.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' && this.box.hidden) {
        e.preventDefault();
        this.ask();
        return;
      }
      if (e.key === 'ArrowDown' && !this.box.hidden) {
        e.preventDefault();
        (this.box.firstElementChild as HTMLElement | null)?.focus();
      }
      if (e.key === 'Escape' && !this.box.hidden) {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
      if (e.key === 'Enter') {
        e.preventDefault();
        (this.box.children[this.box.children.length > 1 ? 1 : 0] as HTMLElement | undefined)?.click();
      }
    });
    this.box.addEventListener('keydown', (e) => {
      const at = document.activeElement as HTMLElement | null;
      if (!at || at.parentElement !== this.box) return;
      if (e.key === 'ArrowDown') (at.nextElementSibling as HTMLElement | null)?.focus();
      else if (e.key === 'Home') (this.box.firstElementChild as HTMLElement | null)?.focus();
      else if (e.key === 'End') (this.box.lastElementChild as HTMLElement | null)?.focus();
      else if (e.key === 'ArrowUp') {
        if (at.previousElementSibling) (at.previousElementSibling as HTMLElement).focus();
        else this.field.focus();
      } else if (e.key === 'Enter' || e.key === ' ') at.click();
      else if (e.key === 'Escape') {
        this.close();
        this.field.focus();
      } else return;
      e.preventDefault();
      e.stopPropagation();
    });
    this.element.addEventListener('focusout', (e) => {
      if (!this.element.contains(e.relatedTarget as Node | null)) this.close();
    });
  }

  set(value: string, label: string): void {
    this.value = value;
    this.label = label;
    this.field.value = value ? label || value : '';
  }

  private choose(value: string, label: string): void {
    this.set(value, label);
    this.close();
    this.changed();
  }

  private close(): void {
    // A search still waiting for its debounce would open the list again after focus left.
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.box.hidden = true;
    this.seq++;
    delete this.element.dataset.asking;
  }

  /** `data-asking` marks a list on its way: without it, nothing will open the list. */
  private ask(): void {
    if (this.timer) clearTimeout(this.timer);
    this.element.dataset.asking = '';
    this.timer = setTimeout(() => {
      const seq = ++this.seq;
      // Typing over the picked choice's label searches afresh; the label itself lists them all.
      const text = this.field.value.trim() === this.label ? '' : this.field.value.trim();
      this.search(text).then(
        (choices) => {
          if (seq !== this.seq) return;
          delete this.element.dataset.asking;
          this.show(choices);
        },
        () => {
          if (seq === this.seq) delete this.element.dataset.asking;
        },
      );
    }, 120);
  }

  private show(choices: readonly Choice[]): void {
    const opt = (c: Choice): HTMLElement => {
      const el = h(
        'div',
        {
          class: 'picker-option',
          role: 'option',
          tabindex: '-1',
          'aria-selected': String(c.value === this.value),
          title: c.title,
          'data-value': c.value,
        },
        c.label,
      );
      el.addEventListener('mousedown', (e) => e.preventDefault());
      el.addEventListener('click', () => this.choose(c.value, c.value ? c.label : ''));
      return el;
    };
    replaceChildren(this.box, opt({ value: '', label: this.allLabel, title: this.allLabel }), ...choices.map(opt));
    if (choices.length === 0)
      this.box.append(
        h(
          'div',
          { class: 'picker-empty muted', role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false' },
          'Nothing matches',
        ),
      );
    this.box.hidden = false;
  }
}
