/** Output drawn as inert segments, never as markup. */
import { h } from '../dom.js';
import { TextSegmenter } from '../text.js';

/** docs/contracts.md §3.4: the first marked row is the current one and says so in words. */
export interface WindowMark {
  readonly from: number;
  readonly to: number;
  readonly label: string;
  /** A link: the person did not ask for this window here. */
  readonly visible?: boolean;
}

export function renderText(target: HTMLElement, text: string, firstLine: number | undefined, mark?: WindowMark): void {
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
        // Announced, not only coloured.
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
