/**
 * Requests to the host with ids, and their replies matched back by id. The host answers
 * every request (a reply of its own type, or `error`), so each promise settles; a reply
 * that arrives for a request nobody waits for any more is dropped. A request's promise is
 * typed by its kind (`ReplyTo` in the protocol), and a reply of another kind rejects, so
 * callers need not re-check `type`.
 */
import type { HostToWebview, ReplyTo, WebviewRequest, WebviewToHost } from '../src/shared/protocol.js';

/** The part of `acquireVsCodeApi()` the panel uses. */
export interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** A request without its id (the client assigns one). */
export type RequestBody = WebviewRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** Reply to a request: anything the host sends with an id, except the unrequested kinds. */
export type Reply = Exclude<Extract<HostToWebview, { id: number | null }>, { id: null }>;

/** The reply kind of each request kind, at run time (checked against `ReplyTo` by the compiler). */
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

/** An error reply, thrown by `request`. */
export class HostError extends Error {}

/** Sends requests and settles them with the host's replies. */
export class RpcClient {
  private next = 1;
  private readonly waiting = new Map<
    number,
    { expected: Reply['type']; resolve(r: Reply): void; reject(e: Error): void }
  >();

  constructor(private readonly api: VsCodeApi) {}

  /**
   * Sends a request; resolves with its reply, rejects with `HostError` on an error reply or a reply of another kind.
   */
  request<B extends RequestBody>(body: B): Promise<ReplyTo<B['type']>> {
    const id = this.next++;
    return new Promise<ReplyTo<B['type']>>((resolve, reject) => {
      this.waiting.set(id, { expected: REPLY_KIND[body.type], resolve: resolve as (r: Reply) => void, reject });
      this.api.postMessage({ ...body, id } as WebviewToHost);
    });
  }

  /** The id the next `request` will carry (a search names it in its progress and its Cancel). */
  peekNextId(): number {
    return this.next;
  }

  /** Sends a message that expects no reply. */
  send(message: Extract<WebviewToHost, { type: 'cancelSearch' }>): void {
    this.api.postMessage(message);
  }

  /** Offers a host message; true when it settled a pending request. */
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
