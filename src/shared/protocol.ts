/** Messages between the inspector webview and the extension host (placeholder). */
export type WebviewToHost = { /** The page has loaded and listens. */ type: 'ready' };
