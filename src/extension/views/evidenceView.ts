/**
 * Evidence found without the palette: the Runs tree, the status-bar item, the Explorer's import and the demo capture.
 * Every action delegates to existing commands; this file only turns tree nodes into their arguments.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ErrorText, type CallReport, type RunStoreApi, type RunSummary } from '../../core/index.js';
import { outcomeOf, runOutcomeOf } from '../../shared/outcome.js';
import { runCommandAndCapture } from '../commands/runCommandAndCapture.js';
import { importFile } from '../commands/importFile.js';
import type { CommandDeps } from '../commands/deps.js';
import { compareWindows, registerCompareWindows } from '../documents/compareWindows.js';
import { Ids, type InspectorTarget } from '../ids.js';
import { outcomeFields, sourceLabel } from '../inspector/mapping.js';
import { formatBytes } from '../../shared/bytes.js';
import { statusTexts } from './statusText.js';
import { watchStore } from './storeWatch.js';
import { LiveRunBytes } from './liveRunBytes.js';
import { exportOutputCommand } from '../commands/exportOutput.js';

/** Records of other processes are not heard. */
const STATUS_POLL_MS = 5000;

const LIVE_REFRESH_MS = 1000;

const treeRunsPage = 100;
/** Older ones are found with the inspector's run picker. */
const treeRunsMax = 1000;

type EvidenceNode =
  | { readonly kind: 'run'; readonly run: RunSummary }
  | { readonly kind: 'more'; readonly shown: number; readonly total: number }
  | { readonly kind: 'call'; readonly call: CallReport }
  | {
      readonly kind: 'output';
      readonly call: CallReport;
      readonly name: string;
      readonly handle: string;
      readonly sizeBytes: number;
      readonly sha256?: string;
    };

function outputsOf(call: CallReport): EvidenceNode[] {
  const out: EvidenceNode[] = [];
  if (call.handle)
    out.push({
      kind: 'output',
      call,
      name: 'result',
      handle: call.handle,
      sizeBytes: call.resultBytes,
      ...(call.sha256 ? { sha256: call.sha256 } : {}),
    });
  for (const a of call.attachments)
    out.push({ kind: 'output', call, name: a.name, handle: a.handle, sizeBytes: a.sizeBytes, sha256: a.sha256 });
  return out;
}

/** A call's size as its run sums it (the catalog's `bytes`): its result and its outputs. */
function callBytes(c: CallReport): number {
  return c.attachments.reduce((n, a) => n + a.sizeBytes, c.resultBytes);
}

/** The outcome of a report, in the inspector's words. */
function outcomeOfReport(c: CallReport): ReturnType<typeof outcomeOf> {
  return outcomeOf({
    status: c.status,
    ...(c.error ? { errorMessage: c.error.message } : {}),
    ...outcomeFields(c.attachments),
  });
}

