/**
 * The one page shell of our webviews (the Evidence Inspector panel and the Savings view):
 * a strict CSP with a fresh nonce per render, assets only from the extension's own folder,
 * and no inline style or script (docs/contracts.md §3.4 Security). Each view names its
 * assets and its static body; nothing of tool output is ever part of this HTML.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface WebviewPage {
  /** The document title. */
  readonly title: string;
  /** Stylesheets, as paths under the extension folder (`['media', 'inspector.css']`), with an optional element id. */
  readonly styles: readonly { readonly path: readonly string[]; readonly id?: string }[];
  /** The page's script, a path under the extension folder. */
  readonly script: readonly string[];
  /** Static markup the script takes over (ours only, never output text). */
  readonly body: string;
  /** Extra source kinds the page loads from the extension folder (the inspector's codicon font). */
  readonly allow?: readonly ('font-src' | 'img-src')[];
}

/** The page's HTML for `webview`, ready to assign to `webview.html`. */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (p: readonly string[]): string =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  // Component styles are constructable stylesheets (adoptedStyleSheets), which style-src
  // does not govern; every other style is a file under dist/ or media/. No 'unsafe-inline'.
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    ...(page.allow ?? []).map((kind) => `${kind} ${webview.cspSource}`),
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const styles = page.styles
    .map((s) => `<link rel="stylesheet" href="${asset(s.path)}"${s.id ? ` id="${s.id}"` : ''}>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}
<title>${page.title}</title>
</head>
<body>
${page.body}
<script nonce="${nonce}" src="${asset(page.script)}"></script>
</body>
</html>`;
}
