import type { PartRef } from '../src/shared/protocol.js';

/**
 * The part to load again when calls finish: the selection, when its call is the one shown and has finished. The
 * selection, not what is shown: a newer selection of that call (a reveal of its stdout) may still be loading, and
 * loading the shown part would overwrite it. Undefined when the selection moved to another call (its load wins).
 */
export function finishedDetail(
  shown: PartRef | undefined,
  selected: PartRef | undefined,
  changed: readonly { readonly runId: string; readonly callId: string; readonly status: string }[],
): PartRef | undefined {
  const want = selected ?? shown;
  if (!shown || !want || want.runId !== shown.runId || want.callId !== shown.callId) return undefined;
  return changed.some((c) => c.runId === want.runId && c.callId === want.callId && c.status !== 'running')
    ? want
    : undefined;
}
