/**
 * Where room is short (inspector.css) the pickers, outcome, source and sort sit behind "Filters", which says how many
 * are in force.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { homeEndKeys } from './selectKeys.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type { OutcomeFilterDto, RunDto } from '../../src/shared/protocol.js';
import type { Filters } from '../callsModel.js';
import { h, icon, replaceChildren } from '../dom.js';
import { localTime } from '../format.js';
import { Picker } from './picker.js';

const pickerRuns = 30;

interface FilterBarDeps {
  tools(): readonly string[];
  pickRuns(text: string, limit: number): Promise<readonly RunDto[]>;
  changed(): void;
  refresh(): void;
}

function option(value: string, label: string): HTMLElement {
  return h('vscode-option', { value }, label);
}

/** docs/contracts.md §3.4. */
function sourceLabel(source: string): string {
  const names: Record<string, string> = {
    tool: 'Model tool calls',
    participant: '@evidence chat',
    cli: 'Command line (evidence CLI)',
    mcp: 'MCP server',
    command: 'Editor commands',
    api: 'Extension API',
    hook: "Agents' terminal commands (hooks)",
  };
  return names[source] ?? (source.startsWith('team:') ? `Team store ${source.slice('team:'.length)}` : source);
}

function runLabel(r: RunDto): string {
  return `${r.label ?? r.runId} · ${localTime(r.startedAt)}`;
}

export class FilterBar {
  readonly element: HTMLElement;
  private readonly tool: Picker;
  private readonly run: Picker;
  private readonly text: VscodeTextfield;
  private readonly sort: VscodeSingleSelect;
  private readonly outcome: VscodeSingleSelect;
  private readonly source: VscodeSingleSelect;
  private sourceOptions = '';
  private pendingSource = '';
  private readonly summary: HTMLElement;
  private readonly toggle: HTMLElement;

