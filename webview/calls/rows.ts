/** One pooled element per visible row; every cell is text, and a tree item is named by its visible cells. */
import { outcomeOf, runOutcomeOf, type CallsModel, type Row } from '../callsModel.js';
import { h, icon, replaceChildren } from '../dom.js';
import { clockTime, count, exactBytes, humanBytes, localTime, shortSha } from '../format.js';
import type { ListState } from './state.js';

const statusIcon: Record<string, string> = {
  ok: 'pass',
  error: 'error',
  failed: 'warning',
  running: 'loading',
  interrupted: 'debug-disconnect',
  completed: 'pass',
  cancelled: 'circle-slash',
};

export class RowRenderer {
  constructor(
    private readonly model: CallsModel,
    private readonly state: ListState,
    private readonly viewport: HTMLElement,
  ) {}

  create(): HTMLElement {
    const cells = Array.from({ length: 9 }, (_, i) => h('span', { class: `cell c${i}` }));
    const copy = h(
      'button',
      { class: 'icon-button copy-sha', tabindex: '-1', title: 'Copy sha256', 'aria-label': 'Copy sha256' },
      icon('copy'),
    );
    cells[6]!.append(h('span', { class: 'sha' }), copy);
    return h('div', { class: 'row-grid', role: 'treeitem' }, ...cells);
  }

