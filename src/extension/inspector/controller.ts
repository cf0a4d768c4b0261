/**
 * The inspector's host-side logic, with no `vscode`: it validates each webview message,
 * answers it from the current run store (windows through verified handle reads only,
 * never a whole artifact), and forwards live records as batched deltas. The panel
 * (inspectorPanel.ts) supplies the editor actions and the transport; unit tests supply
 * fakes and a real `RunStore`.
 */
import {
  EvidenceError,
  searchAllOutputs,
  type CallFilter,
  type CaptureProgressEvent,
  type CallFinishedRecord,
  type CallReport,
  type CallStartedRecord,
  type Disposable,
  type HandleSource,
  type RunRecordEvent,
  type RunStoreApi,
} from '../../core/index.js';
import type {
  CallDto,
  CompareSideDto,
  ExcerptRangeDto,
  HostToWebview,
  LiveStreamDto,
  InspectorLimitsDto,
  ListQueryDto,
  MatchDto,
  PartDto,
  PartRef,
  RunDto,
  StartActionDto,
  TargetDto,
  WebviewRequest,
  WindowDto,
} from '../../shared/protocol.js';
import { Lru } from '../../core/lru.js';
import { binaryMatchWindow, lineMatchWindow } from '../../shared/matchWindow.js';
import { buildExcerpt, excerptLink } from './excerpt.js';
import { LineIndex } from './lineIndex.js';
import { attachmentPart, callFromRecord, callFromReport, splitPreview, toRunDto } from './mapping.js';
import { inspectorLimits, parseWebviewMessage } from './validate.js';
import { resolveBytes, resolveLines, toWindowDto, type IndexGetter, type ResolvedWindow } from './windows.js';

/** The log the controller writes to (a `LogOutputChannel` fits). */
export interface InspectorLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** What the editor does for the panel (clipboard, chat, documents). */
export interface InspectorActions {
  /** Writes the system clipboard (the webview sandbox cannot). */
  writeClipboard(text: string): Promise<void>;
  /** Puts text into the chat input without sending it: `chat`, or `clipboard` when it fell back (and said so). */
  sendToChat(text: string): Promise<'chat' | 'clipboard'>;
  /** Opens the read-only artifact document at a byte offset. */
  openArtifact(handle: string, byteOffset: number): Promise<void>;
  /** Starts one of the empty panel's actions (it runs on; the reply does not wait for it). */
  startAction(action: StartActionDto): void;
  /**
   * Saves a window to a file the person picks (Save Excerpt As…); the sentence saying what was written, or undefined
   * when nothing was.
   */
  saveExcerpt(handle: string, range: ExcerptRangeDto): Promise<string | undefined>;
  /** Opens the diff editor on two windows (checked again there); the sentence saying what opened. */
  compareWindows(left: CompareSideDto, right: CompareSideDto, panelWidth?: number): Promise<string>;
}

/** Options of `InspectorController`. */
export interface InspectorControllerOptions {
  /** The current store (it may change: call `storeChanged`). */
  store(): RunStoreApi | undefined | Promise<RunStoreApi | undefined>;
  /** Posts to the webview; a hidden webview drops messages, which is fine: it says `ready` again. */
  post(message: HostToWebview): unknown;
  readonly actions: InspectorActions;
  readonly log: InspectorLog;
  readonly limits?: InspectorLimitsDto;
  /** What to select on the next `ready`. */
  readonly target?: TargetDto;
  /** Delay that batches live records into one delta (ms). */
  readonly deltaDelayMs?: number;
  /** URI scheme of this editor (`vscode.env.uriScheme`: Insiders and OSS builds differ) for excerpt links. */
  readonly uriScheme?: string;
  /**
   * The link a person can open from where the editor runs (`vscode.env.asExternalUri`: in
   * a browser workbench the callback URL that reaches our URI handler; the same link on
   * the desktop). Absent: the `<uriScheme>://` link as it is.
   */
  readonly externalLink?: (link: string) => Promise<string>;
}

