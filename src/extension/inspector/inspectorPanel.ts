/**
 * The Evidence Inspector panel's host side: a strict CSP, and assets only from dist/ and media/, never the evidence
 * storage, whose bytes reach the page only as verified range replies.
 */
import * as vscode from 'vscode';
import { EvidenceError } from '../../core/index.js';
import type { CompareSideDto, InspectorViewState, TargetDto } from '../../shared/protocol.js';
import type { ComparedWindows } from '../documents/compareWindows.js';
import { saveExcerptAsCommand, type SavedExcerpt } from '../documents/saveExcerpt.js';
import { Ids, type ArtifactPosition } from '../ids.js';
import { InspectorController } from './controller.js';
import type { InspectorActions, InspectorLog } from './controllerOptions.js';
import type { InspectorDeps } from './deps.js';
import { targetOf } from './target.js';
import { webviewHtml } from '../webviewHtml.js';

export type { InspectorDeps } from './deps.js';

/** Fills the input without sending. */
const chatOpenCommand = 'workbench.action.chat.open';

export function registerInspector(context: vscode.ExtensionContext, deps?: InspectorDeps): void {
  const panels = new InspectorPanels(context, deps);
  context.subscriptions.push(
    panels,
    // Returns the target as checked (what the panel was asked to show), for callers and tests.
    // `{ preserveFocus: true }` as a second argument: a followed run never takes the keyboard from a person.
    vscode.commands.registerCommand(Ids.commands.openInspector, (target?: unknown, opts?: unknown) => {
      const t = targetOf(target);
      panels.open(t, (opts as { preserveFocus?: unknown } | undefined)?.preserveFocus === true);
      return t;
    }),
    vscode.window.registerWebviewPanelSerializer(Ids.views.inspectorPanel, {
      deserializeWebviewPanel: async (panel: vscode.WebviewPanel, state: unknown) => {
        panels.restore(panel, state as InspectorViewState | undefined);
      },
    }),
  );
  if (deps?.onDidChangeStore) context.subscriptions.push(deps.onDidChangeStore(() => panels.storeChanged()));
  if (deps?.onDidStore) context.subscriptions.push(deps.onDidStore(() => panels.storedChanged()));
}