  render(el: HTMLElement, row: Row, i: number): void {
    const { active, selectedKey } = this.state;
    // aria-activedescendant may only name a row in the DOM (axe): a recycled row gives the name up.
    const vp = this.viewport;
    if (el.id && el.id === vp.getAttribute('aria-activedescendant') && i !== active)
      vp.removeAttribute('aria-activedescendant');
    el.id = `row-${i}`;
    if (i === active) vp.setAttribute('aria-activedescendant', el.id);
    el.dataset.index = String(i);
    el.dataset.kind = row.kind;
    el.dataset.call = String(row.index);
    el.classList.toggle('selected', row.key === selectedKey);
    el.classList.toggle('active', i === active);
    el.setAttribute('aria-selected', String(row.key === selectedKey));
    const c = el.children;
    const set = (k: number, text: string, title?: string): void => {
      const cell = c[k] as HTMLElement;
      cell.textContent = text;
      if (title) cell.title = title;
      else cell.removeAttribute('title');
    };
    const shaCell = c[6] as HTMLElement;
    const [shaText, copy] = [shaCell.children[0] as HTMLElement, shaCell.children[1] as HTMLElement];
    if (row.kind === 'pending') {
      el.setAttribute('aria-level', '2');
      el.removeAttribute('aria-expanded');
      replaceChildren(c[0] as HTMLElement);
      set(1, 'Loading…', `call ${count(row.index + 1)} of ${count(this.model.total)}: asked of the host`);
      for (const k of [2, 3, 4, 5, 7, 8]) set(k, '');
      (c[3] as HTMLElement).dataset.outcome = '';
      shaText.textContent = '';
      copy.hidden = true;
      return;
    }
    if (row.kind === 'run') {
      const r = row.run;
      el.setAttribute('aria-level', '1');
      el.setAttribute('aria-expanded', String(!row.collapsed));
      // A treeitem's name comes from its visible cells, so a screen reader says what is shown (WCAG 2.5.3).
      el.removeAttribute('aria-label');
      replaceChildren(c[0] as HTMLElement, icon(row.collapsed ? 'chevron-right' : 'chevron-down'));
      // The label is the command line (docs/contracts.md §2): whole in the tooltip, with the run's id.
      set(
        1,
        r.label ?? r.runId,
        `${r.label ?? r.runId}\nrun ${r.runId}` +
          (r.store !== undefined ? `\nteam store ${r.store}: read-only (pin and delete do not apply)` : ''),
      );
      // A team run's source badge: the store's name before its label (text, like every cell).
      if (r.store !== undefined) (c[1] as HTMLElement).prepend(h('span', { class: 'store-badge' }, r.store), ' ');
      set(2, clockTime(r.startedAt), localTime(r.startedAt));
      // A completed run with a failed call reads as failed, like its call.
      const ro = runOutcomeOf(r);
      replaceChildren(
        c[3] as HTMLElement,
        icon(ro.kind === 'failed' ? 'error' : (statusIcon[r.status] ?? 'circle')),
        h('span', { class: 'st-text' }, ` ${ro.label}`),
      );
      (c[3] as HTMLElement).title = `run ${ro.label}: ${ro.detail}`;
      (c[3] as HTMLElement).dataset.outcome = ro.kind;
      // The sum of the rows under it (the Runs view's figure too); what it takes on disk is in the tooltip.
      const live = r.status === 'running' ? this.model.liveBytesOfRun(r.runId) : undefined;
      if (live !== undefined)
        set(
          4,
          `${humanBytes(r.outputBytes + live)} so far`,
          `running: ${exactBytes(r.outputBytes + live)} so far, ${exactBytes(live)} of them in calls still running`,
        );
      else
        set(
          4,
          humanBytes(r.outputBytes),
          `${exactBytes(r.outputBytes)}: its calls' results and outputs; ` +
            `${exactBytes(r.totalBytes)} stored with its log`,
        );
      set(5, '');
      set(7, '');
      shaText.textContent = '';
      copy.hidden = true;
      const from = r.store !== undefined ? `team store ${r.store}` : (r.source ?? 'tool');
      set(
        8,
        `${localTime(r.startedAt)} · from ${from} · run ${r.runId} · ` +
          `${count(row.shown)} of ${count(r.callCount)} calls${r.pinned ? ' · pinned' : ''}`,
      );
      return;
    }
    el.removeAttribute('aria-expanded');
    const part = row.kind === 'call' ? row.call.result : row.part;
    const call = row.call;
    el.setAttribute('aria-level', row.kind === 'call' ? '2' : '3');
    const name = row.kind === 'call' ? call.tool : part.name;
    const outcome = outcomeOf(call);
    el.removeAttribute('aria-label');
    replaceChildren(c[0] as HTMLElement, row.kind === 'part' ? icon('indent') : icon('symbol-method'));
    set(1, name, row.kind === 'call' ? `${call.tool} · call ${call.callId}` : `${part.name} of call ${call.callId}`);
    set(2, row.kind === 'call' ? clockTime(call.startedAt) : '', localTime(call.startedAt));
    const statusCell = c[3] as HTMLElement;
    statusCell.dataset.outcome = row.kind === 'call' ? outcome.kind : '';
    if (row.kind === 'call') {
      replaceChildren(
        statusCell,
        icon(outcome.kind === 'failed' ? 'error' : (statusIcon[call.status] ?? 'circle')),
        h('span', { class: 'st-text' }, ` ${outcome.label}`),
      );
      statusCell.title = `${outcome.label}: ${outcome.detail}`;
    } else
      set(
        3,
        part.truncated ? 'truncated' : '',
        part.truncated && part.observedBytes !== undefined
          ? `capture stopped at its cap: ${exactBytes(part.observedBytes)} produced`
          : undefined,
      );
    const live =
      row.kind === 'call' && call.status === 'running' ? this.model.liveOf(call.runId, call.callId) : undefined;
    if (live) {
      const bytes = (live.stdout?.bytes ?? 0) + (live.stderr?.bytes ?? 0);
      set(
        4,
        `${humanBytes(bytes)} so far`,
        `running: stdout ${exactBytes(live.stdout?.bytes ?? 0)}, stderr ${exactBytes(live.stderr?.bytes ?? 0)} so far`,
      );
    } else {
      // The exact count in every row cut the column where room was short; it is in the tooltip and the detail.
      set(
        4,
        humanBytes(part.sizeBytes),
        exactBytes(part.sizeBytes) +
          (part.observedBytes !== undefined && part.observedBytes !== part.sizeBytes
            ? `, ${exactBytes(part.observedBytes)} produced`
            : ''),
      );
    }
    set(5, part.handle ?? '—', part.handle ?? 'small result, shown to the model whole');
    shaText.textContent = shortSha(part.sha256);
    shaText.title = part.sha256 ?? '';
    copy.hidden = !part.sha256;
    set(7, part.stored ?? '', part.readable ? undefined : 'bytes not kept: preview only');
    (c[7] as HTMLElement).dataset.state = part.stored ?? '';
    set(8, row.kind === 'call' ? (call.errorMessage ?? call.argsSummary) : (part.contentType ?? ''));
  }
}
