/**
 * The SDK pins a stdio connection to the revision of its first request; here each message goes to the side of the
 * revision it claims (docs/contracts.md §4), and an unsupported claim gets the SDK's error.
 */
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  UnsupportedProtocolVersionError,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';

const MODERN_REVISIONS = ['2026-07-28'];

type Era = 'modern' | 'legacy';
type Id = string | number;

/** Any type: the modern side checks it. */
function claimOf(message: JSONRPCMessage): { claimed: boolean; version?: unknown } {
  const meta = (message as { params?: { _meta?: unknown } }).params?._meta;
  if (typeof meta !== 'object' || meta === null || !(PROTOCOL_VERSION_META_KEY in meta)) return { claimed: false };
  return { claimed: true, version: (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY] };
}

const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: Id } =>
  'id' in m && !('method' in m) && ('result' in m || 'error' in m);

export function splitByEra(wire: Transport): Record<Era, Transport> {
  /** So a cancellation reaches the side answering the request. */
  const asked = new Map<Id, Era>();
  const askedClient = new Map<Id, Era>();
  let started: Promise<void> | undefined;
  const side = (era: Era): Transport => ({
    start: () => (started ??= wire.start()),
    send: (message, options) => {
      if (isResponse(message)) asked.delete(message.id);
      else if (isJSONRPCRequest(message)) askedClient.set(message.id, era);
      return wire.send(message, options);
    },
    close: () => wire.close(),
  });
  const sides: Record<Era, Transport> = { modern: side('modern'), legacy: side('legacy') };
  const eraOf = (message: JSONRPCMessage): Era => (claimOf(message).claimed ? 'modern' : 'legacy');
  wire.onmessage = (message, extra) => {
    let era: Era;
    if (isJSONRPCRequest(message)) {
      const { claimed, version } = claimOf(message);
      if (claimed && typeof version === 'string' && !MODERN_REVISIONS.includes(version)) {
        const e = new UnsupportedProtocolVersionError({ supported: MODERN_REVISIONS, requested: version });
        void wire
          .send({ jsonrpc: '2.0', id: message.id, error: { code: e.code, message: e.message, data: e.data } })
          .catch(() => undefined);
        return;
      }
      era = eraOf(message);
      asked.set(message.id, era);
    } else if (isJSONRPCNotification(message)) {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      const owner = message.method === 'notifications/cancelled' ? asked.get(id as Id) : undefined;
      era = owner ?? eraOf(message);
    } else if (isResponse(message)) {
      era = askedClient.get(message.id) ?? 'legacy';
      askedClient.delete(message.id);
    } else {
      era = 'legacy';
    }
    sides[era].onmessage?.(message, extra);
  };
  // Told once: both sides report to the same log.
  wire.onerror = (e) => sides.legacy.onerror?.(e);
  wire.onclose = () => {
    sides.modern.onclose?.();
    sides.legacy.onclose?.();
  };
  return sides;
}
