/**
 * A webview is untrusted (it shows tool output), so each message is checked before the host acts; a bad one becomes
 * an error reply, never an exception. Pure: no `vscode`.
 */
import { isRecord } from '../../core/index.js';
import type {
  ExcerptRangeDto,
  InspectorLimitsDto,
  ListQueryDto,
  PartRef,
  WebviewToHost,
} from '../../shared/protocol.js';

/** Mirror docs/contracts.md §2.5; the byte window is the panel's own (§3.4). */
export const inspectorLimits: InspectorLimitsDto = {
  maxWindowBytes: 64 * 1024,
  maxLines: 1000,
  maxMatches: 1000,
  maxPatternChars: 1024,
  maxHandleChars: 256,
  maxSearchMatches: 100,
};

/** Never tool output. */
const maxCopyTextChars = 1024;
const maxIdChars = 256;
/** The catalog's own cap (docs/contracts.md §2.12). */
const maxPageCalls = 1000;
const maxPickRuns = 200;
const maxFilterChars = 1024;
const sourceKinds = ['tool', 'participant', 'hook', 'cli', 'mcp', 'command', 'api'];

const maxProblemChars = 2000;

export type ParseResult =
  | { readonly ok: true; readonly message: WebviewToHost }
  | { readonly ok: false; readonly id: number | null; readonly error: string };

class Invalid extends Error {}

type Obj = Record<string, unknown>;

/** An unexpected key is a malformed message, not ignored. */
function keys(m: Obj, allowed: readonly string[]): void {
  for (const k of Object.keys(m)) {
    if (k !== 'type' && !allowed.includes(k)) throw new Invalid(`unexpected field "${k.slice(0, 40)}"`);
  }
}

function str(m: Obj, k: string, min: number, max: number): string {
  const v = m[k];
  if (typeof v !== 'string') throw new Invalid(`"${k}" must be a string`);
  if (v.length < min || v.length > max) throw new Invalid(`"${k}" must be ${min}–${max} characters`);
  return v;
}

