/** Home and End in an open dropdown. */
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';

interface Option {
  readonly index: number;
  readonly filteredIndex: number;
}

interface Options {
  activeIndex: number;
  readonly numOptions: number;
  next(from: number): Option | null;
  prev(from: number): Option | null;
}

interface Inner {
  readonly _opts: Options;
  _adjustOptionListScrollPos(direction: 'up' | 'down', optionIndex: number): Promise<void>;
}

export function homeEndKeys(select: VscodeSingleSelect): void {
  select.addEventListener('keydown', (e) => {
    if ((e.key !== 'Home' && e.key !== 'End') || !select.open) return;
    const inner = select as unknown as Inner;
    const opts = inner._opts;
    const to = e.key === 'Home' ? opts.next(-1) : opts.prev(opts.numOptions);
    e.preventDefault();
    e.stopPropagation();
    if (!to) return;
    opts.activeIndex = to.index;
    void inner._adjustOptionListScrollPos(e.key === 'Home' ? 'up' : 'down', to.filteredIndex);
  });
}
