/** Callers may pass anything (docs/contracts.md §3.4, "Links"). Pure: no `vscode`. */
import type { TargetDto } from '../../shared/protocol.js';
import type { InspectorTarget } from '../ids.js';
import { inspectorLimits } from './validate.js';

/** A window needs a handle, and is capped to what one panel window may hold. */
export function targetOf(arg: unknown): TargetDto | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as InspectorTarget;
  const ok = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 256;
  const window = ok(a.handle) ? windowOf(a.window) : undefined;
  const t: TargetDto = {
    ...(ok(a.runId) ? { runId: a.runId } : {}),
    ...(ok(a.handle) ? { handle: a.handle } : {}),
    ...(window ? { window } : {}),
  };
  return t.runId || t.handle ? t : undefined;
}

function windowOf(w: unknown): TargetDto['window'] {
  if (typeof w !== 'object' || w === null) return undefined;
  const { kind, offset, count, start, end } = w as Record<string, unknown>;
  const natural = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (kind === 'lines' && natural(offset) && natural(count) && count >= 1)
    return { kind, offset, count: Math.min(count, inspectorLimits.maxLines) };
  if (kind === 'bytes' && natural(start) && natural(end) && end > start)
    return { kind, start, end: Math.min(end, start + inspectorLimits.maxWindowBytes) };
  return undefined;
}