  constructor(
    private readonly deps: FilterBarDeps,
    initial?: { filters?: Filters; runLabel?: string },
  ) {
    // Tools are searched here; runs are asked of the host as the person types.
    this.tool = new Picker(
      'filter-tool',
      'Filter by tool',
      'All tools: type to find a tool',
      'All tools',
      async (text) => {
        const needle = text.toLowerCase();
        return deps
          .tools()
          .filter((t) => t.toLowerCase().includes(needle))
          .slice(0, pickerRuns)
          .map((t) => ({ value: t, label: t, title: `only ${t} calls` }));
      },
      () => this.changed(),
    );
    this.run = new Picker(
      'filter-run',
      'Filter by run',
      'All runs: type to find a run',
      'All runs',
      async (text) =>
        (await deps.pickRuns(text, pickerRuns)).map((r) => ({
          value: r.runId,
          label: runLabel(r),
          title: `run ${r.runId} · ${r.callCount} calls · from ${r.source ?? 'tool'}`,
        })),
      () => this.changed(),
    );
    this.text = h('vscode-textfield', {
      id: 'filter-text',
      label: 'Filter by text',
      placeholder: 'Filter: tool, run, call id or handle…',
    });
    this.sort = h(
      'vscode-single-select',
      { id: 'sort', label: 'Sort by' },
      option('time', 'Newest first'),
      option('size', 'Largest first'),
    );
    this.outcome = h(
      'vscode-single-select',
      { id: 'filter-outcome', label: 'Filter by outcome' },
      option('', 'Any outcome'),
      option('failed', 'Failed'),
      option('ok', 'Succeeded'),
      option('running', 'Running'),
    );
    this.source = h(
      'vscode-single-select',
      { id: 'filter-source', label: 'Filter by source' },
      option('', 'Any source'),
    );
    const refresh = h(
      'vscode-button',
      { id: 'refresh', secondary: true, icon: 'refresh', title: 'Ask the store again for the calls on screen' },
      'Refresh',
    );
    this.summary = h('span', { id: 'list-summary', class: 'muted', 'aria-live': 'polite' });
    this.toggle = h(
      'vscode-button',
      {
        id: 'toggle-filters',
        class: 'filter-toggle',
        secondary: true,
        icon: 'filter',
        'aria-expanded': 'false',
        title: 'Show or hide the tool, run, source, outcome and sort filters',
      },
      'Filters',
    );
    for (const el of [this.tool.element, this.run.element, this.source, this.outcome, this.sort])
      el.classList.add('filter-extra');
    const toolbar = (this.element = h(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Filter and sort calls' },
      h('span', { class: 'filter-icon' }, icon('filter')),
      this.text,
      this.toggle,
      this.tool.element,
      this.run.element,
      this.source,
      this.outcome,
      this.sort,
      refresh,
      this.summary,
    ));
    this.toggle.addEventListener('click', () => {
      const open = !toolbar.classList.contains('open');
      toolbar.classList.toggle('open', open);
      this.toggle.setAttribute('aria-expanded', String(open));
    });

    if (initial?.filters) {
      this.text.value = initial.filters.text;
      this.sort.value = initial.filters.sort;
      this.outcome.value = initial.filters.outcome ?? '';
      this.tool.set(initial.filters.tool, initial.filters.tool);
      this.run.set(initial.filters.run, initial.runLabel ?? '');
      // Older panels saved `hook:<agent>`; the list filters hooks as one source.
      this.pendingSource = initial.filters.source?.startsWith('hook:') ? 'hook' : (initial.filters.source ?? '');
    }
    this.countFilters();

    for (const el of [this.source, this.sort, this.outcome]) {
      el.addEventListener('change', () => this.changed());
      homeEndKeys(el);
    }
    this.text.addEventListener('input', () => this.changed());
    // A second Escape goes on to the workbench.
    this.text.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || !this.text.value) return;
      e.preventDefault();
      e.stopPropagation();
      this.text.value = '';
      this.changed();
    });
    refresh.addEventListener('click', () => deps.refresh());
  }

  filters(): Filters {
    return {
      tool: this.tool.value,
      run: this.run.value,
      text: this.text.value,
      sort: this.sort.value === 'size' ? 'size' : 'time',
      outcome: (['ok', 'failed', 'running'] as const).find((o) => o === this.outcome.value) ?? ('' as OutcomeFilterDto),
      source: this.source.value || this.pendingSource,
    };
  }

  /** Saved with the filters, so a reload shows it without asking. */
  runLabel(): string {
    return this.run.label;
  }

  summarize(text: string): void {
    this.summary.textContent = text;
  }

  /** The sort stays; the caller asks again. */
  clear(): void {
    this.text.value = '';
    this.tool.set('', '');
    this.run.set('', '');
    this.outcome.value = '';
    this.source.value = '';
    this.pendingSource = '';
  }

  /** A saved source is picked once its option exists. */
  setSources(sources: readonly string[]): void {
    // Options are rebuilt only when the set changes: replacing them resets the control.
    const sourcesKey = sources.join('\n');
    if (sourcesKey === this.sourceOptions) return;
    this.sourceOptions = sourcesKey;
    const keep = this.source.value || this.pendingSource;
    replaceChildren(this.source, option('', 'Any source'), ...sources.map((s) => option(s, sourceLabel(s))));
    if (keep && sources.includes(keep)) {
      this.source.value = keep;
      this.pendingSource = '';
    }
  }

  private changed(): void {
    this.countFilters();
    if (this.source.value) this.pendingSource = '';
    this.deps.changed();
  }

  /** What the toggle hides is never in force unseen. */
  private countFilters(): void {
    const f = this.filters();
    const inForce = [f.tool, f.run, f.source, f.outcome, f.sort === 'size' ? 'size' : ''].filter(Boolean).length;
    this.toggle.textContent = inForce ? `Filters (${inForce})` : 'Filters';
  }
}