/** Artifacts up to this size get a line index even for byte windows (one pass, then O(64 KiB) lookups). */
const eagerIndexBytes = 64 * 1024 * 1024;
/** Least time between two progress messages of one search (ms): at most a few a second. */
const searchProgressMs = 250;
/** Searches across outputs one panel may run at once (a new one beyond this is refused). */
const maxSearches = 2;

/** Least time between two `live` messages (ms): at most two a second, however many commands run. */
const liveIntervalMs = 500;

/** Handles and line indexes kept open per panel. */
const cacheEntries = 16;

/** Matches read per block (the core's most per request). */
const matchBlockSize = 1000;
/** Characters a block may hold: 1,000 matches of up to 500 characters (longer lines make a shorter block). */
const matchBlockChars = 500_000;

/** A block of a pattern's matches: `matches[i]` is match `offset + i`. */
interface MatchBlock {
  readonly offset: number;
  readonly total: number;
  readonly matches: readonly MatchDto[];
  readonly binary: boolean;
}

/** Sentence for a request made while no store is open. */
export const noStoreMessage = 'no evidence store is open for this workspace';
/** Sentence for a part the webview named that the run does not have. */
const unknownPartMessage = 'that call or output is not in this run';

/** Host side of one inspector panel. */
export class InspectorController {
  private ready = false;
  private target: TargetDto | undefined;
  private subscription: Disposable | undefined;
  private subscribedTo: RunStoreApi | undefined;
  private pending: RunRecordEvent[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private progressSubscription: Disposable | undefined;
  /** The latest progress per running stream, posted together at most every `liveIntervalMs`. */
  private liveStreams = new Map<string, CaptureProgressEvent>();
  private liveTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly liveDecoder = new TextDecoder('utf-8', { fatal: false });
  private readonly handles = new Lru<string, Promise<HandleSource>>({ maxEntries: cacheEntries });
  private readonly indexes = new Lru<string, Promise<LineIndex>>({ maxEntries: cacheEntries });
  /** Blocks of pattern matches by handle and pattern (see `matchBlock`). */
  private readonly matchBlocks = new Lru<string, Promise<MatchBlock>>({ maxEntries: cacheEntries });
  private readonly reports = new Lru<string, Promise<CallReport[]>>({ maxEntries: 2 });
  private disposed = false;
  /** Searches across outputs in flight, by request id, so `cancelSearch` can stop them. */
  private readonly searches = new Map<number, AbortController>();
  private readonly limits: InspectorLimitsDto;

  constructor(private readonly opts: InspectorControllerOptions) {
    this.limits = opts.limits ?? inspectorLimits;
    this.target = opts.target;
  }

  /** Handles one raw message from the webview; never throws. */
  async receive(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw, this.limits);
    if (!parsed.ok) {
      this.opts.log.warn(`inspector: invalid message: ${parsed.error}`);
      this.post({ type: 'error', id: parsed.id, message: parsed.error });
      return;
    }
    const msg = parsed.message;
    if (msg.type === 'ready') {
      await this.onReady();
      return;
    }
    if (msg.type === 'problem') {
      this.opts.log.warn(`inspector webview: ${msg.message}`);
      return;
    }
    if (msg.type === 'cancelSearch') {
      this.searches.get(msg.searchId)?.abort();
      return;
    }
    try {
      await this.answer(msg);
    } catch (e) {
      this.post({ type: 'error', id: msg.id, message: this.safeMessage(e) });
    }
  }

  /** The webview went away (hidden or disposed): nothing is posted until it says `ready` again. */
  webviewGone(): void {
    this.ready = false;
  }

  /** Selects a target: now if the page listens, else on its next `ready`. */
  reveal(target: TargetDto): void {
    if (this.ready) this.post({ type: 'reveal', target });
    else this.target = target;
  }

  /** The store was recreated: drop caches, listen to the new one, and resend everything. */
  async storeChanged(): Promise<void> {
    this.handles.clear();
    this.indexes.clear();
    this.matchBlocks.clear();
    this.reports.clear();
    await this.subscribe();
    // The page asks for its pages again (the rows it holds may be another store's).
    if (this.ready) this.post({ type: 'changed', runs: [], calls: [] });
  }

