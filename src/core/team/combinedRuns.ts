/**
 * This storage's runs and the team stores' runs as one list (docs/contracts.md §7.2): what the editor's inspector and
 * Runs view read. Each store's catalog sorts and counts its own calls; a page is merged from the stores' first rows in
 * the list's order (ties: this storage first, then the stores in order), so a page at offset N reads at most N + limit
 * catalog rows per store and the record of each listed call only. Team runs carry their store's name and are
 * read-only: recording, pin, delete and prune stay with this storage.
 */
import { EvidenceError } from '../errors.js';
import type {
  CallFilter,
  CallPage,
  CallQuery,
  CallReport,
  CallReportPage,
  CallReportQuery,
  CallSummary,
  HandleSource,
  ReadOptions,
  ReadScope,
  ReadToolOutputArgs,
  ReadToolOutputResult,
  RunCursor,
  RunQuery,
  RunStoreApi,
  RunSummary,
} from '../runs/types.js';
import type { TeamStore } from './teamStore.js';

/** The list's source filter value that selects one team store's runs. */
const TEAM_SOURCE_PREFIX = 'team:';

/** Catalog rows asked at once. */
const CHUNK = 1000;

const readOnly = (): EvidenceError =>
  new EvidenceError('invalidArgument', 'a team run is read-only here: pin, delete and prune do not apply');

/** One catalog of the list: this storage (no store name) or a team store's publishing tenant. */
interface Source {
  readonly store: string | undefined;
  readonly runs: RunStoreApi;
}

/** What the list needs of a team store (a `TeamStore`). */
export type ListedTeamStore = Pick<TeamStore, 'name' | 'runStores' | 'refusedList' | 'readToolOutput' | 'openHandle'>;

/** One newest-first list of runs: a catalog, or a team store's refused runs. */
interface RunLister {
  /** 0: this storage; then each team store in order. Ties of start time list the lower first. */
  readonly rank: number;
  readonly store: string | undefined;
  readonly page: (query: RunQuery) => Promise<RunSummary[]>;
}

/** A filter as the list gives it: `source` may also be `team:NAME`. */
type ListFilter = Omit<CallFilter, 'source'> & { readonly source?: string };

/** This storage and its team stores, listed as one; a team store's runs read-only. */
export class CombinedRuns implements RunStoreApi {
  /** Where the last call page ended in each source: the next page reads on from there. */
  private frontier: { key: string; offset: number; at: number[]; totals: number[] } | undefined;

  constructor(
    private readonly local: RunStoreApi,
    private readonly teams: readonly ListedTeamStore[],
  ) {}

  get tenant(): string {
    return this.local.tenant;
  }

  get searchTimeoutMs(): number {
    return this.local.searchTimeoutMs;
  }

  startRun: RunStoreApi['startRun'] = (o) => this.local.startRun(o);
  onDidRecord: RunStoreApi['onDidRecord'] = (l) => this.local.onDidRecord(l);
  onDidCaptureProgress: NonNullable<RunStoreApi['onDidCaptureProgress']> = (l) =>
    this.local.onDidCaptureProgress?.(l) ?? { dispose() {} };
  prune: RunStoreApi['prune'] = (o) => this.local.prune(o);
  reconcileWithLogs: RunStoreApi['reconcileWithLogs'] = () => this.local.reconcileWithLogs();
  totals: RunStoreApi['totals'] = async () => {
    const own = await this.local.totals();
    if (this.teams.length === 0) return own;
    let teamRuns = 0;
    let teamCalls = 0;
    for (const t of this.teams) {
      teamRuns += t.refusedList().length;
      for (const runs of t.runStores()) {
        const n = await runs.totals();
        teamRuns += n.runs;
        teamCalls += n.calls ?? 0;
      }
    }
    return { ...own, teamRuns, teamCalls };
  };
  recordShown: RunStoreApi['recordShown'] = (s) => this.local.recordShown(s);
  usage: RunStoreApi['usage'] = (q) => this.local.usage(q);

