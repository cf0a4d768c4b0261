/** The tree's keyboard and mouse; the active row is `aria-activedescendant` while it is drawn. */
import type { PartRef } from '../../src/shared/protocol.js';
import { rowRef, type Row } from '../callsModel.js';
import type { VirtualList } from '../virtualList.js';
import type { ListState } from './state.js';

interface TreeNavDeps {
  readonly state: ListState;
  readonly list: VirtualList<Row>;
  select(ref: PartRef, open: boolean): void;
  copy(text: string, what: string): void;
  toggled(): void;
}

export class TreeNav {
  constructor(private readonly deps: TreeNavDeps) {
    const vp = deps.list.viewport;
    vp.addEventListener('keydown', (e) => this.onKey(e));
    vp.addEventListener('click', (e) => this.onClick(e, false));
    vp.addEventListener('dblclick', (e) => this.onClick(e, true));
  }

  /** An id not in the page is an invalid reference. */
  updateActiveDescendant(): void {
    const { state, list } = this.deps;
    const vp = list.viewport;
    const drawn = state.active >= state.drawn[0] && state.active <= state.drawn[1];
    if (state.active >= 0 && state.active < state.rows.length && drawn)
      vp.setAttribute('aria-activedescendant', `row-${state.active}`);
    else vp.removeAttribute('aria-activedescendant');
  }

  private moveTo(i: number, open = false): void {
    const { state, list } = this.deps;
    if (state.rows.length === 0) return;
    state.active = Math.max(0, Math.min(state.rows.length - 1, i));
    const row = state.rows.at(state.active);
    const ref = rowRef(row);
    if (ref) {
      state.selectedKey = row.key;
      this.deps.select(ref, open);
    }
    list.scrollToIndex(state.active);
    this.updateActiveDescendant();
  }

  private toggleRun(runId: string, collapse: boolean): void {
    const { collapsed } = this.deps.state;
    if (collapse) collapsed.add(runId);
    else collapsed.delete(runId);
    this.deps.toggled();
  }

  private onKey(e: KeyboardEvent): void {
    const { state, list } = this.deps;
    const row = state.active >= 0 && state.active < state.rows.length ? state.rows.at(state.active) : undefined;
    const page = list.pageSize;
    switch (e.key) {
      case 'ArrowDown':
        this.moveTo(state.active + 1);
        break;
      case 'ArrowUp':
        this.moveTo(state.active - 1);
        break;
      case 'Home':
        this.moveTo(0);
        break;
      case 'End':
        this.moveTo(state.rows.length - 1);
        break;
      case 'PageDown':
        this.moveTo(state.active + page);
        break;
      case 'PageUp':
        this.moveTo(state.active - page);
        break;
      case 'ArrowRight':
        if (row?.kind === 'run' && row.collapsed) this.toggleRun(row.run.runId, false);
        else this.moveTo(state.active + 1);
        break;
      case 'ArrowLeft':
        if (row?.kind === 'run') {
          if (!row.collapsed) this.toggleRun(row.run.runId, true);
        } else if (row) this.moveTo(this.parentIndex(state.active));
        break;
      case 'Enter':
        if (row?.kind === 'run') this.toggleRun(row.run.runId, !row.collapsed);
        else this.moveTo(state.active, true);
        break;
      case 'c': {
        const sha = row?.kind === 'call' ? row.call.result.sha256 : row?.kind === 'part' ? row.part.sha256 : undefined;
        if (sha) this.deps.copy(sha, 'sha256');
        break;
      }
      default:
        return;
    }
    e.preventDefault();
  }

  private parentIndex(i: number): number {
    const rows = this.deps.state.rows;
    const kind = i >= 0 && i < rows.length ? rows.at(i).kind : undefined;
    for (let j = i - 1; j >= 0; j--) {
      const k = rows.at(j).kind;
      if (kind === 'part' ? k === 'call' : k === 'run') return j;
    }
    return i;
  }

  private onClick(e: MouseEvent, open: boolean): void {
    const { state, list } = this.deps;
    const target = e.target as HTMLElement;
    const rowEl = target.closest<HTMLElement>('.vlist-row');
    if (!rowEl) return;
    const i = Number(rowEl.dataset.index);
    if (!(i >= 0 && i < state.rows.length)) return;
    const row = state.rows.at(i);
    if (target.closest('.copy-sha')) {
      const sha = row.kind === 'call' ? row.call.result.sha256 : row.kind === 'part' ? row.part.sha256 : undefined;
      if (sha) this.deps.copy(sha, 'sha256');
      return;
    }
    if (row.kind === 'run') {
      state.active = i;
      this.toggleRun(row.run.runId, !row.collapsed);
      return;
    }
    if (row.kind === 'pending') return;
    this.moveTo(i, open);
    list.viewport.focus({ preventScroll: true });
  }
}
