/**
 * The one page shell of our webviews: a strict CSP with a fresh nonce, assets only from the extension's folder, no
 * inline style or script (docs/contracts.md §3.4 Security). Nothing of tool output is ever part of this HTML.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface WebviewPage {
  readonly title: string;
  readonly styles: readonly { readonly path: readonly string[]; readonly id?: string }[];
  readonly script: readonly string[];
  /** Ours only, never output text. */
  readonly body: string;
  readonly allow?: readonly ('font-src' | 'img-src')[];
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (p: readonly string[]): string =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  // Component styles are constructable stylesheets, which style-src does not govern. No 'unsafe-inline'.
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