  /** True when `runId` is a team store's run (pin, delete and prune do not apply). */
  async isTeamRun(runId: string): Promise<boolean> {
    return this.refusedRun(runId) !== undefined || (await this.ownerOf(runId))?.store !== undefined;
  }

  async deleteRun(runId: string): Promise<void> {
    if (await this.isTeamRun(runId)) throw readOnly();
    return this.local.deleteRun(runId);
  }

  async setPinned(runId: string, pinned: boolean): Promise<void> {
    if (await this.isTeamRun(runId)) throw readOnly();
    return this.local.setPinned(runId, pinned);
  }

  async listRuns(): Promise<RunSummary[]> {
    const all: RunSummary[] = [];
    for (const s of this.sources()) for (const r of await s.runs.listRuns()) all.push(tagRun(r, s.store));
    for (const t of this.teams) all.push(...t.refusedList());
    return all.sort((a, b) => runOrder(a, b, this.rankOf.bind(this)));
  }

  async report(runId: string): Promise<CallReport[]> {
    if (this.refusedRun(runId)) throw new EvidenceError('digestMismatch');
    const owner = await this.ownerOf(runId);
    if (!owner) return this.local.report(runId);
    return (await owner.runs.report(runId)).map((c) => tagCall(c, owner.store));
  }

  async readToolOutput(
    args: ReadToolOutputArgs,
    scope?: ReadScope,
    options?: ReadOptions,
  ): Promise<ReadToolOutputResult> {
    return this.throughTeams(
      () => this.local.readToolOutput(args, scope, options),
      (t) => t.readToolOutput(args, scope, options),
    );
  }

  async openHandle(handle: string, scope?: ReadScope): Promise<HandleSource> {
    return this.throughTeams(
      () => this.local.openHandle(handle, scope),
      (t) => t.openHandle(handle),
    );
  }

  /**
   * With `after`, each list seeks past the cursor and gives at most `limit` runs, so every page costs the first's;
   * with `offset`, each gives its first offset + limit.
   */
  async queryRuns(query: RunQuery): Promise<RunSummary[]> {
    const all: RunSummary[] = [];
    if (query.runIds) {
      for (const id of query.runIds) {
        const refused = this.refusedRun(id);
        const owner = refused ? undefined : await this.ownerOf(id);
        const r = refused ?? (owner && (await owner.runs.queryRuns({ runIds: [id], limit: 1 }))[0]);
        if (r) all.push(tagRun(r, owner?.store));
      }
      return all.slice(0, query.limit);
    }
    const rankOf = this.rankOf.bind(this);
    const { offset: _offset, after, ...rest } = query;
    const cursorRank = after === undefined ? 0 : rankOf(after.store);
    if (after !== undefined && cursorRank < 0)
      throw new EvidenceError('invalidArgument', 'after names no listed store');
    const offset = after === undefined ? (query.offset ?? 0) : 0;
    const want = offset + query.limit;
    for (const l of this.listers()) {
      // Ties of start time: a lower rank's runs came before the cursor's, a higher rank's after it.
      const seek =
        after === undefined
          ? undefined
          : {
              startedAt: after.startedAt,
              runId: l.rank === cursorRank ? after.runId : l.rank < cursorRank ? '' : '\uffff',
            };
      for (let at = 0; at < want; at += CHUNK) {
        const take = Math.min(CHUNK, want - at);
        const last = all.at(-1);
        const page = await l.page({
          ...rest,
          limit: take,
          ...(seek === undefined ? { offset: at } : { after: at === 0 ? seek : { ...cursorOf(last!) } }),
        });
        all.push(...page.map((r) => tagRun(r, l.store)));
        if (page.length < take) break;
      }
    }
    return all.sort((a, b) => runOrder(a, b, rankOf)).slice(offset, want);
  }

