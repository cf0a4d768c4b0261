import * as assert from 'node:assert/strict';
import type { WebviewToHost } from '../../../src/shared/protocol.js';
import { HostError, RpcClient } from '../../../webview/rpc.js';

describe('webview rpc: replies typed by request kind', () => {
  function client(): { rpc: RpcClient; sent: WebviewToHost[] } {
    const sent: WebviewToHost[] = [];
    return {
      rpc: new RpcClient({ postMessage: (m) => sent.push(m), getState: () => undefined, setState: () => undefined }),
      sent,
    };
  }

  it('resolves a request with the reply of its kind, matched by id', async () => {
    const { rpc, sent } = client();
    const pending = rpc.request({ type: 'fetchBytes', handle: 'h', start: 0, end: 4, snap: false });
    assert.deepEqual(sent, [{ type: 'fetchBytes', handle: 'h', start: 0, end: 4, snap: false, id: 1 }]);
    const window = { type: 'window', id: 1, window: { handle: 'h' } } as never;
    assert.equal(rpc.settle(window), true);
    // Typed as WindowReply: `.window` needs no check of `type` first.
    assert.equal((await pending).window.handle, 'h');
  });

  it('rejects an error reply with its sentence, and a reply of another kind as a host error', async () => {
    const { rpc } = client();
    const failed = rpc.request({ type: 'verify', handle: 'h' });
    rpc.settle({ type: 'error', id: 1, message: 'access denied: unknown or expired handle' });
    await assert.rejects(
      failed,
      (e: Error) => e instanceof HostError && e.message === 'access denied: unknown or expired handle',
    );
    const mismatched = rpc.request({ type: 'verify', handle: 'h' });
    rpc.settle({ type: 'done', id: 2, message: 'copied' });
    await assert.rejects(
      mismatched,
      (e: Error) => e instanceof HostError && e.message === 'the host answered done to a request expecting verified',
    );
    assert.equal(rpc.settle({ type: 'done', id: 2, message: 'late' }), false, 'a settled id is not settled twice');
  });
});
