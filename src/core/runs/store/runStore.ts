/**
 * `RunStore`, one per tenant (docs/contracts.md §2). Recording is `Run`'s (`recording/`). Call ids `<10 hex>-<n>` are
 * unique across the tenant because a new run's token is checked against the catalog.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { assertSafeSegment, isSafeSegment } from '../../blobs/blobKey.js';
import type { BlobStore } from '../../blobs/blobStore.js';
import { ManifestCache } from '../../blobs/verifiedBlobs.js';
import { EvidenceError } from '../../errors.js';
import { Catalog, yieldToLoop, type CatalogStats } from '../catalog/catalog.js';
import { callIndex, facetsOf, queryCalls, queryRuns, runStatusOf, summaryOf } from '../catalog/queries.js';
import { callReportsOf, reportPage } from '../reading/callPage.js';
import type { HandleEntry } from '../log/handles.js';
import { readContent, validateReadArgs, type ContentView } from '../reading/reader.js';
import { nowIso } from '../recording/recordFields.js';
import { Run } from '../recording/run.js';
import type { RunHost } from '../recording/runHost.js';
import { handleSourceOf, openContentView } from './contentView.js';
import { resolveHandle } from './handleResolution.js';
import { Listeners } from './listeners.js';
import { pruneRuns } from './retention.js';
import { storeSettingsOf } from './storeSettings.js';
import { usageReport, type UsageQuery, type UsageReport } from '../usage/stats.js';
import { currentOwner, ownerAlive } from '../log/owner.js';
import { appendRecord, parseRunLog, terminateTornTail, type ReadLogResult } from '../log/runLog.js';
import type {
  CallFilter,
  CallPage,
  CallQuery,
  CallReport,
  CallReportPage,
  CallReportQuery,
  Disposable,
  HandleSource,
  Preservation,
  PruneOptions,
  PruneResult,
  ReadOptions,
  ReadScope,
  ReadToolOutputArgs,
  ReadToolOutputResult,
  ReaderLimits,
  RecordedArtifacts,
  RunLimits,
  RunQuery,
  RunRecord,
  RunRecordEvent,
  RunStoreApi,
  RunStoreOptions,
  CaptureProgressEvent,
  RunSummary,
  StartRunOptions,
  CallShownRecord,
  ShownAnswer,
} from '../types.js';

export { Run } from '../recording/run.js';

/** The inspector asks for the same few runs again and again. */
const PARSED_LOGS = 32;

export class RunStore implements RunStoreApi, RunHost {
  readonly tenant: string;
  readonly profileHash: string;
  private readonly dir: string;
  /** The constructor cannot wait for the catalog to load. */
  private catalog!: Catalog;
  /** Bounded: never one per run. */
  private readonly parsed = new Map<string, { size: number; mtimeMs: number; log: ReadLogResult }>();
  private readonly live = new Map<string, Run>();
  private readonly listeners = new Listeners<RunRecordEvent>();
  private readonly progressListeners = new Listeners<CaptureProgressEvent>();
  private readonly manifests = new ManifestCache();
  private readonly isLive = (runId: string): boolean => {
    const r = this.live.get(runId);
    return r !== undefined && !r.isFinished;
  };
  private readonly liveIds = (): string[] => [...this.live.keys()].filter(this.isLive);
  /** @internal */ readonly limits: RunLimits;
  /** @internal */ readonly readerLimits: ReaderLimits;
  /** @internal */ readonly offloadThresholdBytes: number;
  /** @internal */ readonly inlineAttachmentBytes: number;
  /** @internal */ readonly preservation: Preservation;
  /** @internal */ readonly captureCapBytes: number;
  /** @internal Whether first views show error lines (docs/contracts.md §2.13). */ readonly errorLines: boolean;
  /** @internal */ readonly blobs: BlobStore | undefined;
  private readonly artifacts: RecordedArtifacts | undefined;