  async queryCalls(query: CallQuery): Promise<CallPage> {
    const merged = await this.merge(query, query.offset, query.limit);
    return { total: merged.total, offset: query.offset, rows: merged.page.map((m) => m.row) };
  }

  async callReports(query: CallReportQuery): Promise<CallReportPage> {
    const merged = await this.merge(query, query.offset, query.limit);
    const calls: CallReport[] = [];
    const runs = new Map<string, RunSummary>();
    let logReads = 0;
    const tools = new Set<string>();
    const sources = new Set<string>();
    const pages = new Map<number, CallReportPage>();
    for (const [i, s] of merged.sources.entries()) {
      const take = merged.take[i]!;
      if (take === 0) continue;
      const page = await s.runs.callReports({ ...merged.filters[i]!, offset: merged.skip[i]!, limit: take });
      pages.set(i, page);
      logReads += page.logReads;
    }
    const next = new Map<number, number>();
    for (const m of merged.page) {
      const j = next.get(m.source) ?? 0;
      next.set(m.source, j + 1);
      const c = pages.get(m.source)?.calls[j];
      if (!c) continue;
      const store = merged.sources[m.source]!.store;
      calls.push(tagCall(c, store));
      if (!runs.has(c.runId)) {
        const r = pages.get(m.source)!.runs.find((x) => x.runId === c.runId);
        if (r) runs.set(c.runId, tagRun(r, store));
      }
    }
    if (query.withFacets)
      for (const s of this.sources()) {
        const page = await s.runs.callReports({ offset: 0, limit: 1, withFacets: true });
        for (const t of page.tools ?? []) tools.add(t);
        if (s.store === undefined) for (const k of page.sources ?? []) sources.add(k);
        else if (page.total > 0) sources.add(`${TEAM_SOURCE_PREFIX}${s.store}`);
      }
    return {
      total: merged.total,
      offset: query.offset,
      calls,
      runs: [...runs.values()],
      logReads,
      ...(query.withFacets && {
        tools: [...tools].sort(),
        // Team stores are sources of the list's filter too; the type names this storage's kinds.
        sources: [...sources].sort() as unknown as CallReportPage['sources'],
      }),
    };
  }

