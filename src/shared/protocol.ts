/**
 * Messages between the inspector webview and the host: the webview imports this file for checking, never at run time,
 * and the host validates every incoming message (src/extension/inspector/validate.ts), as a webview is untrusted.
 */
export type * from './protocolData.js';
export type * from './webviewToHost.js';
export type * from './hostToWebview.js';