  private constructor(options: RunStoreOptions, dir: string) {
    this.tenant = options.tenant;
    this.dir = dir;
    this.blobs = options.blobs;
    this.artifacts = options.artifacts;
    const settings = storeSettingsOf(options);
    this.limits = settings.limits;
    this.readerLimits = settings.readerLimits;
    this.offloadThresholdBytes = settings.offloadThresholdBytes;
    this.inlineAttachmentBytes = settings.inlineAttachmentBytes;
    this.captureCapBytes = settings.captureCapBytes;
    this.errorLines = settings.errorLines;
    this.preservation = settings.preservation;
    this.profileHash = settings.profileHash;
  }

  get searchTimeoutMs(): number {
    return this.readerLimits.searchTimeoutMs;
  }

  /** Constant time. */
  static async open(options: RunStoreOptions): Promise<RunStore> {
    assertSafeSegment('tenant', options.tenant);
    const dir = path.join(path.resolve(options.logsDir), options.tenant);
    const store = new RunStore(options, dir);
    await fsp.mkdir(dir, { recursive: true });
    store.catalog = await Catalog.open(dir, options.tenant, { maintenance: options.maintenance ?? true });
    return store;
  }

  async startRun(options: StartRunOptions = {}): Promise<Run> {
    let token: string;
    do token = randomBytes(5).toString('hex');
    while (this.catalog.hasRunToken(token));
    const stamp = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, '');
    const runId = `run-${stamp}-${token}`;
    const run = new Run(this, runId, token);
    const record: RunRecord = {
      type: 'run_started',
      runId,
      tenant: this.tenant,
      startedAt: nowIso(),
      profileHash: this.profileHash,
      owner: currentOwner(),
      ...(options.label !== undefined ? { label: options.label } : {}),
      ...(options.pinned !== undefined ? { pinned: options.pinned } : {}),
      ...(options.source !== undefined ? { source: options.source } : {}),
    };
    const bytes = await appendRecord(this.logPath(runId), record, 'wx');
    this.live.set(runId, run);
    await this.indexRecord(runId, record, bytes);
    this.emit(runId, record);
    return run;
  }

  /** Checks each against its log: pages use `queryRuns`/`queryCalls`. */
  async listRuns(): Promise<RunSummary[]> {
    await this.catalog.verifyAll();
    const out: RunSummary[] = [];
    for (let offset = 0; ; offset += 1000) {
      const rows = this.catalog.runsNewestFirst(offset, 1000);
      for (const r of rows) out.push(summaryOf(r, this.tenant, this.isLive));
      if (rows.length < 1000) return out;
      await yieldToLoop();
    }
  }

  reconcileWithLogs(): Promise<void> {
    return this.catalog.reconcile();
  }

  queryCalls(query: CallQuery): Promise<CallPage> {
    return queryCalls(this.catalog, query, this.isLive, this.liveIds);
  }

  /** docs/contracts.md §3.4, "Reveal". */
  callIndex(query: CallFilter, runId: string, callId: string): Promise<number | undefined> {
    return callIndex(this.catalog, query, runId, callId, this.liveIds);
  }

  /** docs/architecture.md §6. */
  async callReports(query: CallReportQuery): Promise<CallReportPage> {
    const page = await reportPage(await this.queryCalls(query), {
      logPath: (runId) => this.logPath(runId),
      report: (runId) => this.report(runId),
      run: (runId) => {
        const r = this.catalog.run(runId);
        return r ? summaryOf(r, this.tenant, this.isLive) : undefined;
      },
    });
    if (!query.withFacets) return page;
    return { ...page, ...facetsOf(this.catalog) };
  }

  async totals(): Promise<{ runs: number; bytes: number; calls: number }> {
    return this.catalog.totals();
  }

  queryRuns(query: RunQuery): Promise<RunSummary[]> {
    return queryRuns(this.catalog, query, this.tenant, this.isLive);
  }

  catalogStats(): CatalogStats {
    return this.catalog.stats();
  }

  close(): void {
    this.catalog.close();
  }

  /** A store swapped out is closed only at 0. */
  get liveRuns(): number {
    return this.liveIds().length;
  }

  catalogSettled(): Promise<void> {
    return this.catalog.settled();
  }

  /** Front ends call it at start-up (docs/contracts.md §5.4). */
  async finishInterrupted(): Promise<string[]> {
    const done: string[] = [];
    const now = Date.now();
    const open: { runId: string }[] = [];
    for (const r of this.catalog.unfinishedRuns()) {
      if (!this.live.has(r.id) && runStatusOf(r, this.isLive, now) === 'running') open.push({ runId: r.id });
    }
    for (const run of open) {
      const first = (await this.readLog(run.runId)).records[0];
      if (first?.type !== 'run_started' || !first.owner || (await ownerAlive(first.owner))) continue;
      const record: RunRecord = { type: 'run_finished', runId: run.runId, finishedAt: nowIso(), status: 'interrupted' };
      // A torn last line is ended first so this record parses.
      await terminateTornTail(this.logPath(run.runId));
      const bytes = await appendRecord(this.logPath(run.runId), record);
      await this.indexRecord(run.runId, record, bytes);
      this.emit(run.runId, record);
      done.push(run.runId);
    }
    return done;
  }

  async report(runId: string): Promise<CallReport[]> {
    return callReportsOf(runId, (await this.readLog(runId)).records, this.live.has(runId));
  }

  async readToolOutput(
    args: ReadToolOutputArgs,
    scope?: ReadScope,
    options?: ReadOptions,
  ): Promise<ReadToolOutputResult> {
    const req = validateReadArgs(args, this.readerLimits);
    const entry = await this.resolve(req.handle, scope);
    const view = await this.openView(entry);
    const max = options?.maxContentChars;
    const limits =
      max !== undefined && Number.isSafeInteger(max) && max > this.readerLimits.maxContentChars
        ? { ...this.readerLimits, maxContentChars: max }
        : this.readerLimits;
    return readContent(view, req, limits, options);
  }

  /** Refused exactly as the reader refuses. */
  async openHandle(handle: string, scope?: ReadScope): Promise<HandleSource> {
    if (typeof handle !== 'string') throw new EvidenceError('invalidArgument', 'handle must be a string');
    const entry = await this.resolve(handle, scope);
    return handleSourceOf(handle, entry, await this.openView(entry));
  }

  onDidRecord(listener: (event: RunRecordEvent) => void): Disposable {
    return this.listeners.add(listener);
  }

  onDidCaptureProgress(listener: (event: CaptureProgressEvent) => void): Disposable {
    return this.progressListeners.add(listener);
  }

  /** @internal Whether anyone listens to capture progress (a command skips the tail copy when not). */
  get hasCaptureProgressListeners(): boolean {
    return this.progressListeners.size > 0;
  }

  /** @internal Reported by a running command's capture; a listener that throws does not disturb the capture. */
  emitCaptureProgress(event: CaptureProgressEvent): void {
    this.progressListeners.emit(event);
  }

  /** Blobs first, so a failed blob delete can be retried. */
  async deleteRun(runId: string): Promise<void> {
    await this.statLog(runId);
    if (this.isLive(runId)) throw new EvidenceError('invalidArgument', 'run is still in progress');
    if (this.blobs) await this.blobs.deleteRun(this.tenant, runId);
    await fsp.rm(this.logPath(runId), { force: true });
    await this.catalog.deleted(runId);
    this.parsed.delete(runId);
    this.live.delete(runId);
  }

  async setPinned(runId: string, pinned: boolean): Promise<void> {
    await this.statLog(runId);
    await this.appendTo(runId, { type: 'run_pinned', runId, pinned, at: nowIso() });
  }

  /** The catalog is told in the same step. */
  private async appendTo(runId: string, record: RunRecord): Promise<void> {
    const live = this.live.get(runId);
    if (live) {
      await live.append(record, true);
      return;
    }
    await terminateTornTail(this.logPath(runId));
    const bytes = await appendRecord(this.logPath(runId), record, 'existing');
    await this.indexRecord(runId, record, bytes);
    this.emit(runId, record);
  }

  /** docs/contracts.md §2.14. Never throws: the answer it describes was already given. */
  async recordShown(shown: ShownAnswer): Promise<void> {
    try {
      const bytes = typeof shown.text === 'number' ? shown.text : Buffer.byteLength(shown.text, 'utf8');
      if (!Number.isSafeInteger(bytes) || bytes < 0) return;
      let runId: string;
      let callId: string;
      if (shown.view === 'read') {
        const entry = await this.resolve(shown.handle);
        runId = entry.runId;
        callId = entry.record.callId;
      } else {
        ({ runId, callId } = shown);
        if (!isSafeSegment(runId)) return;
      }
      const record: CallShownRecord = {
        type: 'call_shown',
        runId,
        callId,
        view: shown.view,
        bytes,
        ...(shown.view === 'read' ? { handle: shown.handle } : shown.whole ? { whole: true } : {}),
        at: nowIso(),
      };
      await this.appendTo(runId, record);
    } catch {
      // Dropped: the figures then miss one answer, which is better than failing a call that was answered.
    }
  }

  async usage(query: UsageQuery = {}): Promise<UsageReport> {
    return usageReport(this.catalog, query);
  }

  prune(options: PruneOptions): Promise<PruneResult> {
    return pruneRuns({ catalog: this.catalog, isLive: this.isLive, deleteRun: (id) => this.deleteRun(id) }, options);
  }

  // ---- internals used by Run ----------------------------------------------------------

  /** @internal */ logPath(runId: string): string {
    return path.join(this.dir, `${runId}.jsonl`);
  }

  /** @internal Appended by a live run (`bytes` long): catalog, change tracking, listeners. */
  async recorded(runId: string, record: RunRecord, bytes: number): Promise<void> {
    if (record.type === 'run_finished') {
      this.live.get(runId)?.markFinished();
      this.live.delete(runId);
    }
    await this.indexRecord(runId, record, bytes);
    this.emit(runId, record);
  }

  private async indexRecord(runId: string, record: RunRecord, bytes: number): Promise<void> {
    const st = await fsp.stat(this.logPath(runId)).catch(() => undefined);
    if (!st) return;
    // A recording never fails for the index: the next reader re-indexes from the log.
    await this.catalog.recorded(record, bytes, { size: st.size, mtimeMs: st.mtimeMs }).catch(() => undefined);
  }

  private emit(runId: string, record: RunRecord): void {
    this.listeners.emit({ runId, record });
  }

  /** @internal Resolves a handle through this tenant's catalog, its record checked against its log. */
  resolve(handle: string, scope?: ReadScope): Promise<HandleEntry> {
    return resolveHandle(this.catalog, (runId) => this.logPath(runId), handle, scope);
  }

  /** @internal The verified content behind a resolved handle, whatever its storage shape. */
  openView(entry: HandleEntry): Promise<ContentView> {
    const { tenant, blobs, artifacts, manifests } = this;
    return openContentView({ tenant, blobs, artifacts, manifests }, entry);
  }

  private async statLog(runId: string): Promise<{ size: number; mtimeMs: number }> {
    if (typeof runId !== 'string' || !isSafeSegment(runId)) throw new EvidenceError('invalidArgument', 'unknown run');
    const st = await fsp.stat(this.logPath(runId)).catch(() => undefined);
    if (!st?.isFile()) throw new EvidenceError('invalidArgument', 'unknown run');
    return st;
  }

  /** A changed log is re-indexed too. */
  private async readLog(runId: string): Promise<ReadLogResult> {
    const st = await this.statLog(runId);
    const prior = this.parsed.get(runId);
    if (prior && prior.size === st.size && prior.mtimeMs === st.mtimeMs) {
      this.parsed.delete(runId);
      this.parsed.set(runId, prior);
      return prior.log;
    }
    const log = parseRunLog(await fsp.readFile(this.logPath(runId)), runId);
    this.parsed.delete(runId);
    this.parsed.set(runId, { size: log.sizeBytes, mtimeMs: st.mtimeMs, log });
    while (this.parsed.size > PARSED_LOGS) this.parsed.delete(this.parsed.keys().next().value as string);
    const row = this.catalog.run(runId);
    if (!row || row.logSize !== st.size || row.logMtimeMs !== st.mtimeMs) await this.catalog.verifyRun(runId);
    return log;
  }
}
