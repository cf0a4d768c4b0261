/**
 * Inspector webview entry: talks to the host by messages only (src/shared/protocol.ts, docs/contracts.md §3.4);
 * state survives hiding through `setState`.
 */
import type {
  ExcerptRangeDto,
  HostToWebview,
  InspectorViewState,
  PartRef,
  StartActionDto,
  TargetDto,
  WindowRequestDto,
} from '../src/shared/protocol.js';
import { CallsModel, queryOf } from './callsModel.js';
import { CallsView } from './calls/callsView.js';
import { DetailView } from './detail/detailView.js';
import { finishedDetail } from './finishedDetail.js';
import { h } from './dom.js';
import { SplitLayout } from './layout.js';
import { RpcClient, type VsCodeApi } from './rpc.js';
import { SearchView } from './searchView.js';

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const rpc = new RpcClient(api);
const saved = (api.getState() ?? {}) as InspectorViewState;
const model = new CallsModel();
const timings = document.body.dataset;

const statusLine = h('div', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
let statusTimer: ReturnType<typeof setTimeout> | undefined;
function status(message: string, kind: 'info' | 'error' = 'info'): void {
  statusLine.textContent = message;
  statusLine.className = `status ${kind}`;
  if (statusTimer) clearTimeout(statusTimer);
  statusTimer = setTimeout(() => {
    statusLine.textContent = '';
  }, 8000);
}

let saveTimer: ReturnType<typeof setTimeout> | undefined;
/**
 * A shown selection or window is saved at once: the panel may be hidden the next moment, and a `pagehide` save does
 * not reach the workbench from a page being torn down.
 */
function saveState(now = false): void {
  if (now) return writeState();
  if (saveTimer) return;
  saveTimer = setTimeout(writeState, 150);
  document.body.dataset.statePending = '';
}

function writeState(): void {
  if (saveTimer) clearTimeout(saveTimer);
  saveTimer = undefined;
  delete document.body.dataset.statePending;
  const selected = detail.shown ?? pendingSelect;
  const state: InspectorViewState = {
    ...(selected ? { selected } : {}),
    filters: calls.filters(),
    ...(calls.runLabel() ? { runLabel: calls.runLabel() } : {}),
    collapsedRuns: calls.collapsedRuns(),
    columns: calls.columnWidths(),
    ...(layout.split !== undefined ? { split: layout.split } : {}),
    ...detail.state(),
  };
  api.setState(state);
}

// A page about to be discarded keeps what a pending save would have kept.
window.addEventListener('pagehide', () => {
  if (saveTimer) writeState();
});

function copy(text: string, what: string): void {
  rpc.request({ type: 'copyText', text }).then(
    () => status(`Copied the ${what}.`),
    (e: Error) => status(e.message, 'error'),
  );
}

const calls = new CallsView(
  model,
  {
    select: (ref, open) => select(ref, open),
    copy,
    refresh: () => {
      rpc.request({ type: 'refresh' }).then(
        () => listChanged(),
        (e: Error) => status(e.message, 'error'),
      );
    },
    changed: saveState,
    page: (r) => rpc.request({ type: 'page', ...r }),
    pickRuns: (text, limit) => rpc.request({ type: 'pickRuns', text, limit }).then((r) => r.runs),
    problem: (message) => status(message, 'error'),
  },
  {
    ...(saved.filters ? { filters: saved.filters } : {}),
    ...(saved.collapsedRuns ? { collapsed: saved.collapsedRuns } : {}),
    ...(saved.columns ? { columns: saved.columns } : {}),
    ...(saved.runLabel ? { runLabel: saved.runLabel } : {}),
  },
);

const detail = new DetailView(
  {
    request: (b) => rpc.request(b),
    status,
    changed: (now) => saveState(now),
    read: () => rpc.send({ type: 'read' }),
  },
  saved.form,
);

const search = new SearchView({
  request: (b) => rpc.request(b),
  nextRequestId: () => rpc.peekNextId(),
  post: (m) => rpc.send(m),
  scope: () => {
    const f = calls.filters();
    return { tool: f.tool, run: f.run };
  },
  open: (handle, pattern, index) => reveal({ handle }, (ref) => select(ref, true, { kind: 'pattern', pattern, index })),
});

let pendingSelect: PartRef | undefined = saved.selected;
let pendingWindow: WindowRequestDto | undefined = saved.window;
let pendingTarget: TargetDto | undefined;
let detailTimer: ReturnType<typeof setTimeout> | undefined;
let detailSeq = 0;

function select(ref: PartRef, open: boolean, window?: WindowRequestDto, link?: ExcerptRangeDto): void {
  pendingSelect = ref;
  calls.select(ref);
  saveState();
  if (detailTimer) clearTimeout(detailTimer);
  // Arrow keys move quickly: ask for the detail once the selection rests.
  detailTimer = setTimeout(
    () => {
      void loadDetail(ref, window, link);
    },
    open ? 0 : 120,
  );
}

async function loadDetail(ref: PartRef, window?: WindowRequestDto, link?: ExcerptRangeDto): Promise<void> {
  const seq = ++detailSeq;
  try {
    const r = await rpc.request({ type: 'detail', ref });
    if (seq !== detailSeq || r.type !== 'detail') return;
    detail.show(r.ref, r.call, r.part, r.preview, window, link);
    // Running: the output so far shows at once (empty until the first progress arrives).
    if (r.call.status === 'running') detail.setLive(r.ref, model.liveOf(r.ref.runId, r.ref.callId) ?? {});
    saveState(true);
  } catch (e) {
    if (seq === detailSeq) detail.clear(`This call could not be shown: ${(e as Error).message}`);
  }
}

/** docs/contracts.md §3.4, "Reveal". */
function reveal(target: { handle: string } | { runId: string }, open: (ref: PartRef) => void): void {
  const query = queryOf(calls.filters());
  rpc
    .request({ type: 'locate', ...target, query })
    .then((r) => {
      // A call was found: something is recorded, whether or not its page has arrived.
      emptyState.hidden = true;
      open(r.ref);
      calls.focus();
      return calls.reveal(r.ref, query, r, () => reveal(target, open));
    })
    .catch((e: Error) => status(e.message, 'error'));
}

function applyPending(): void {
  if (pendingTarget) {
    const t = pendingTarget;
    pendingTarget = undefined;
    if (!t.handle && !t.runId) return;
    pendingWindow = undefined;
    pendingSelect = undefined;
    // A link's window (docs/contracts.md §3.4, "Links"): shown, marked and scrolled to.
    reveal(t.handle ? { handle: t.handle } : { runId: t.runId! }, (ref) => select(ref, true, undefined, t.window));
    return;
  }
  if (pendingSelect && !detail.shown) {
    const w = pendingWindow;
    pendingWindow = undefined;
    select(pendingSelect, true, w);
  }
}

/** A busy store posts live records often. */
let changeTimer: ReturnType<typeof setTimeout> | undefined;
function listChanged(): void {
  if (changeTimer) return;
  changeTimer = setTimeout(() => {
    changeTimer = undefined;
    void calls.reload(false).then(afterLoad);
  }, 100);
}

function afterLoad(): void {
  if (!calls.loaded) return;
  emptyState.hidden = model.size > 0;
  // Nothing recorded any more (Clear All): the detail goes too.
  if (model.size === 0 && detail.shown) {
    pendingSelect = undefined;
    detail.clear();
  }
  requestAnimationFrame(() => {
    timings.callCount = String(model.size);
    timings.pagesHeld = String(model.heldPages().length);
    if (calls.firstRowsRenderedAt !== undefined) timings.firstRowsMs ??= calls.firstRowsRenderedAt.toFixed(1);
  });
}

function onMessage(msg: HostToWebview): void {
  if (rpc.settle(msg)) return;
  switch (msg.type) {
    case 'init':
      detail.setLimits(msg.limits);
      storeState.textContent = msg.storeAvailable ? '' : 'No evidence store is open for this workspace yet.';
      if (msg.target) pendingTarget = msg.target;
      timings.pageAskedMs ??= performance.now().toFixed(1);
      void calls.reload(false).then(() => {
        timings.firstPageMs ??= performance.now().toFixed(1);
        afterLoad();
        applyPending();
      });
      break;
    case 'changed': {
      // Rows held are updated at once; the pages on screen are asked again when the list moved.
      const stale = model.upsert(msg.runs, msg.calls);
      calls.refresh();
      if (stale || msg.calls.length === 0) listChanged();
      // A call shown while running gets its final detail when it finishes.
      const again = finishedDetail(detail.shown, pendingSelect, msg.calls);
      if (again) void loadDetail(again);
      break;
    }
    case 'live': {
      model.applyLive(msg.streams);
      calls.repaint();
      const shown = detail.shown;
      if (shown) detail.setLive(shown, model.liveOf(shown.runId, shown.callId));
      break;
    }
    case 'searchProgress':
      search.onProgress(msg);
      break;
    case 'reveal':
      pendingTarget = msg.target;
      applyPending();
      break;
    case 'error':
      status(msg.message, 'error');
      break;
    default:
      // A reply nobody waits for any more: nothing to do.
      break;
  }
}

// Reported to the host log, and counted for the tests.
let violations = 0;
document.addEventListener('securitypolicyviolation', (e) => {
  violations++;
  timings.cspViolations = String(violations);
  api.postMessage({
    type: 'problem',
    message: `CSP blocked ${e.blockedURI || 'inline content'} (${e.effectiveDirective})`,
  });
});
window.addEventListener('error', (e) => {
  api.postMessage({ type: 'problem', message: `uncaught: ${String(e.message).slice(0, 500)}` });
});

const storeState = h('p', { id: 'store-state', class: 'muted' });
function startButton(
  id: string,
  label: string,
  iconName: string,
  action: StartActionDto,
  secondary: boolean,
): HTMLElement {
  const b = h('vscode-button', { id, icon: iconName, ...(secondary ? { secondary: true } : {}) }, label);
  b.addEventListener('click', () => {
    rpc.request({ type: 'startAction', action }).then(undefined, (e: Error) => status(e.message, 'error'));
  });
  return b;
}
const emptyState = h(
  'section',
  { id: 'empty-state', class: 'empty-state', 'aria-label': 'Nothing recorded yet', hidden: true },
  h('p', {}, 'Nothing is recorded yet. Capture a command, import a file, or try the demo build log:'),
  h(
    'div',
    { class: 'start-actions' },
    startButton('start-capture', 'Run Command and Capture…', 'terminal', 'runCommandAndCapture', false),
    startButton('start-import', 'Import File as Evidence…', 'file-add', 'importFile', true),
    startButton('start-demo', 'Capture the Demo Build Log', 'beaker', 'captureDemo', true),
  ),
);
/** Where a person looks for them. */
const shortcuts: readonly [string, string][] = [
  ['/', 'focus the text filter'],
  ['Escape', 'clear the text filter'],
  ['↑ ↓ Home End PgUp PgDn', 'move in the list'],
  ['← →', 'collapse or expand a run, go to the parent'],
  ['Enter', 'open the selected call or output'],
  ['c', "copy the selected row's sha256"],
  ['F3 / Shift+F3', 'next / previous match of the pattern'],
  ['Splitter: ↑ ↓ (← → side by side), Home, End', 'resize the list and the detail'],
];
const help = h(
  'details',
  { class: 'help', id: 'help' },
  h('summary', {}, 'Keyboard shortcuts'),
  h('dl', {}, ...shortcuts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
);
// Saved at once: the panel may be hidden before a debounced save runs.
const layout = new SplitLayout(calls.element, detail.element, saved.split, writeState);
// The heading moves inside the main landmark (the host page puts it first so it shows at once).
const heading = document.getElementById('heading');
const app = h(
  'main',
  { id: 'app' },
  h(
    'header',
    { class: 'app-header' },
    heading,
    help,
    h(
      'p',
      { class: 'muted intro' },
      'Every recorded tool call, its exact size, handle and sha256; read exact ' +
        'ranges and copy excerpts with their provenance.',
    ),
    storeState,
    emptyState,
    search.element,
  ),
  layout.element,
  statusLine,
);
document.body.append(app);
timings.cspViolations = '0';

window.addEventListener('message', (e: MessageEvent) => onMessage(e.data as HostToWebview));
document.addEventListener('keydown', (e) => {
  const inField = (e.target as HTMLElement).closest('vscode-textfield, input, textarea, vscode-single-select');
  if (e.key === '/' && !inField) {
    e.preventDefault();
    document.getElementById('filter-text')?.focus();
  }
  if (e.key === 'F3') {
    e.preventDefault();
    detail.findNext(e.shiftKey ? -1 : 1);
  }
});
api.postMessage({ type: 'ready' });
timings.readyPostedMs = performance.now().toFixed(1);
