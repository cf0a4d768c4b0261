/**
 * One stdio connection, both protocol revisions, decided per message (docs/contracts.md §4): the SDK's
 * `serveStdio` pins a connection to the revision of its first request, so one request without the 2026-07-28
 * envelope turned every later enveloped request into a 2025 answer. Here the wire is split in two: a message
 * carrying the envelope's protocol version goes to a connection served as 2026-07-28, any other to one served as
 * 2025-11-25, and each answers on the same wire. A claim of a revision this server does not serve is answered
 * here, on every request, with the SDK's unsupported-version error.
 */
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  UnsupportedProtocolVersionError,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';

/** The envelope revisions this server serves (its `server/discover` answer's `supportedVersions`). */
const MODERN_REVISIONS = ['2026-07-28'];

type Era = 'modern' | 'legacy';
type Id = string | number;

/** The envelope's protocol version claim of a message: absent, or its value (any type: the modern side checks it). */
function claimOf(message: JSONRPCMessage): { claimed: boolean; version?: unknown } {
  const meta = (message as { params?: { _meta?: unknown } }).params?._meta;
  if (typeof meta !== 'object' || meta === null || !(PROTOCOL_VERSION_META_KEY in meta)) return { claimed: false };
  return { claimed: true, version: (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY] };
}

const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: Id } =>
  'id' in m && !('method' in m) && ('result' in m || 'error' in m);

/**
 * Two transports over `wire`, one per revision, for two `serveStdio` connections. Starting either starts the wire;
 * closing either closes it; the wire's end ends both.
 */
export function splitByEra(wire: Transport): Record<Era, Transport> {
  /** Who answers each request in flight (by the client's id), so its cancellation reaches the same side. */
  const asked = new Map<Id, Era>();
  /** Which side sent each of its own requests to the client, so the client's answer reaches it. */
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
