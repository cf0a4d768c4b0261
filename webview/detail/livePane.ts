/** docs/contracts.md §3.4, "Live". Hidden once it finished. */
import type { LiveOf } from '../callsModel.js';
import { h, replaceChildren } from '../dom.js';
import { exactBytes } from '../format.js';

export class LivePane {
  readonly element: HTMLElement = h('section', {
    id: 'live',
    class: 'live',
    'aria-label': 'Output so far',
    hidden: true,
  });

  hide(): void {
    this.element.hidden = true;
  }

  show(live: LiveOf): void {
    const stream = live.stdout && (live.stdout.bytes > 0 || !live.stderr?.bytes) ? 'stdout' : 'stderr';
    const tail = live[stream]?.tail ?? '';
    const sizes = (['stdout', 'stderr'] as const).map((n) => `${n} ${exactBytes(live[n]?.bytes ?? 0)}`).join(' · ');
    replaceChildren(
      this.element,
      h('h3', {}, 'Running: output so far'),
      h('p', { id: 'live-sizes', role: 'status' }, sizes),
      h('div', { class: 'range-label' }, `Last bytes of ${stream}`),
      h(
        'pre',
        { id: 'live-tail', class: 'window live-tail', tabindex: '0', 'aria-label': `Last bytes of ${stream} so far` },
        tail,
      ),
    );
    this.element.hidden = false;
    // The newest lines are the point: keep the end in view.
    const pre = this.element.querySelector('pre');
    if (pre) pre.scrollTop = pre.scrollHeight;
  }
}
