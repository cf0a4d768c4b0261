/** "What the model saw", as text only; the gap is a button that asks for the omitted bytes. */
import type { PartDto, PreviewDto } from '../../src/shared/protocol.js';
import { append, h } from '../dom.js';
import { exactBytes } from '../format.js';
import { renderText } from './textRows.js';
import { gapStart } from './gapStart.js';

export class PreviewPane {
  readonly element: HTMLElement;
  private readonly box: HTMLElement;

  constructor(private readonly fetchGap: (start: number, tailStart: number) => void) {
    this.box = h('div', { class: 'preview' });
    this.element = h(
      'section',
      { 'aria-labelledby': 'preview-heading' },
      h('h3', { id: 'preview-heading' }, 'What the model saw'),
      this.box,
    );
  }

  show(part: PartDto, p: PreviewDto, running = false): void {
    const box = this.box;
    box.replaceChildren();
    if (running) {
      append(box, h('p', { class: 'muted', id: 'preview-running' }, 'Nothing yet: the call is still running.'));
      return;
    }
    if (p.errorLines) append(box, errorLinesBlock(p.errorLines));
    if (p.head !== undefined && p.tail !== undefined && p.headEnd !== undefined && p.tailStart !== undefined) {
      const head = h('div', {
        class: 'window preview-text',
        id: 'preview-head',
        tabindex: '0',
        role: 'region',
        'aria-label': 'Head of the preview',
      });
      const tail = h('div', {
        class: 'window preview-text',
        id: 'preview-tail',
        tabindex: '0',
        role: 'region',
        'aria-label': 'Tail of the preview',
      });
      renderText(head, p.head, undefined);
      renderText(tail, p.tail, undefined);
      append(
        box,
        h('div', { class: 'range-label' }, `Head · bytes [0, ${p.headEnd})`),
        head,
        this.gapButton(p.head, p.headEnd, p.tailStart),
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
      role: 'region',
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

  private gapButton(head: string, headEnd: number, tailStart: number): HTMLElement {
    const b = h(
      'button',
      { class: 'gap', id: 'preview-gap', type: 'button', title: 'Fetch the omitted bytes into the window below' },
      `… bytes [${headEnd}, ${tailStart}) omitted: ` +
        `${exactBytes(tailStart - headEnd)} the model did not see — fetch them …`,
    );
    b.addEventListener('click', () => this.fetchGap(gapStart(head, headEnd), tailStart));
    return b;
  }
}

/** docs/contracts.md §2.13; text only, never markup. */
function errorLinesBlock(e: NonNullable<PreviewDto['errorLines']>): HTMLElement {
  const list = h('div', {
    class: 'window preview-text error-lines',
    id: 'preview-errors',
    tabindex: '0',
    role: 'region',
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
