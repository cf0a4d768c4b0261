/** Inspector webview entry: runs in the browser, talks to the host by messages only. */
declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const vscodeApi = acquireVsCodeApi();
vscodeApi.postMessage({ type: 'ready' });