  /**
   * What is stored changed, maybe written by another process (the command line, a routed agent), which this one hears
   * nothing of: the page asks for its pages again, read afresh from the catalog.
   */
  storedChanged(): void {
    this.reports.clear();
    if (this.ready) this.post({ type: 'changed', runs: [], calls: [] });
  }

  /** Stops listening. */
  dispose(): void {
    this.disposed = true;
    for (const c of this.searches.values()) c.abort();
    this.searches.clear();
    this.subscription?.dispose();
    this.subscription = undefined;
    this.progressSubscription?.dispose();
    this.progressSubscription = undefined;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.liveTimer) clearTimeout(this.liveTimer);
  }

  private post(message: HostToWebview): void {
    if (this.disposed) return;
    try {
      const r = this.opts.post(message);
      if (r && typeof (r as Promise<unknown>).then === 'function')
        (r as Promise<unknown>).then(undefined, () => undefined);
    } catch {
      /* the webview is gone */
    }
  }

  private safeMessage(e: unknown): string {
    if (e instanceof EvidenceError) return e.message;
    // Anything else may carry host paths: log it, show a sentence.
    this.opts.log.error(`inspector: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 'the request failed: see the Bounded Evidence log';
  }

  private async store(): Promise<RunStoreApi> {
    const s = await this.opts.store();
    if (!s) throw new EvidenceError('missing', noStoreMessage);
    return s;
  }

  private async subscribe(): Promise<void> {
    const store = await this.opts.store();
    if (store === this.subscribedTo) return;
    this.subscription?.dispose();
    this.subscribedTo = store;
    this.subscription = store?.onDidRecord((e) => this.onRecord(e));
    this.progressSubscription?.dispose();
    this.progressSubscription = store?.onDidCaptureProgress?.((e) => this.onProgress(e));
  }

  /** A running command's capture moved on: keep the latest per stream, post them at a bounded rate. */
  private onProgress(e: CaptureProgressEvent): void {
    if (!this.ready) return;
    this.liveStreams.set(`${e.runId}/${e.callId}/${e.stream}`, e);
    this.liveTimer ??= setTimeout(() => this.flushLive(), liveIntervalMs);
  }

  private flushLive(): void {
    this.liveTimer = undefined;
    const events = [...this.liveStreams.values()];
    this.liveStreams = new Map();
    if (!this.ready || events.length === 0) return;
    const streams: LiveStreamDto[] = events.map((e) => ({
      runId: e.runId,
      callId: e.callId,
      stream: e.stream,
      bytes: e.bytes,
      // The tail may begin inside a character: drop what decodes to a replacement at its start.
      tail: this.liveDecoder.decode(e.tail).replace(/^\uFFFD+/, ''),
    }));
    this.post({ type: 'live', streams });
  }

  private async onReady(): Promise<void> {
    this.ready = true;
    await this.subscribe();
    const store = await this.opts.store();
    const target = this.target;
    this.target = undefined;
    this.post({
      type: 'init',
      limits: this.limits,
      storeAvailable: store !== undefined,
      ...(target ? { target } : {}),
    });
  }

  /**
   * One page of the list, from the catalog (docs/architecture.md §6): the store selects
   * and sorts, reads back only the page's records, and counts the matches. A whole handle
   * as the text filter finds exactly its call (a handle names one call; the catalog's
   * text match is by substring): the query names that call (`runId`, `callId`) instead.
   */
  private async page(msg: Extract<WebviewRequest, { type: 'page' }>): Promise<void> {
    const store = await this.store();
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
    this.post({
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
      this.opts.log.info(
        `inspector: page of ${page.calls.length} of ${page.total} calls in ${Math.round(performance.now() - t0)} ms`,
      );
  }

  /**
   * The call a whole handle names (`res_…`, `out_…`; either form, minted or written before), when the store minted
   * it; else the text is plain text.
   */
  private async callOfHandle(text: string): Promise<{ runId: string; callId: string } | undefined> {
    if (!/^(res|out)_[A-Za-z0-9-]+(_[A-Za-z0-9:.-]+)?$/.test(text) || text.length > this.limits.maxHandleChars)
      return undefined;
    try {
      const src = await this.handle(text);
      return { runId: src.runId, callId: src.callId };
    } catch {
      return undefined;
    }
  }

  /**
   * The part a handle names, or the newest call of a run; with the list's query, also
   * where that call is in the list, or that the filters hide it (docs/contracts.md §3.4, "Reveal").
   */
  private async locate(msg: Extract<WebviewRequest, { type: 'locate' }>): Promise<void> {
    let ref: PartRef;
    if (msg.handle !== undefined) {
      const src = await this.handle(msg.handle);
      ref = { runId: src.runId, callId: src.callId, part: src.name };
    } else {
      const newest = (await (await this.store()).queryCalls({ offset: 0, limit: 1, runId: msg.runId! })).rows[0];
      if (!newest) throw new EvidenceError('invalidArgument', 'that run has no calls in this store');
      ref = { runId: newest.runId, callId: newest.callId, part: 'result' };
    }
    if (!msg.query) {
      this.post({ type: 'located', id: msg.id, ref });
      return;
    }
    const index = await this.indexIn(msg.query, ref);
    this.post({ type: 'located', id: msg.id, ref, ...(index === undefined ? { hidden: true } : { index }) });
  }

  /** Where a call is in the list a query gives (as `page` lists it), or undefined when the filters hide it. */
  private async indexIn(q: ListQueryDto, ref: PartRef): Promise<number | undefined> {
    return (await this.store()).callIndex(await this.filterWithText(q), ref.runId, ref.callId);
  }

  /**
   * The list's filters as the store takes them: a whole handle as the text names its call
   * (within the run filter, if any: a call of another run then matches nothing); other
   * text is the catalog's substring match.
   */
  private async filterWithText(q: ListQueryDto): Promise<CallFilter> {
    const named = q.text !== undefined ? await this.callOfHandle(q.text.trim()) : undefined;
    if (named) return { ...filterOf(q), runId: q.run ?? named.runId, callId: named.callId };
    return { ...filterOf(q), ...(q.text !== undefined ? { text: q.text } : {}) };
  }

  private onRecord(e: RunRecordEvent): void {
    this.reports.delete(e.runId);
    if (!this.ready) return;
    this.pending.push(e);
    this.flushTimer ??= setTimeout(() => {
      void this.flush();
    }, this.opts.deltaDelayMs ?? 150);
  }

  private async flush(): Promise<void> {
    this.flushTimer = undefined;
    const events = this.pending;
    this.pending = [];
    if (!this.ready || events.length === 0) return;
    const calls = new Map<string, CallDto>();
    for (const { record } of events) {
      if (record.type === 'call_started' || record.type === 'call_finished') {
        const key = `${record.runId}/${record.callId}`;
        // A finished call never goes back to running, whatever order the batch holds.
        const prev = calls.get(key);
        if (record.type === 'call_started' && prev && prev.status !== 'running') continue;
        calls.set(key, callFromRecord(record as CallStartedRecord | CallFinishedRecord));
      }
    }
    let runs: RunDto[] = [];
    try {
      const store = await this.store();
      const touched = new Set(events.map((e) => e.runId));
      // Only the touched runs, looked up in the catalog (no walk over every run, no log record read).
      const ids = [...touched].slice(0, 1000);
      runs = (await store.queryRuns({ runIds: ids, limit: ids.length })).map(toRunDto);
    } catch (e) {
      this.opts.log.warn(`inspector: could not list runs for a live update: ${this.safeMessage(e)}`);
    }
    this.post({ type: 'changed', runs, calls: [...calls.values()] });
  }

  private async handle(handle: string): Promise<HandleSource> {
    const store = await this.store();
    let p = this.handles.get(handle);
    if (!p) {
      p = store.openHandle(handle);
      this.handles.set(handle, p);
      p.catch(() => this.handles.delete(handle));
    }
    return await p;
  }

  /**
   * Matches `[offset, offset + limit)` of a pattern, from a block of up to 1,000 read at
   * once and kept (a handle's bytes never change, so neither do its matches): the first
   * Find scans the whole output anyway to count them, and the next pages (50 a page in
   * the panel) are then answered without scanning it again (docs/contracts.md §3.4, "Speed").
   */
  private async matchBlock(handle: string, pattern: string, offset: number, limit: number): Promise<MatchBlock> {
    const key = `${handle}\u0000${pattern}`;
    const held = this.matchBlocks.get(key);
    if (held) {
      const b = await held.catch(() => undefined);
      if (b && offset >= b.offset && Math.min(offset + limit, b.total) <= b.offset + b.matches.length) return b;
    }
    const p = (async (): Promise<MatchBlock> => {
      const store = await this.store();
      // Room for the whole block (the model's 10,000-character cap would keep ~100 matches of
      // a build log's lines, and each later page would scan the output again).
      const r = await store.readToolOutput(
        { handle, pattern, offset, limit: Math.max(limit, matchBlockSize) },
        undefined,
        { maxContentChars: matchBlockChars },
      );
      const entries = r.content.length > 0 ? r.content.split('\n') : [];
      const matches = (r.matches ?? []).map((m, i) => {
        const entry = entries[i] ?? '';
        const prefix = `${m.line_number}:`;
        return {
          lineNumber: m.line_number,
          byteOffset: m.byte_offset,
          text: entry.startsWith(prefix) ? entry.slice(prefix.length) : entry,
        };
      });
      return { offset, total: r.total_matches ?? 0, matches, binary: r.binary };
    })();
    this.matchBlocks.set(key, p);
    p.catch(() => this.matchBlocks.delete(key));
    return await p;
  }

  private indexGetter(src: HandleSource): IndexGetter {
    return async ({ required }) => {
      let p = this.indexes.get(src.handle);
      if (!p) {
        if (!required && src.byteCount > eagerIndexBytes) return undefined;
        p = LineIndex.build(src);
        this.indexes.set(src.handle, p);
        p.catch(() => this.indexes.delete(src.handle));
      }
      return await p;
    };
  }

  private async report(runId: string): Promise<CallReport[]> {
    let p = this.reports.get(runId);
    if (!p) {
      p = this.store().then((s) => s.report(runId));
      this.reports.set(runId, p);
      p.catch(() => this.reports.delete(runId));
    }
    return await p;
  }

  private async excerptWindow(
    handle: string,
    range: ExcerptRangeDto,
  ): Promise<{ src: HandleSource; w: ResolvedWindow }> {
    const src = await this.handle(handle);
    const index = this.indexGetter(src);
    const w =
      range.kind === 'bytes'
        ? await resolveBytes(src, range.start, range.end, false, index)
        : await resolveLines(src, range.offset, range.count, this.limits.maxWindowBytes, index);
    if (w.end <= w.start) throw new EvidenceError('invalidArgument', 'the excerpt is empty: fetch a window first');
    return { src, w };
  }

  private async excerptText(handle: string, range: ExcerptRangeDto): Promise<{ markdown: string; bytes: number }> {
    const { src, w } = await this.excerptWindow(handle, range);
    const own = excerptLink(src.handle, w.start, w.end, this.opts.uriScheme);
    // A link that cannot be made external stays the editor's own (it still opens on the desktop and by Open Evidence
    // Link…).
    const link = this.opts.externalLink ? await this.opts.externalLink(own).catch(() => own) : own;
    const markdown = buildExcerpt({
      link,
      handle: src.handle,
      start: w.start,
      end: w.end,
      totalBytes: src.byteCount,
      sha256: src.sha256,
      bytes: w.bytes,
      text: w.text,
      encoding: w.encoding,
      ...(w.firstLine !== undefined ? { firstLine: w.firstLine } : {}),
      ...(w.lineSpan !== undefined ? { lineSpan: w.lineSpan } : {}),
      ...(this.opts.uriScheme ? { uriScheme: this.opts.uriScheme } : {}),
    });
    return { markdown, bytes: w.end - w.start };
  }

  /**
   * One search across every kept output (docs/contracts.md §3.4): the core's
   * `searchAllOutputs`, cancellable by `cancelSearch`, with throttled progress. The reply
   * holds at most `limit` (≤ 100) matches, each a bounded line window from the reader.
   */
  private async searchOutputs(msg: Extract<WebviewRequest, { type: 'searchOutputs' }>): Promise<void> {
    if (this.searches.size >= maxSearches)
      throw new EvidenceError('invalidArgument', 'another search is still running: cancel it or wait for it');
    // Registered before the first await, so a Cancel sent right after the request finds it.
    const controller = new AbortController();
    this.searches.set(msg.id, controller);
    let last = 0;
    try {
      const store = await this.store();
      const r = await searchAllOutputs(
        store,
        {
          pattern: msg.pattern,
          limit: msg.limit,
          ...(msg.tool !== undefined ? { tool: msg.tool } : {}),
          ...(msg.run !== undefined ? { run: msg.run } : {}),
        },
        {
          signal: controller.signal,
          onProgress: (callsDone, callsTotal) => {
            const now = performance.now();
            if (now - last < searchProgressMs && callsDone < callsTotal) return;
            last = now;
            this.post({ type: 'searchProgress', searchId: msg.id, callsDone, callsTotal });
          },
        },
      );
      this.post({
        type: 'searchResults',
        id: msg.id,
        pattern: r.pattern,
        totalMatches: r.total_matches,
        outputsSearched: r.outputs_searched,
        outputsMatched: r.outputs_matched,
        truncated: r.truncated,
        ...(r.complete === false && {
          stopped: { timeLimitMs: r.time_limit_ms!, callsSearched: r.calls_searched!, callsTotal: r.calls_total! },
        }),
        matches: r.matches.map((m) => ({
          handle: m.handle,
          tool: m.tool,
          runId: m.runId,
          lineNumber: m.line_number,
          byteOffset: m.byte_offset,
          column: m.column,
          text: m.text,
          ...(m.window ? { window: m.window } : {}),
        })),
      });
    } finally {
      this.searches.delete(msg.id);
    }
  }

  private async answer(msg: WebviewRequest): Promise<void> {
    switch (msg.type) {
      case 'refresh':
        this.handles.clear();
        this.reports.clear();
        this.post({ type: 'done', id: msg.id, message: 'Re-read from the store.' });
        return;
      case 'page':
        await this.page(msg);
        return;
      case 'pickRuns': {
        const store = await this.store();
        const runs = await store.queryRuns({ limit: msg.limit, ...(msg.text.trim() ? { text: msg.text.trim() } : {}) });
        this.post({ type: 'runs', id: msg.id, runs: runs.map(toRunDto) });
        return;
      }
      case 'locate':
        await this.locate(msg);
        return;
      case 'detail': {
        const call = (await this.report(msg.ref.runId)).find((c) => c.callId === msg.ref.callId);
        if (!call) throw new EvidenceError('invalidArgument', unknownPartMessage);
        const dto = callFromReport(call);
        if (msg.ref.part === 'result') {
          this.post({
            type: 'detail',
            id: msg.id,
            ref: msg.ref,
            call: dto,
            part: dto.result,
            preview: splitPreview(call.preview, call.previewRange, call.resultBytes, call.errorLines),
          });
          return;
        }
        const att = call.attachments.find((a) => a.name === msg.ref.part);
        if (!att) throw new EvidenceError('invalidArgument', unknownPartMessage);
        const part: PartDto = attachmentPart(att);
        this.post({
          type: 'detail',
          id: msg.id,
          ref: msg.ref,
          call: dto,
          part,
          preview: splitPreview(att.preview, att.previewRange, att.sizeBytes, att.errorLines),
        });
        return;
      }
      case 'fetchBytes': {
        const src = await this.handle(msg.handle);
        const w = await resolveBytes(src, msg.start, msg.end, msg.snap, this.indexGetter(src));
        this.post({ type: 'window', id: msg.id, window: toWindowDto(src, 'bytes', w) });
        return;
      }
      case 'fetchLines': {
        const src = await this.handle(msg.handle);
        const w = await resolveLines(src, msg.offset, msg.count, this.limits.maxWindowBytes, this.indexGetter(src));
        this.post({ type: 'window', id: msg.id, window: toWindowDto(src, 'lines', w) });
        return;
      }
      case 'findPattern': {
        const block = await this.matchBlock(msg.handle, msg.pattern, msg.offset, msg.limit);
        const matches = block.matches.slice(msg.offset - block.offset, msg.offset - block.offset + msg.limit);
        // The asked match's lines window in the same reply (exactly what `fetchLines` would
        // answer for it): the page draws a page of matches after one round trip, not two.
        const at = msg.window ? matches[msg.window.index - msg.offset] : undefined;
        let window: WindowDto | undefined;
        if (msg.window && at) {
          const src = await this.handle(msg.handle);
          if (block.binary) {
            // Binary content has no lines: the match is shown as the byte window around it (a hex dump).
            const { start, end } = binaryMatchWindow(at.byteOffset, src.byteCount);
            window = toWindowDto(src, 'bytes', await resolveBytes(src, start, end, false, this.indexGetter(src)));
          } else {
            const { offset, count } = lineMatchWindow(at.lineNumber, msg.window.context);
            window = toWindowDto(
              src,
              'lines',
              await resolveLines(
                src,
                offset,
                Math.min(this.limits.maxLines, count),
                this.limits.maxWindowBytes,
                this.indexGetter(src),
              ),
            );
          }
        }
        this.post({
          type: 'matches',
          id: msg.id,
          handle: msg.handle,
          pattern: msg.pattern,
          offset: msg.offset,
          totalMatches: block.total,
          matches,
          truncated: msg.offset + matches.length < block.total,
          binary: block.binary,
          ...(window && msg.window ? { window, windowIndex: msg.window.index } : {}),
        });
        return;
      }
      case 'copyText':
        await this.opts.actions.writeClipboard(msg.text);
        this.post({ type: 'done', id: msg.id, message: 'Copied to the clipboard.' });
        return;
      case 'copyExcerpt': {
        const { markdown, bytes } = await this.excerptText(msg.handle, msg.range);
        await this.opts.actions.writeClipboard(markdown);
        this.post({ type: 'done', id: msg.id, message: `Excerpt of ${bytes} bytes copied with its provenance.` });
        return;
      }
      case 'saveExcerpt': {
        await this.handle(msg.handle);
        const said = await this.opts.actions.saveExcerpt(msg.handle, msg.range);
        this.post({ type: 'done', id: msg.id, message: said ?? 'Not saved.' });
        return;
      }
      case 'sendToChat': {
        const { markdown } = await this.excerptText(msg.handle, msg.range);
        const how = await this.opts.actions.sendToChat(markdown);
        this.post({
          type: 'done',
          id: msg.id,
          message:
            how === 'chat'
              ? 'Excerpt placed in the chat input (not sent).'
              : 'Chat input is not available here: the excerpt was copied to the clipboard instead.',
        });
        return;
      }
      case 'verify': {
        const src = await this.handle(msg.handle);
        const t0 = performance.now();
        const ok = await src.verify();
        const elapsedMs = Math.round(performance.now() - t0);
        this.post({
          type: 'verified',
          id: msg.id,
          handle: msg.handle,
          ok,
          sha256: src.sha256,
          byteCount: src.byteCount,
          elapsedMs,
        });
        return;
      }
      case 'searchOutputs':
        await this.searchOutputs(msg);
        return;
      case 'startAction':
        this.opts.actions.startAction(msg.action);
        this.post({ type: 'done', id: msg.id, message: 'Started.' });
        return;
      case 'compareWindows': {
        const message = await this.opts.actions.compareWindows(msg.left, msg.right, msg.panelWidth);
        this.post({ type: 'done', id: msg.id, message });
        return;
      }
      case 'openInEditor': {
        const src = await this.handle(msg.handle);
        if (msg.byteOffset > src.byteCount) throw new EvidenceError('exceedsStored');
        await this.opts.actions.openArtifact(msg.handle, msg.byteOffset);
        this.post({ type: 'done', id: msg.id, message: 'Opened in the editor.' });
        return;
      }
    }
  }
}

/** The store's filters and order for the list's query, without its text (a whole handle there is handled apart). */
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