  async callIndex(query: CallFilter, runId: string, callId: string): Promise<number | undefined> {
    const owner = await this.ownerOf(runId);
    const sources = this.sources();
    const filters = sources.map((s) => sourceFilter(query, s));
    const at = owner ? sources.findIndex((s) => s.runs === owner.runs) : 0;
    const filter = filters[at];
    if (!filter) return undefined;
    const own = await sources[at]!.runs.callIndex(filter, runId, callId);
    if (own === undefined) return undefined;
    const row = (await sources[at]!.runs.queryCalls({ ...filter, offset: own, limit: 1 })).rows[0];
    if (!row) return undefined;
    let index = own;
    for (const [i, s] of sources.entries()) {
      const f = filters[i];
      if (i === at || !f) continue;
      // The rows of another store listed before this call: a prefix of its own list, found by bisection.
      const total = (await s.runs.queryCalls({ ...f, offset: 0, limit: 1 })).total;
      let lo = 0;
      let hi = total;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const probe = (await s.runs.queryCalls({ ...f, offset: mid, limit: 1 })).rows[0];
        if (probe && listedBefore(query.order, probe, i, row, at)) lo = mid + 1;
        else hi = mid;
      }
      index += lo;
    }
    return index;
  }

  /** This storage, then every publishing tenant of every team store. */
  private sources(): Source[] {
    return [
      { store: undefined, runs: this.local },
      ...this.teams.flatMap((t) => t.runStores().map((runs) => ({ store: t.name, runs }))),
    ];
  }

  /** This storage's catalog, each team store's catalogs, and each team store's refused runs. */
  private listers(): RunLister[] {
    const local: RunLister = { rank: 0, store: undefined, page: (q) => this.local.queryRuns(q) };
    return [
      local,
      ...this.teams.flatMap((t, i): RunLister[] => [
        ...t.runStores().map((runs) => ({ rank: i + 1, store: t.name, page: (q: RunQuery) => runs.queryRuns(q) })),
        { rank: i + 1, store: t.name, page: async (q: RunQuery) => refusedPage(t.refusedList(), q) },
      ]),
    ];
  }

  /** 0 for this storage, then the team stores in order; -1 for a name none has. */
  private rankOf(store: string | undefined): number {
    if (store === undefined) return 0;
    const i = this.teams.findIndex((t) => t.name === store);
    return i < 0 ? -1 : i + 1;
  }

  private refusedRun(runId: string): RunSummary | undefined {
    for (const t of this.teams) {
      const r = t.refusedList().find((x) => x.runId === runId);
      if (r) return r;
    }
    return undefined;
  }

  private async ownerOf(runId: string): Promise<Source | undefined> {
    for (const s of this.sources()) if ((await s.runs.queryRuns({ runIds: [runId], limit: 1 })).length > 0) return s;
    return undefined;
  }

  /** This storage's answer, else the first team store's that knows the handle; unknown everywhere: this storage's. */
  private async throughTeams<T>(local: () => Promise<T>, team: (t: ListedTeamStore) => Promise<T>): Promise<T> {
    try {
      return await local();
    } catch (e) {
      if (!(e instanceof EvidenceError) || e.code !== 'accessDenied') throw e;
      for (const t of this.teams) {
        try {
          return await team(t);
        } catch (f) {
          if (!(f instanceof EvidenceError) || f.code !== 'accessDenied') throw f;
        }
      }
      throw e;
    }
  }

  /**
   * The list's rows `offset`..`offset + limit` merged; which rows each source gives before and within the page. A
   * page that starts where the last one ended (same filter, same counts) reads `limit` rows a source from where each
   * stopped; any other reads the first `offset + limit` of each.
   */
  private async merge(query: ListFilter, offset: number, limit: number) {
    const sources = this.sources();
    const filters = sources.map((s) => sourceFilter(query, s));
    const { offset: _o, limit: _l, withFacets: _w, ...filter } = query as CallReportQuery;
    const key = JSON.stringify([filter, sources.length]);
    /** `want` rows of each source from `from`, and each source's count. */
    const read = async (from: number[], want: number): Promise<{ heads: CallSummary[][]; totals: number[] }> => {
      const heads: CallSummary[][] = [];
      const totals: number[] = [];
      for (const [i, s] of sources.entries()) {
        const rows: CallSummary[] = [];
        const f = filters[i];
        totals.push(0);
        if (f)
          for (let at = 0; at < want; at += CHUNK) {
            const page = await s.runs.queryCalls({ ...f, offset: from[i]! + at, limit: Math.min(CHUNK, want - at) });
            if (at === 0) totals[i] = page.total;
            rows.push(...page.rows);
            if (page.rows.length < Math.min(CHUNK, want - at)) break;
          }
        heads.push(rows);
      }
      return { heads, totals };
    };
    let resume = this.frontier?.key === key && this.frontier.offset === offset ? this.frontier : undefined;
    let from = resume?.at ?? sources.map(() => 0);
    let { heads, totals } = await read(from, resume ? limit : offset + limit);
    // Counts changed since: the places each source stopped are no longer the list's.
    if (resume && totals.some((t, i) => t !== resume!.totals[i])) {
      resume = undefined;
      from = sources.map(() => 0);
      ({ heads, totals } = await read(from, offset + limit));
    }
    const next = sources.map(() => 0);
    const skip = [...from];
    const take = sources.map(() => 0);
    const page: { source: number; row: CallSummary }[] = [];
    for (let n = resume ? offset : 0; n < offset + limit; n++) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const r = heads[i]![next[i]!];
        if (!r) continue;
        if (best < 0 || listedBefore(query.order, r, i, heads[best]![next[best]!]!, best)) best = i;
      }
      if (best < 0) break;
      const row = heads[best]![next[best]!++]!;
      if (n < offset) skip[best]!++;
      else {
        take[best]!++;
        page.push({ source: best, row: tagSummary(row, sources[best]!.store) });
      }
    }
    this.frontier = { key, offset: offset + page.length, at: skip.map((k, i) => k + take[i]!), totals };
    const total = totals.reduce((a, b) => a + b, 0);
    return { sources, filters, total, skip, take, page };
  }
}

