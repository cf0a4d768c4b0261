/**
 * Messages between the Evidence Inspector webview and the extension host, both ways:
 * discriminated unions on `type`. Requests carry a numeric `id` and their reply names
 * it; the webview says `ready` before the host posts anything. Types only: the webview
 * imports this file for checking, never at run time, and the host validates every
 * incoming message (src/extension/inspector/validate.ts) because a webview is untrusted.
 */
export type * from './protocolData.js';
export type * from './webviewToHost.js';
export type * from './hostToWebview.js';
