/**
 * The inspector's host-side logic, with no `vscode`: every webview message validated, answered from the current run
 * store through verified handle reads only, and live records forwarded as batched deltas.
 */
import {
  EvidenceError,
  type CallReport,
  type Disposable,
  type HandleSource,
  type RunRecordEvent,
  type RunStoreApi,
} from '../../core/index.js';
import type {
  ExcerptRangeDto,
  HostToWebview,
  InspectorLimitsDto,
  PartDto,
  TargetDto,
  WebviewRequest,
  WindowDto,
} from '../../shared/protocol.js';
import { Lru } from '../../core/lru.js';
import { binaryMatchWindow, lineMatchWindow } from '../../shared/matchWindow.js';
import { buildExcerpt, excerptLink } from './excerpt.js';
import { LineIndex } from './lineIndex.js';
import { attachmentPart, callFromReport, splitPreview, toRunDto } from './mapping.js';
import type { InspectorControllerOptions } from './controllerOptions.js';
import { ListQueries } from './listQueries.js';
import { LiveDeltas } from './liveDeltas.js';
import { MatchBlocks } from './matchBlocks.js';
import { searchOutputs } from './outputSearch.js';
import { inspectorLimits, parseWebviewMessage } from './validate.js';
import {
  pastTheEnd,
  resolveBytes,
  resolveLines,
  toWindowDto,
  type IndexGetter,
  type ResolvedWindow,
} from './windows.js';

/** One pass, then O(64 KiB) lookups. */
const eagerIndexBytes = 64 * 1024 * 1024;

const cacheEntries = 16;

export const noStoreMessage = 'no evidence store is open for this workspace';
const unknownPartMessage = 'that call or output is not in this run';

export class InspectorController {
  private ready = false;
  private target: TargetDto | undefined;
  private subscription: Disposable | undefined;
  private subscribedTo: RunStoreApi | undefined;
  private progressSubscription: Disposable | undefined;
  private readonly live: LiveDeltas;
  private readonly handles = new Lru<string, Promise<HandleSource>>({ maxEntries: cacheEntries });
  private readonly indexes = new Lru<string, Promise<LineIndex>>({ maxEntries: cacheEntries });
  private readonly matchBlocks = new MatchBlocks(() => this.store(), cacheEntries);
  private readonly list: ListQueries;
  private readonly reports = new Lru<string, Promise<CallReport[]>>({ maxEntries: 2 });
  private disposed = false;
  /** So `cancelSearch` can stop them. */
  private readonly searches = new Map<number, AbortController>();
  private readonly limits: InspectorLimitsDto;

  constructor(private readonly opts: InspectorControllerOptions) {
    this.limits = opts.limits ?? inspectorLimits;
    this.target = opts.target;
    this.live = new LiveDeltas({
      store: () => this.store(),
      post: (m) => this.post(m),
      stillReady: () => this.ready,
      warn: (m, e) => opts.log.warn(`${m}: ${this.safeMessage(e)}`),
      ...(opts.deltaDelayMs !== undefined ? { deltaDelayMs: opts.deltaDelayMs } : {}),
    });
    this.list = new ListQueries({
      store: () => this.store(),
      handle: (h) => this.handle(h),
      post: (m) => this.post(m),
      log: opts.log,
      maxHandleChars: this.limits.maxHandleChars,
    });
  }

  /** Never throws. */
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
    if (msg.type === 'read') {
      this.opts.actions.personRead();
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

  /** Nothing is posted until it says `ready` again. */
  webviewGone(): void {
    this.ready = false;
  }

  reveal(target: TargetDto): void {
    if (this.ready) this.post({ type: 'reveal', target });
    else this.target = target;
  }

  async storeChanged(): Promise<void> {
    this.handles.clear();
    this.indexes.clear();
    this.matchBlocks.clear();
    this.reports.clear();
    await this.subscribe();
    // The rows the page holds may be another store's.
    if (this.ready) this.post({ type: 'changed', runs: [], calls: [] });
  }

  /** Maybe written by another process, which this one hears nothing of: the page reads its pages afresh. */
  storedChanged(): void {
    this.reports.clear();
    if (this.ready) this.post({ type: 'changed', runs: [], calls: [] });
  }

  dispose(): void {
    this.disposed = true;
    for (const c of this.searches.values()) c.abort();
    this.searches.clear();
    this.subscription?.dispose();
    this.subscription = undefined;
    this.progressSubscription?.dispose();
    this.progressSubscription = undefined;
    this.live.dispose();
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
    this.progressSubscription = store?.onDidCaptureProgress?.((e) => {
      if (this.ready) this.live.progress(e);
    });
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

  private onRecord(e: RunRecordEvent): void {
    this.reports.delete(e.runId);
    if (this.ready) this.live.record(e);
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
    // A link that cannot be made external stays the editor's own.
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
      ...(src.store !== undefined ? { store: src.store } : {}),
    });
    return { markdown, bytes: w.end - w.start };
  }

  private async answer(msg: WebviewRequest): Promise<void> {
    switch (msg.type) {
      case 'refresh':
        this.handles.clear();
        this.reports.clear();
        this.post({ type: 'done', id: msg.id, message: 'Re-read from the store.' });
        return;
      case 'page':
        await this.list.page(msg);
        return;
      case 'pickRuns': {
        const store = await this.store();
        const runs = await store.queryRuns({ limit: msg.limit, ...(msg.text.trim() ? { text: msg.text.trim() } : {}) });
        this.post({ type: 'runs', id: msg.id, runs: runs.map(toRunDto) });
        return;
      }
      case 'locate':
        await this.list.locate(msg);
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
        const block = await this.matchBlocks.get(msg.handle, msg.pattern, msg.offset, msg.limit);
        const matches = block.matches.slice(msg.offset - block.offset, msg.offset - block.offset + msg.limit);
        // The asked match's lines window in the same reply: a page of matches is one round trip, not two.
        const at = msg.window ? matches[msg.window.index - msg.offset] : undefined;
        let window: WindowDto | undefined;
        if (msg.window && at) {
          const src = await this.handle(msg.handle);
          if (block.binary) {
            // Binary content has no lines: the match is shown as the byte window around it.
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
        await searchOutputs(
          msg,
          () => this.store(),
          this.searches,
          (m) => this.post(m),
        );
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
        if (msg.byteOffset > src.byteCount) throw pastTheEnd(msg.byteOffset, src.byteCount);
        await this.opts.actions.openArtifact(msg.handle, msg.byteOffset);
        this.post({ type: 'done', id: msg.id, message: 'Opened in the editor.' });
        return;
      }
    }
  }
}
