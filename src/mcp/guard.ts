/** The one protocol answer given before the SDK sees a message, on stdio and HTTP alike (docs/contracts.md §4). */
import { ProtocolErrorCode, type Transport } from '@modelcontextprotocol/server';

/** Far above any request of these tools, far below what the SDK's recursive checks survive. */
const MAX_MESSAGE_DEPTH = 64;

/** Counted without recursion, so any depth is measured safely. */
export function nestedDeeperThan(value: unknown, limit = MAX_MESSAGE_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

export function tooDeep(id: unknown): {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
} {
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: {
      code: ProtocolErrorCode.InvalidRequest,
      message: `Invalid Request: the message is nested more than ${MAX_MESSAGE_DEPTH} deep`,
    },
  };
}

export function refuseNonObjectArguments(
  message: unknown,
): { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string } } | undefined {
  const m = message as { id?: unknown; method?: unknown; params?: { arguments?: unknown } } | null;
  const args = m?.params?.arguments;
  if (
    m?.method === 'tools/call' &&
    (typeof m.id === 'string' || typeof m.id === 'number') &&
    args !== undefined &&
    (typeof args !== 'object' || args === null || Array.isArray(args))
  ) {
    return {
      jsonrpc: '2.0',
      id: m.id,
      error: { code: ProtocolErrorCode.InvalidParams, message: 'arguments must be an object' },
    };
  }
  return undefined;
}

/** Answered before the SDK's schema check turns it into a multi-line validation dump (docs/contracts.md §4). */
export function guardToolArguments(inner: Transport, onclose: () => void = () => undefined): Transport {
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
  };
  inner.onmessage = (message, extra) => {
    const refusal = refuseNonObjectArguments(message);
    if (refusal) {
      void inner.send(refusal).catch(() => undefined);
      return;
    }
    outer.onmessage?.(message, extra);
  };
  inner.onerror = (e) => outer.onerror?.(e);
  inner.onclose = () => {
    outer.onclose?.();
    onclose();
  };
  return outer;
}
