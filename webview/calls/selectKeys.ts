/** Home and End in an open dropdown move to its first and last option, as in VS Code's own lists. */
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';

interface Option {
  readonly index: number;
  readonly filteredIndex: number;
}

/** The element's option list: it handles arrows but not Home and End. */
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
    // A long list scrolls to it, as the arrows do.
    void inner._adjustOptionListScrollPos(e.key === 'Home' ? 'up' : 'down', to.filteredIndex);
  });
}
