/**
 * The Evidence Inspector webview panel: host side. The page is built with a strict CSP
 * (`default-src 'none'`, nonce-only scripts) and may load only from dist/ and media/.
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { Ids } from '../ids.js';
import type { InspectorDeps } from './deps.js';

export type { InspectorDeps } from './deps.js';

/** Registers the Open Inspector command (and, as it lands, the panel serializer). */
export function registerInspector(context: vscode.ExtensionContext, _deps?: InspectorDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Ids.commands.openInspector, () => openInspector(context)),
  );
}

function openInspector(context: vscode.ExtensionContext): vscode.WebviewPanel {
  const roots = [vscode.Uri.joinPath(context.extensionUri, 'dist'), vscode.Uri.joinPath(context.extensionUri, 'media')];
  const panel = vscode.window.createWebviewPanel(Ids.views.inspectorPanel, 'Evidence Inspector', vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: roots,
    retainContextWhenHidden: false,
  });
  panel.webview.html = renderHtml(panel.webview, context.extensionUri);
  return panel;
}

function renderHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Evidence Inspector</title>
</head>
<body>
<h1 id="heading">Evidence Inspector</h1>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