const silentLog: InspectorLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** State lives here, not at module level. */
class InspectorPanels implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private controller: InspectorController | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly deps: InspectorDeps | undefined,
  ) {}

  /** Opens the panel, or reveals it and selects the target. */
  open(target: TargetDto | undefined, preserveFocus = false): void {
    if (this.panel && this.controller) {
      this.panel.reveal(undefined, preserveFocus);
      if (target) this.controller.reveal(target);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      Ids.views.inspectorPanel,
      'Evidence Inspector',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus },
      this.options(),
    );
    this.attach(panel, target);
  }

  /** The page restores its own state. */
  restore(panel: vscode.WebviewPanel, _state: InspectorViewState | undefined): void {
    if (this.panel) {
      panel.dispose();
      this.panel.reveal();
      return;
    }
    panel.webview.options = this.options();
    this.attach(panel, undefined);
  }

  storeChanged(): void {
    void this.controller?.storeChanged();
  }

  storedChanged(): void {
    this.controller?.storedChanged();
  }

  dispose(): void {
    this.controller?.dispose();
    this.panel?.dispose();
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableFindWidget: true,
      // Only the extension's own built assets: never the storage folder.
      localResourceRoots: [
        vscode.Uri.joinPath(this.context.extensionUri, 'dist'),
        vscode.Uri.joinPath(this.context.extensionUri, 'media'),
      ],
      // State survives hiding through the page's setState; no hidden page kept alive.
      retainContextWhenHidden: false,
    };
  }

  private attach(panel: vscode.WebviewPanel, target: TargetDto | undefined): void {
    const log = this.deps?.log ?? silentLog;
    const controller = new InspectorController({
      store: () => this.deps?.runs(),
      post: (m) => panel.webview.postMessage(m),
      actions: this.actions(log),
      log,
      uriScheme: vscode.env.uriScheme,
      // In a browser workbench the editor's own scheme opens nothing: the served workbench's callback URL does.
      ...(vscode.env.uiKind === vscode.UIKind.Web
        ? {
            externalLink: async (link: string) =>
              (await vscode.env.asExternalUri(vscode.Uri.parse(link, true))).toString(true),
          }
        : {}),
      ...(target ? { target } : {}),
    });
    this.panel = panel;
    this.controller = controller;
    const subs = [
      panel.webview.onDidReceiveMessage((m: unknown) => controller.receive(m)),
      // A hidden page is torn down; it says `ready` when shown again.
      panel.onDidChangeViewState((e) => {
        if (!e.webviewPanel.visible) controller.webviewGone();
      }),
    ];
    panel.onDidDispose(() => {
      controller.dispose();
      for (const s of subs) s.dispose();
      if (this.panel === panel) {
        this.panel = undefined;
        this.controller = undefined;
      }
    });
    panel.webview.html = renderHtml(panel.webview, this.context.extensionUri);
  }

  private actions(log: InspectorLog): InspectorActions {
    return {
      writeClipboard: async (text) => {
        await vscode.env.clipboard.writeText(text);
      },
      sendToChat: async (text) => {
        const commands = await vscode.commands.getCommands(true);
        if (commands.includes(chatOpenCommand)) {
          try {
            await vscode.commands.executeCommand(chatOpenCommand, { query: text, isPartialQuery: true });
            return 'chat';
          } catch (e) {
            log.warn(
              `inspector: the chat input could not be filled ` +
                `(${e instanceof Error ? e.message : String(e)}); copying instead`,
            );
          }
        }
        await vscode.env.clipboard.writeText(text);
        void vscode.window.showInformationMessage(
          'Bounded Evidence: the chat input is not available in this window, so the ' +
            'excerpt was copied to the clipboard. Paste it into any chat.',
        );
        return 'clipboard';
      },
      personRead: () => void vscode.commands.executeCommand('setContext', Ids.readContext, true),
      startAction: (action) => {
        // The page names an action; the host maps it to a command id (a page never names commands).
        const command = {
          runCommandAndCapture: Ids.commands.runCommandAndCapture,
          importFile: Ids.commands.importFile,
          captureDemo: 'boundedEvidence.captureDemo',
        }[action];
        void Promise.resolve(vscode.commands.executeCommand(command)).then(undefined, (e: unknown) =>
          log.warn(`inspector: ${action} failed: ${e instanceof Error ? e.message : String(e)}`),
        );
      },
      saveExcerpt: async (handle, range) => {
        const window =
          range.kind === 'bytes'
            ? { bytes: { start: range.start, end: range.end } }
            : { lines: { first: range.offset + 1, last: range.offset + range.count } };
        const r = await vscode.commands.executeCommand<SavedExcerpt | undefined>(saveExcerptAsCommand, {
          handle,
          ...window,
        });
        return r
          ? `Saved ${r.byteCount.toLocaleString('en-US')} bytes ` +
              `to ${vscode.workspace.asRelativePath(r.path)}, ` +
              `with ${vscode.workspace.asRelativePath(r.provenancePath)} beside it.`
          : undefined;
      },
      compareWindows: async (left, right, panelWidth) => {
        const side = (s: CompareSideDto): object => ({ handle: s.handle, bytes: { start: s.start, end: s.end } });
        // A narrower panel split in two squeezed its actions into four rows, so the diff is then a tab of the panel's
        // group.
        const beside = (panelWidth ?? 0) >= compareBesideMinWidth;
        const r = await vscode.commands.executeCommand<ComparedWindows | undefined>(Ids.commands.compareOutputs, {
          left: side(left),
          right: side(right),
          beside,
        });
        // The command said what was wrong in its own message; the panel says it next to the button.
        if (!r) throw new EvidenceError('invalidArgument', 'these windows could not be compared');
        return (
          `Comparing ${r.left.handle} ${r.left.label} ` +
          `with ${r.right.handle} ${r.right.label} in the diff ` +
          `editor${beside ? '' : ' (a tab of this group: the inspector is the tab beside it)'}.`
        );
      },
      openArtifact: async (handle, byteOffset) => {
        const commands = await vscode.commands.getCommands(true);
        if (!commands.includes(Ids.commands.openArtifact))
          throw new EvidenceError('missing', 'opening artifacts in the editor is not available in this window');
        const position: ArtifactPosition = { handle, byteOffset };
        await vscode.commands.executeCommand(Ids.commands.openArtifact, position);
      },
    };
  }
}

const compareBesideMinWidth = 1400;

function renderHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webviewHtml(webview, extensionUri, {
    title: 'Evidence Inspector',
    styles: [{ path: ['dist', 'codicon.css'], id: 'vscode-codicon-stylesheet' }, { path: ['media', 'inspector.css'] }],
    script: ['dist', 'webview.js'],
    body: '<h1 id="heading">Evidence Inspector</h1>',
    allow: ['font-src'],
  });
}