/** A run's calls only when it is expanded. */
class EvidenceTree implements vscode.TreeDataProvider<EvidenceNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<EvidenceNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  private shown = treeRunsPage;

  constructor(
    private readonly store: () => Promise<RunStoreApi | undefined>,
    private readonly live: LiveRunBytes,
  ) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  showMore(): void {
    this.shown = Math.min(treeRunsMax, this.shown + treeRunsPage);
    this.refresh();
  }

  async getChildren(node?: EvidenceNode): Promise<EvidenceNode[]> {
    const store = await this.store();
    if (!store) return [];
    if (!node) {
      // A page at a time: a year of runs is never listed (or stat'ed) whole.
      const runs = await store.queryRuns({ limit: Math.min(treeRunsMax, this.shown + 1) });
      const nodes: EvidenceNode[] = runs.slice(0, this.shown).map((run) => ({ kind: 'run', run }));
      if (runs.length > this.shown || (this.shown >= treeRunsMax && runs.length >= treeRunsMax)) {
        // Team runs are listed here too, so they are counted too.
        const totals = await store.totals();
        nodes.push({
          kind: 'more',
          shown: Math.min(this.shown, runs.length),
          total: totals.runs + (totals.teamRuns ?? 0),
        });
      }
      return nodes;
    }
    if (node.kind === 'run')
      return (await store.report(node.run.runId))
        .sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1))
        .map((call) => ({ kind: 'call', call }));
    if (node.kind === 'call') return outputsOf(node.call);
    return [];
  }

  getTreeItem(node: EvidenceNode): vscode.TreeItem {
    if (node.kind === 'more') {
      const atMax = node.shown >= treeRunsMax;
      const item = new vscode.TreeItem(
        atMax ? 'Find older runs in the inspector…' : 'Show more runs…',
        vscode.TreeItemCollapsibleState.None,
      );
      item.id = 'more';
      item.description = `${node.shown.toLocaleString('en-US')} of ${node.total.toLocaleString('en-US')} runs shown`;
      item.iconPath = new vscode.ThemeIcon(atMax ? 'search' : 'more');
      item.contextValue = 'more';
      item.accessibilityInformation = { label: `${item.label as string}, ${item.description}` };
      item.command = atMax
        ? { command: Ids.commands.openInspector, title: 'Open Inspector' }
        : { command: Ids.commands.view.showMore, title: 'Show more runs' };
      return item;
    }
    if (node.kind === 'run' && node.run.refused !== undefined) return refusedItem(node.run);
    if (node.kind === 'run') {
      const r = node.run;
      const item = new vscode.TreeItem(r.label ?? r.runId, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `run:${r.runId}`;
      // A completed run with a failed call reads as failed.
      const o = runOutcomeOf(r);
      const live = r.status === 'running' ? this.live.of(r.runId) : undefined;
      const size = live === undefined ? formatBytes(r.outputBytes) : `${formatBytes(r.outputBytes + live)} so far`;
      // A team run is listed under its store's name and is read-only: no pin or delete in its menu.
      item.description =
        (r.store !== undefined ? `team ${r.store} · ` : '') +
        `${o.label} · ${r.callCount} ${r.callCount === 1 ? 'call' : 'calls'} ` +
        `· ${size} ` +
        `· ${sourceLabel(r.source)}${r.pinned ? ' · pinned' : ''}`;
      item.tooltip =
        `${r.label ?? r.runId}\nrun ${r.runId} — ${o.detail}\n` +
        `started ${r.startedAt}\n${item.description}\n` +
        (live === undefined
          ? `${r.outputBytes.toLocaleString('en-US')} bytes in its calls' results and outputs; `
          : `${(r.outputBytes + live).toLocaleString('en-US')} bytes so far in its calls' results and outputs; `) +
        `${r.totalBytes.toLocaleString('en-US')} bytes stored with its log` +
        (r.store !== undefined ? `\npublished to team store ${r.store}: read-only (pin and delete do not apply)` : '');
      item.iconPath =
        o.kind === 'failed'
          ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
          : o.kind === 'running'
            ? new vscode.ThemeIcon('sync~spin')
            : new vscode.ThemeIcon(r.store !== undefined ? 'cloud' : r.pinned ? 'pinned' : 'history');
      item.contextValue = r.store !== undefined ? 'teamRun' : r.pinned ? 'run.pinned' : 'run';
      item.accessibilityInformation = { label: `Run ${r.label ?? r.runId}, ${item.description}` };
      return item;
    }
    if (node.kind === 'call') {
      const c = node.call;
      const o = outcomeOfReport(c);
      const item = new vscode.TreeItem(
        c.tool,
        outputsOf(c).length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `call:${c.runId}/${c.callId}`;
      item.description = `${o.label} · ${formatBytes(callBytes(c))}`;
      item.tooltip = `${c.tool} — ${o.detail}\ncall ${c.callId} of run ${c.runId}\n${c.startedAt}`;
      item.iconPath =
        o.kind === 'failed'
          ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
          : o.kind === 'running'
            ? new vscode.ThemeIcon('sync~spin')
            : new vscode.ThemeIcon('pass');
      item.contextValue = 'call';
      item.accessibilityInformation = { label: `${c.tool} call, ${item.description}` };
      item.command = { command: Ids.commands.view.openInInspector, title: 'Open in Inspector', arguments: [node] };
      return item;
    }
    const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
    item.id = `out:${node.handle}`;
    item.description = `${formatBytes(node.sizeBytes)} · ${node.handle}`;
    item.tooltip =
      `${node.name} of ${node.call.tool}\nhandle ${node.handle}\n` +
      `${node.sizeBytes.toLocaleString('en-US')} bytes${node.sha256 ? `\nsha256 ${node.sha256}` : ''}`;
    item.iconPath = new vscode.ThemeIcon(
      node.name === 'stderr' ? 'warning' : node.name === 'value' ? 'json' : 'output',
    );
    item.contextValue = 'output';
    item.accessibilityInformation = { label: `${node.name}, ${item.description}` };
    item.command = { command: Ids.commands.view.openInInspector, title: 'Open in Inspector', arguments: [node] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** A team run whose published log was refused: marked, with nothing of its log shown and nothing to open. */
function refusedItem(r: RunSummary): vscode.TreeItem {
  const item = new vscode.TreeItem(r.runId, vscode.TreeItemCollapsibleState.None);
  item.id = `run:${r.store ?? ''}:${r.runId}`;
  const mark = r.refused === 'tampered' ? 'tampered: refused' : 'not one finished run: refused';
  item.description = `team ${r.store ?? ''} · ${mark}`;
  item.tooltip =
    `run ${r.runId} of team store ${r.store ?? ''} was refused: ` +
    (r.refused === 'tampered' ? ErrorText.digestMismatch : 'its published log is not one finished run') +
    `\nlisted in the bucket at ${r.startedAt}; nothing of it is read`;
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('errorForeground'));
  item.contextValue = 'teamRun.refused';
  item.accessibilityInformation = { label: `Run ${r.runId}, ${item.description}` };
  return item;
}

function targetOfNode(node: EvidenceNode): InspectorTarget {
  if (node.kind === 'more') return {};
  if (node.kind === 'run') return { runId: node.run.runId };
  if (node.kind === 'output') return { runId: node.call.runId, handle: node.handle };
  const first = outputsOf(node.call)[0];
  return { runId: node.call.runId, ...(first?.kind === 'output' ? { handle: first.handle } : {}) };
}

function shellWord(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Registers the tree view, its commands, the status-bar item and the walkthrough's command. */
export function registerEvidenceView(
  context: vscode.ExtensionContext,
  deps: CommandDeps,
  teamSynced?: vscode.Event<void>,
): vscode.Event<void> {
  /** Fired when what is stored changed (the Savings view refreshes on it). */
  const onStored = new vscode.EventEmitter<void>();
  context.subscriptions.push(onStored);
  const store = async (): Promise<RunStoreApi | undefined> => (await deps.host.get().catch(() => undefined))?.reads;
  const live = new LiveRunBytes();
  const tree = new EvidenceTree(store, live);
  const view = vscode.window.createTreeView(Ids.views.runs, {
    treeDataProvider: tree,
    showCollapseAll: true,
    canSelectMany: true,
  });
  registerCompareWindows(context, deps);
  const status = vscode.window.createStatusBarItem('boundedEvidence.status', vscode.StatusBarAlignment.Left, 50);
  status.name = 'Bounded Evidence';
  status.command = Ids.commands.openInspector;
  const running = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Two O(1) reads of the catalog, never a listing. A failed read keeps the last true figures rather than "0 runs".
   */
  let lastTotals = '';
  const update = (): void => {
    timer ??= setTimeout(() => {
      timer = undefined;
      void (async () => {
        const s = await store();
        if (!s) return;
        try {
          const totals = await s.totals();
          const week = await s.usage({ sinceMs: Date.now() - 7 * 86_400_000 }).then(
            (r) => r.total,
            () => undefined,
          );
          const t = statusTexts(totals, week, running.size);
          status.text = t.text;
          status.tooltip = t.tooltip;
          status.accessibilityInformation = { label: t.label };
          status.show();
          const key = `${totals.runs}/${totals.calls ?? ''}/${totals.bytes}/${totals.teamRuns ?? ''}`;
          // A poll with nothing new costs two row reads.
          if (key !== lastTotals) {
            lastTotals = key;
            tree.refresh();
            onStored.fire();
          }
        } catch (e) {
          deps.log.error('status bar totals', e);
        }
      })();
    }, 500);
  };
  // Other processes record too and this one hears nothing of them: polled, so the item never stays at "0 runs" while
  // runs exist.
  const poll = setInterval(update, STATUS_POLL_MS);

  let subscription: vscode.Disposable | undefined;
  let progressSubscription: vscode.Disposable | undefined;
  let liveTimer: ReturnType<typeof setTimeout> | undefined;
  const liveRefresh = (): void => {
    liveTimer ??= setTimeout(() => {
      liveTimer = undefined;
      tree.refresh();
    }, LIVE_REFRESH_MS);
  };
  let storeWatch: { dispose(): void } | undefined;
  const subscribe = async (): Promise<void> => {
    subscription?.dispose();
    storeWatch?.dispose();
    storeWatch = undefined;
    running.clear();
    const services = await deps.host.get().catch(() => undefined);
    const s = services?.runs;
    live.clear();
    subscription = s?.onDidRecord((e) => {
      const { record } = e;
      if (record.type === 'call_started') running.add(`${record.runId}/${record.callId}`);
      else if (record.type === 'call_finished') running.delete(`${record.runId}/${record.callId}`);
      live.record(e);
      update();
    });
    progressSubscription?.dispose();
    progressSubscription = s?.onDidCaptureProgress((e) => {
      if (live.progress(e)) liveRefresh();
    });
    // Other processes record into the same folders.
    if (services?.layout) storeWatch = watchStore(services.layout, update);
    update();
  };
  void subscribe();

  const c = Ids.commands.view;
  const handleOf = (node: EvidenceNode | undefined): string | undefined =>
    node?.kind === 'output' ? node.handle : node?.kind === 'call' ? targetOfNode(node).handle : undefined;
  const runOf = (node: EvidenceNode | undefined): RunSummary | undefined =>
    node?.kind === 'run' ? node.run : undefined;
  context.subscriptions.push(
    tree,
    view,
    status,
    {
      dispose: () => {
        subscription?.dispose();
        progressSubscription?.dispose();
        storeWatch?.dispose();
        if (timer) clearTimeout(timer);
        if (liveTimer) clearTimeout(liveTimer);
        clearInterval(poll);
      },
    },
    deps.host.onDidChange(() => {
      void subscribe();
    }),
    // A team store's new runs: the tree and every reader of `onStored` (the inspector) read again.
    ...(teamSynced
      ? [
          teamSynced(() => {
            tree.refresh();
            onStored.fire();
          }),
        ]
      : []),
    vscode.commands.registerCommand(c.refresh, () => {
      tree.refresh();
      void vscode.commands.executeCommand(Ids.commands.refreshTeamEvidence);
    }),
    vscode.commands.registerCommand(c.showMore, () => tree.showMore()),
    vscode.commands.registerCommand(c.openInInspector, (node?: EvidenceNode) =>
      vscode.commands.executeCommand(Ids.commands.openInspector, node ? targetOfNode(node) : undefined),
    ),
    vscode.commands.registerCommand(c.copyHandle, async (node?: EvidenceNode) => {
      const handle = handleOf(node);
      if (!handle) return;
      await vscode.env.clipboard.writeText(handle);
      vscode.window.setStatusBarMessage(`Bounded Evidence: copied ${handle}`, 4000);
    }),
    vscode.commands.registerCommand(c.verify, (node?: EvidenceNode) => {
      const handle = handleOf(node);
      return handle ? vscode.commands.executeCommand(Ids.commands.verifyArtifact, { handle }) : undefined;
    }),
    vscode.commands.registerCommand(c.openInEditor, (node?: EvidenceNode) => {
      const handle = handleOf(node);
      return handle ? vscode.commands.executeCommand(Ids.commands.openArtifact, { handle }) : undefined;
    }),
    vscode.commands.registerCommand(c.pin, async (node?: EvidenceNode) => {
      const r = runOf(node);
      if (r) {
        await (await store())?.setPinned(r.runId, true);
        update();
      }
    }),
    vscode.commands.registerCommand(c.unpin, async (node?: EvidenceNode) => {
      const r = runOf(node);
      if (r) {
        await (await store())?.setPinned(r.runId, false);
        update();
      }
    }),
    vscode.commands.registerCommand(c.deleteRun, async (node?: EvidenceNode) => {
      const r = runOf(node);
      if (!r) return;
      const yes = 'Delete Run';
      const choice = await vscode.window.showWarningMessage(
        `Delete run ${r.label ?? r.runId} and its ${formatBytes(r.totalBytes)} of ` +
          `evidence? Its handles stop resolving.`,
        { modal: true },
        yes,
      );
      if (choice !== yes) return;
      await (await store())?.deleteRun(r.runId);
      update();
    }),
    // Compare (src/extension/documents/compareWindows.ts).
    vscode.commands.registerCommand(
      Ids.commands.compareOutputs,
      (node?: EvidenceNode | { left?: unknown; right?: unknown }, selected?: readonly EvidenceNode[]) => {
        if (node && 'left' in node) return compareWindows(deps, node);
        const chosen = selected ?? (node ? [node as EvidenceNode] : []);
        const outputs = chosen.flatMap((n) => (n.kind === 'output' ? [n.handle] : []));
        if (chosen.length > 0 && (outputs.length !== 2 || chosen.length !== 2)) {
          void vscode.window.showInformationMessage(
            'Bounded Evidence: select exactly two outputs in the Runs view ' +
              '(Ctrl/Cmd+click), then Compare Outputs; or run Compare Outputs from the ' +
              'palette to pick them.',
          );
          return undefined;
        }
        return compareWindows(deps, undefined, outputs);
      },
    ),
    vscode.commands.registerCommand(
      Ids.commands.exportOutput,
      (node?: EvidenceNode | { handle?: unknown; path?: unknown }) =>
        exportOutputCommand(deps, node && 'kind' in node ? { handle: handleOf(node) } : node),
    ),
    vscode.commands.registerCommand(Ids.commands.importAsEvidence, (uri?: vscode.Uri) => importFile(deps, uri)),
    // The walkthrough's demo build log, run like any captured command.
    vscode.commands.registerCommand(Ids.commands.captureDemo, () =>
      runCommandAndCapture(deps, {
        command: `node ${shellWord(path.join(deps.extensionPath, 'demo', 'build-log.js'))}`,
        // No install path in the label.
        label: 'node build-log.js (the demo build)',
      }),
    ),
  );
  return onStored.event;
}
