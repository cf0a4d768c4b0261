/**
 * The Savings view (docs/contracts.md §3.4, "Savings"). The page builds its DOM from the report, never from markup,
 * and every message it sends is validated here before anything is read.
 */
import * as vscode from 'vscode';
import type { RunStoreApi } from '../../core/index.js';
import type { SavingsHostToPage, SavingsRange } from '../../shared/savingsProtocol.js';
import { parseSavingsMessage, savingsReport } from './savingsMessages.js';
import { webviewHtml } from '../webviewHtml.js';
import { Ids } from '../ids.js';

const SAVINGS_VIEW_ID = Ids.views.savings;

class SavingsView implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private days: SavingsRange = 7;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: () => Promise<RunStoreApi | undefined>,
    private readonly log: (m: string, e: unknown) => void,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [
        vscode.Uri.joinPath(this.extensionUri, 'dist'),
        vscode.Uri.joinPath(this.extensionUri, 'media'),
      ],
    };
    view.webview.html = renderHtml(view.webview, this.extensionUri);
    view.webview.onDidReceiveMessage((m: unknown) => {
      const parsed = parseSavingsMessage(m);
      if (!parsed.ok) {
        void this.post({ type: 'error', message: `the view sent a bad message: ${parsed.error}` });
        return;
      }
      if (parsed.message.type === 'range') this.days = parsed.message.days;
      void this.refresh();
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) void this.refresh();
    });
    view.onDidDispose(() => {
      this.view = undefined;
    });
  }

  async refresh(): Promise<void> {
    const view = this.view;
    if (!view?.visible) return;
    const runs = await this.store();
    if (!runs) {
      await this.post({ type: 'error', message: 'The evidence storage is not open.' });
      return;
    }
    try {
      await this.post(await savingsReport(runs, this.days));
    } catch (e) {
      this.log('savings report', e);
      await this.post({ type: 'error', message: 'The savings could not be read from the catalog; try again.' });
    }
  }

  private async post(m: SavingsHostToPage): Promise<void> {
    await this.view?.webview.postMessage(m);
  }
}

function renderHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webviewHtml(webview, extensionUri, {
    title: 'Savings',
    styles: [{ path: ['media', 'savings.css'] }],
    script: ['dist', 'savings.js'],
    body:
      '<main id="savings" aria-busy="true"><h2 id="heading">Savings</h2><p ' +
      'id="status" role="status">Reading the catalog…</p></main>',
    allow: ['img-src'],
  });
}

/** `changed` fires when what is stored changed. */
export function registerSavingsView(
  context: vscode.ExtensionContext,
  store: () => Promise<RunStoreApi | undefined>,
  changed: vscode.Event<void>,
  log: (m: string, e: unknown) => void,
): void {
  const view = new SavingsView(context.extensionUri, store, log);
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(SAVINGS_VIEW_ID, view),
    changed(() => {
      void view.refresh();
    }),
  );
}