/** The filter a source answers, or undefined when the list's source filter leaves it out. */
function sourceFilter(query: ListFilter, s: Source): CallFilter | undefined {
  const { source, ...rest } = query;
  const filter: CallFilter = {
    ...(rest.order !== undefined && { order: rest.order }),
    ...(rest.runId !== undefined && { runId: rest.runId }),
    ...(rest.callId !== undefined && { callId: rest.callId }),
    ...(rest.tool !== undefined && { tool: rest.tool }),
    ...(rest.outcome !== undefined && { outcome: rest.outcome }),
    ...(rest.text !== undefined && { text: rest.text }),
  };
  if (source === undefined) return filter;
  if (source.startsWith(TEAM_SOURCE_PREFIX))
    return s.store === source.slice(TEAM_SOURCE_PREFIX.length) ? filter : undefined;
  // A run source kind (`cli`, `hook`, …) filters this storage's runs; a team run is listed under its store.
  return s.store === undefined ? { ...filter, source: source as NonNullable<CallFilter['source']> } : undefined;
}

/** True when row `a` of source `ia` is listed before row `b` of source `ib` in the list's order. */
function listedBefore(order: CallFilter['order'], a: CallSummary, ia: number, b: CallSummary, ib: number): boolean {
  let c: number;
  if (order === 'largest') c = cmp(bytesOf(b), bytesOf(a)) || cmp(b.startedAt, a.startedAt);
  else if (order === 'oldest') c = cmp(a.startedAt, b.startedAt);
  else c = cmp(b.startedAt, a.startedAt);
  return c < 0 || (c === 0 && ia < ib);
}

/** Result plus attachment bytes: the catalog's `largest` order. */
function bytesOf(r: CallSummary): number {
  return r.attachments.reduce((n, a) => n + a.sizeBytes, r.resultBytes);
}

/** Newest first; ties by the store's rank (this storage first), then run id descending, as each catalog lists. */
function runOrder(a: RunSummary, b: RunSummary, rankOf: (store: string | undefined) => number): number {
  return (
    Date.parse(b.startedAt) - Date.parse(a.startedAt) || rankOf(a.store) - rankOf(b.store) || cmp(b.runId, a.runId)
  );
}

/** The cursor that lists the runs after `r`. */
export function cursorOf(r: RunSummary): RunCursor {
  return { startedAt: r.startedAt, runId: r.runId, ...(r.store !== undefined && { store: r.store }) };
}

/** A page of a team store's refused runs (already newest first), filtered as a catalog filters. */
function refusedPage(refused: readonly RunSummary[], q: RunQuery): RunSummary[] {
  const text = q.text?.toLowerCase();
  const after = q.after;
  const ms = after === undefined ? 0 : Date.parse(after.startedAt);
  const rows = refused.filter(
    (r) =>
      (text === undefined || r.runId.toLowerCase().includes(text)) &&
      (after === undefined ||
        Date.parse(r.startedAt) < ms ||
        (Date.parse(r.startedAt) === ms && r.runId < after.runId)),
  );
  const from = after === undefined ? (q.offset ?? 0) : 0;
  return rows.slice(from, from + q.limit);
}

function cmp<T extends string | number>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function tagRun(r: RunSummary, store: string | undefined): RunSummary {
  return store === undefined ? r : { ...r, store };
}

function tagCall(c: CallReport, store: string | undefined): CallReport {
  return store === undefined ? c : { ...c, store };
}

function tagSummary(c: CallSummary, store: string | undefined): CallSummary {
  return store === undefined ? c : { ...c, store };
}
