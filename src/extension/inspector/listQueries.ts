/**
 * The inspector's list from the catalog (docs/contracts.md §3.4). A whole handle typed as the text names its call
 * instead of being matched as text.
 */
import { EvidenceError, type CallFilter, type HandleSource, type RunStoreApi } from '../../core/index.js';
import type { HostToWebview, ListQueryDto, PartRef, WebviewRequest } from '../../shared/protocol.js';
import { callFromReport, toRunDto } from './mapping.js';

export interface ListQueryDeps {
  store(): Promise<RunStoreApi>;
  /** Cached by the controller. */
  handle(handle: string): Promise<HandleSource>;
  post(message: HostToWebview): void;
  readonly log: { info(message: string): void };
  readonly maxHandleChars: number;
}

export class ListQueries {
  constructor(private readonly deps: ListQueryDeps) {}

  /** docs/architecture.md §6: the store reads back only the page's records. */
  async page(msg: Extract<WebviewRequest, { type: 'page' }>): Promise<void> {
    const store = await this.deps.store();
    const t0 = performance.now();
    const q = msg.query;
    const page = await store.callReports({
      offset: msg.offset,
      limit: msg.limit,
      ...(await this.filterWithText(q)),
      ...(msg.facets ? { withFacets: true } : {}),
    });
    const filtered =
      q.tool !== undefined ||
      q.run !== undefined ||
      q.outcome !== undefined ||
      q.source !== undefined ||
      q.text !== undefined;
    const all = filtered ? (await store.queryCalls({ offset: 0, limit: 1 })).total : page.total;
    this.deps.post({
      type: 'page',
      id: msg.id,
      offset: page.offset,
      total: page.total,
      all,
      calls: page.calls.map(callFromReport),
      runs: page.runs.map(toRunDto),
      ...(page.tools ? { tools: page.tools } : {}),
      ...(page.sources ? { sources: page.sources } : {}),
    });
    if (msg.offset === 0)
      this.deps.log.info(
        `inspector: page of ${page.calls.length} of ${page.total} calls in ${Math.round(performance.now() - t0)} ms`,
      );
  }

  private async callOfHandle(text: string): Promise<{ runId: string; callId: string } | undefined> {
    if (!/^(res|out)_[A-Za-z0-9-]+(_[A-Za-z0-9:.-]+)?$/.test(text) || text.length > this.deps.maxHandleChars)
      return undefined;
    try {
      const src = await this.deps.handle(text);
      return { runId: src.runId, callId: src.callId };
    } catch {
      return undefined;
    }
  }

  /** docs/contracts.md §3.4, "Reveal". */
  async locate(msg: Extract<WebviewRequest, { type: 'locate' }>): Promise<void> {
    let ref: PartRef;
    if (msg.handle !== undefined) {
      const src = await this.deps.handle(msg.handle);
      ref = { runId: src.runId, callId: src.callId, part: src.name };
    } else {
      const newest = (await (await this.deps.store()).queryCalls({ offset: 0, limit: 1, runId: msg.runId! })).rows[0];
      if (!newest) throw new EvidenceError('invalidArgument', 'that run has no calls in this store');
      ref = { runId: newest.runId, callId: newest.callId, part: 'result' };
    }
    if (!msg.query) {
      this.deps.post({ type: 'located', id: msg.id, ref });
      return;
    }
    const index = await this.indexIn(msg.query, ref);
    this.deps.post({ type: 'located', id: msg.id, ref, ...(index === undefined ? { hidden: true } : { index }) });
  }

  private async indexIn(q: ListQueryDto, ref: PartRef): Promise<number | undefined> {
    return (await this.deps.store()).callIndex(await this.filterWithText(q), ref.runId, ref.callId);
  }

  /** Within the run filter, if any: a call of another run then matches nothing. */
  private async filterWithText(q: ListQueryDto): Promise<CallFilter> {
    const named = q.text !== undefined ? await this.callOfHandle(q.text.trim()) : undefined;
    if (named) return { ...filterOf(q), runId: q.run ?? named.runId, callId: named.callId };
    return { ...filterOf(q), ...(q.text !== undefined ? { text: q.text } : {}) };
  }
}

function filterOf(q: ListQueryDto): CallFilter {
  const source = q.source?.startsWith('hook:') ? 'hook' : q.source;
  return {
    order: q.order,
    ...(q.tool !== undefined ? { tool: q.tool } : {}),
    ...(q.run !== undefined ? { runId: q.run } : {}),
    ...(q.outcome !== undefined ? { outcome: q.outcome } : {}),
    ...(source !== undefined ? { source: source as CallFilter['source'] } : {}),
  };
}
