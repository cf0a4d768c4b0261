/**
 * The host answers every request, so each promise settles; a reply of another kind than `ReplyTo` says rejects, so
 * callers need not re-check `type`.
 */
import type { HostToWebview, ReplyTo, WebviewRequest, WebviewToHost } from '../src/shared/protocol.js';

export interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}

export type RequestBody = WebviewRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export type Reply = Exclude<Extract<HostToWebview, { id: number | null }>, { id: null }>;

/** Checked against `ReplyTo` by the compiler. */
const REPLY_KIND: { readonly [K in RequestBody['type']]: ReplyTo<K>['type'] } = {
  refresh: 'done',
  page: 'page',
  pickRuns: 'runs',
  locate: 'located',
  detail: 'detail',
  fetchBytes: 'window',
  fetchLines: 'window',
  findPattern: 'matches',
  copyText: 'done',
  startAction: 'done',
  copyExcerpt: 'done',
  sendToChat: 'done',
  saveExcerpt: 'done',
  verify: 'verified',
  openInEditor: 'done',
  compareWindows: 'done',
  searchOutputs: 'searchResults',
};

export class HostError extends Error {}

export class RpcClient {
  private next = 1;
  private readonly waiting = new Map<
    number,
    { expected: Reply['type']; resolve(r: Reply): void; reject(e: Error): void }
  >();

  constructor(private readonly api: VsCodeApi) {}

  request<B extends RequestBody>(body: B): Promise<ReplyTo<B['type']>> {
    const id = this.next++;
    return new Promise<ReplyTo<B['type']>>((resolve, reject) => {
      this.waiting.set(id, { expected: REPLY_KIND[body.type], resolve: resolve as (r: Reply) => void, reject });
      this.api.postMessage({ ...body, id } as WebviewToHost);
    });
  }

  /** A search names it in its progress and its Cancel. */
  peekNextId(): number {
    return this.next;
  }

  send(message: Extract<WebviewToHost, { type: 'cancelSearch' | 'read' }>): void {
    this.api.postMessage(message);
  }

  settle(msg: HostToWebview): boolean {
    if (!('id' in msg) || msg.id === null) return false;
    const w = this.waiting.get(msg.id);
    if (!w) return false;
    this.waiting.delete(msg.id);
    if (msg.type === 'error') w.reject(new HostError(msg.message));
    else if (msg.type !== w.expected)
      w.reject(new HostError(`the host answered ${msg.type} to a request expecting ${w.expected}`));
    else w.resolve(msg as Reply);
    return true;
  }
}