function int(m: Obj, k: string, min: number, max: number = Number.MAX_SAFE_INTEGER): number {
  const v = m[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Invalid(`"${k}" must be a safe integer`);
  if (v < min || v > max) throw new Invalid(`"${k}" must be between ${min} and ${max}`);
  return v;
}

function bool(m: Obj, k: string): boolean {
  const v = m[k];
  if (typeof v !== 'boolean') throw new Invalid(`"${k}" must be a boolean`);
  return v;
}

function obj(m: Obj, k: string): Obj {
  const v = m[k];
  if (!isRecord(v)) throw new Invalid(`"${k}" must be an object`);
  return v;
}

function handle(m: Obj, limits: InspectorLimitsDto): string {
  return str(m, 'handle', 1, limits.maxHandleChars);
}

/** docs/contracts.md §1.3 order: size first. */
function byteWindow(m: Obj, limits: InspectorLimitsDto): { start: number; end: number } {
  const start = int(m, 'start', 0);
  const end = int(m, 'end', 0);
  if (end - start > limits.maxWindowBytes)
    throw new Invalid(`a window may cover at most ${limits.maxWindowBytes} bytes`);
  if (!(start < end)) throw new Invalid('a byte window must satisfy 0 <= start < end');
  return { start, end };
}

function partRef(m: Obj): PartRef {
  const r = obj(m, 'ref');
  keys(r, ['runId', 'callId', 'part']);
  return {
    runId: str(r, 'runId', 1, maxIdChars),
    callId: str(r, 'callId', 1, maxIdChars),
    part: str(r, 'part', 1, maxIdChars),
  };
}

function excerptRange(m: Obj, limits: InspectorLimitsDto): ExcerptRangeDto {
  const r = obj(m, 'range');
  if (r.kind === 'bytes') {
    keys(r, ['kind', 'start', 'end']);
    return { kind: 'bytes', ...byteWindow(r, limits) };
  }
  if (r.kind === 'lines') {
    keys(r, ['kind', 'offset', 'count']);
    return { kind: 'lines', offset: int(r, 'offset', 0), count: int(r, 'count', 1, limits.maxLines) };
  }
  throw new Invalid('"range.kind" must be "bytes" or "lines"');
}

function optionalStr(m: Obj, k: string, min: number, max: number): string | undefined {
  return m[k] === undefined ? undefined : str(m, k, min, max);
}

function listQuery(m: Obj): ListQueryDto {
  const q = obj(m, 'query');
  keys(q, ['order', 'tool', 'run', 'outcome', 'source', 'text']);
  if (q.order !== 'newest' && q.order !== 'largest') throw new Invalid('"query.order" must be "newest" or "largest"');
  if (q.outcome !== undefined && q.outcome !== 'ok' && q.outcome !== 'failed' && q.outcome !== 'running')
    throw new Invalid('"query.outcome" must be "ok", "failed" or "running"');
  const source = optionalStr(q, 'source', 1, maxIdChars);
  if (
    source !== undefined &&
    !sourceKinds.includes(source.startsWith('hook:') ? 'hook' : source) &&
    !/^team:[A-Za-z0-9._-]{1,64}$/.test(source)
  )
    throw new Invalid('"query.source" is not a known source');
  const tool = optionalStr(q, 'tool', 1, maxIdChars);
  const run = optionalStr(q, 'run', 1, maxIdChars);
  const text = optionalStr(q, 'text', 1, maxFilterChars);
  return {
    order: q.order,
    ...(tool !== undefined ? { tool } : {}),
    ...(run !== undefined ? { run } : {}),
    ...(q.outcome !== undefined ? { outcome: q.outcome } : {}),
    ...(source !== undefined ? { source } : {}),
    ...(text !== undefined ? { text } : {}),
  };
}

/** So a bad message can still be answered by id. */
function idOf(m: Obj): number | null {
  const v = m.id;
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

export function parseWebviewMessage(raw: unknown, limits: InspectorLimitsDto = inspectorLimits): ParseResult {
  if (!isRecord(raw)) return { ok: false, id: null, error: 'not an object' };
  const id = idOf(raw);
  try {
    return { ok: true, message: parseKnown(raw, limits) };
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    // The reason alone: the page shows it to the person once.
    return { ok: false, id, error: e.message };
  }
}

function parseKnown(m: Obj, limits: InspectorLimitsDto): WebviewToHost {
  const type = m.type;
  if (typeof type !== 'string') throw new Invalid('"type" must be a string');
  if (type === 'ready' || type === 'read') {
    keys(m, []);
    return { type };
  }
  if (type === 'cancelSearch') {
    keys(m, ['searchId']);
    return { type, searchId: int(m, 'searchId', 0) };
  }
  if (type === 'problem') {
    keys(m, ['message']);
    return { type, message: str(m, 'message', 0, maxProblemChars) };
  }
  const id = int(m, 'id', 0);
  switch (type) {
    case 'refresh':
      keys(m, ['id']);
      return { type, id };
    case 'page': {
      keys(m, ['id', 'offset', 'limit', 'query', 'facets']);
      const facets = m.facets === undefined ? undefined : bool(m, 'facets');
      return {
        type,
        id,
        offset: int(m, 'offset', 0),
        limit: int(m, 'limit', 1, maxPageCalls),
        query: listQuery(m),
        ...(facets ? { facets } : {}),
      };
    }
    case 'pickRuns':
      keys(m, ['id', 'text', 'limit']);
      return { type, id, text: str(m, 'text', 0, maxFilterChars), limit: int(m, 'limit', 1, maxPickRuns) };
    case 'locate': {
      keys(m, ['id', 'handle', 'runId', 'query']);
      const h = m.handle === undefined ? undefined : handle(m, limits);
      const runId = optionalStr(m, 'runId', 1, maxIdChars);
      if ((h === undefined) === (runId === undefined))
        throw new Invalid('"locate" needs exactly one of "handle" and "runId"');
      const query = m.query === undefined ? undefined : listQuery(m);
      return {
        type,
        id,
        ...(h !== undefined ? { handle: h } : {}),
        ...(runId !== undefined ? { runId } : {}),
        ...(query ? { query } : {}),
      };
    }
    case 'detail':
      keys(m, ['id', 'ref']);
      return { type, id, ref: partRef(m) };
    case 'fetchBytes': {
      keys(m, ['id', 'handle', 'start', 'end', 'snap']);
      const h = handle(m, limits);
      return { type, id, handle: h, ...byteWindow(m, limits), snap: bool(m, 'snap') };
    }
    case 'fetchLines':
      keys(m, ['id', 'handle', 'offset', 'count']);
      return {
        type,
        id,
        handle: handle(m, limits),
        offset: int(m, 'offset', 0),
        count: int(m, 'count', 1, limits.maxLines),
      };
    case 'findPattern': {
      keys(m, ['id', 'handle', 'pattern', 'offset', 'limit', 'window']);
      const offset = int(m, 'offset', 0);
      const limit = int(m, 'limit', 1, limits.maxMatches);
      let window: { index: number; context: number } | undefined;
      if (m.window !== undefined) {
        const w = obj(m, 'window');
        keys(w, ['index', 'context']);
        // The match is one of this page's; its window fits one lines window.
        window = {
          index: int(w, 'index', offset, offset + limit - 1),
          context: int(w, 'context', 0, Math.floor((limits.maxLines - 1) / 2)),
        };
      }
      return {
        type,
        id,
        handle: handle(m, limits),
        pattern: str(m, 'pattern', 1, limits.maxPatternChars),
        offset,
        limit,
        ...(window ? { window } : {}),
      };
    }
    case 'copyText':
      keys(m, ['id', 'text']);
      return { type, id, text: str(m, 'text', 1, maxCopyTextChars) };
    case 'copyExcerpt':
    case 'sendToChat':
    case 'saveExcerpt':
      keys(m, ['id', 'handle', 'range']);
      return { type, id, handle: handle(m, limits), range: excerptRange(m, limits) };
    case 'verify':
      keys(m, ['id', 'handle']);
      return { type, id, handle: handle(m, limits) };
    case 'openInEditor':
      keys(m, ['id', 'handle', 'byteOffset']);
      return { type, id, handle: handle(m, limits), byteOffset: int(m, 'byteOffset', 0) };
    case 'compareWindows': {
      keys(m, ['id', 'left', 'right', 'panelWidth']);
      const side = (k: string): { handle: string; start: number; end: number } => {
        const s = obj(m, k);
        keys(s, ['handle', 'start', 'end']);
        return { handle: handle(s, limits), ...byteWindow(s, limits) };
      };
      return {
        type,
        id,
        left: side('left'),
        right: side('right'),
        ...(m.panelWidth !== undefined ? { panelWidth: int(m, 'panelWidth', 0) } : {}),
      };
    }
    case 'startAction': {
      keys(m, ['id', 'action']);
      const action = m.action;
      if (action !== 'runCommandAndCapture' && action !== 'importFile' && action !== 'captureDemo')
        throw new Invalid('"action" must be runCommandAndCapture, importFile or captureDemo');
      return { type, id, action };
    }
    case 'searchOutputs': {
      keys(m, ['id', 'pattern', 'tool', 'run', 'limit']);
      const tool = m.tool === undefined ? undefined : str(m, 'tool', 1, maxIdChars);
      const run = m.run === undefined ? undefined : str(m, 'run', 1, maxIdChars);
      return {
        type,
        id,
        pattern: str(m, 'pattern', 1, limits.maxPatternChars),
        limit: int(m, 'limit', 1, limits.maxSearchMatches),
        ...(tool !== undefined ? { tool } : {}),
        ...(run !== undefined ? { run } : {}),
      };
    }
    default:
      throw new Invalid(`unknown message type "${type.slice(0, 40)}"`);
  }
}
