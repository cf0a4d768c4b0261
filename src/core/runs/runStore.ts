/**
 * `RunStore` (one per tenant) and `Run`: what a run records and where the bytes of every
 * tool result live (contract section 2).
 *
 * Layout: run logs at `<logsDir>/<tenant>/<runId>.jsonl`; bytes in the wired
 * `BlobStore` under `{ tenant, runId, callId }` (results) and
 * `{ tenant, runId, callId: "<callId>.<slot>" }` (attachments), each with its manifest
 * sidecar (`verifiedBlobs.ts`).
 *
 * Ids: a run id is `run-<UTC yyyymmddThhmmss>-<10 hex>`; its calls are `<10 hex>-<n>`, so
 * call ids (hence handles) are unique across the tenant; a new run's token is checked
 * against existing logs. Handles resolve only through the `HandleIndex`, built from
 * this tenant's own logs; a miss re-reads logs that changed (another window may have
 * written), then answers access denied.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { assertSafeSegment, isSafeSegment, type BlobKey } from '../blobs/blobKey.js';
import type { BlobStore } from '../blobs/blobStore.js';
import { ManifestCache, missingError, openVerified } from '../blobs/verifiedBlobs.js';
import { EvidenceError } from '../errors.js';
import { manifestOf, readVerified, streamVerified, verifyAll } from '../integrity.js';
import { canonicalJson } from '../json.js';
import { encodeUtf8 } from '../utf8.js';
import { captureOutput, once, type Captured } from './capture.js';
import { startCommand, type CommandExit } from './command.js';
import {
  ContentTypes, DEFAULT_CAPTURE_CAP_BYTES, DEFAULT_INLINE_ATTACHMENT_BYTES, DEFAULT_OFFLOAD_THRESHOLD_BYTES, DEFAULT_RUN_LIMITS,
  decideAttachmentStorage, decideResultStorage, makePreview, measureResult, profileHash,
} from './decisions.js';
import { accessDenied, attachmentHandleOf, HandleIndex, resultHandleOf, type HandleEntry } from './handles.js';
import { commandSummary, resultObservation, type AttachmentView } from './observation.js';
import { checkLineCount, DEFAULT_READER_LIMITS, LINE_CUT_MARKER, readContent, validateReadArgs, type ContentView } from './reader.js';
import { appendRecord, readRunLog, terminateTornTail, type ReadLogResult } from './runLog.js';
import type {
  AttachmentRecord, CallError, CallFinishedRecord, CallOutcome, CallReport, CallStatus, Disposable, HandleSource, Preservation,
  PruneOptions, PruneResult, ReadOptions, ReadScope, ReadToolOutputArgs, ReadToolOutputResult, ReaderLimits, RecordResultOptions,
  RunApi, RunCommandOptions, RunFinishStatus, RunLimits, RunRecord, RunRecordEvent, RunStatus, RunStoreApi, RunStoreOptions,
  RunSummary, StartRunOptions, StoredContent,
} from './types.js';

/** An unfinished run whose log was written to within this window counts as running (another window may own it). */
const RUNNING_GRACE_MS = 10 * 60 * 1000;

/** Longest handle that can resolve (contract 2.5: 1–256 characters). */
const MAX_HANDLE_LENGTH = 256;

/** The tool name `runCommand` records by default. */
export const RUN_COMMAND_TOOL = 'run_command';

/** Kept for code written before `tool`/`files` joined `RunCommandOptions`. */
export type RunCommandExtras = Pick<RunCommandOptions, 'tool' | 'files'>;

function positiveInt(name: string, v: number): number {
  if (!Number.isSafeInteger(v) || v <= 0) throw new EvidenceError('invalidArgument', `${name} must be a positive integer`);
  return v;
}

function nowIso(): string {
  return new Date().toISOString();
}

/** Everything about one run as read from its log. */
interface RunState {
  readonly log: ReadLogResult;
  readonly mtimeMs: number;
}

/** One per tenant: starts runs, lists and reports them, resolves handles, reads outputs. */
export class RunStore implements RunStoreApi {
  readonly tenant: string;
  /** Hash of the agent profile every run of this store records. */
  readonly profileHash: string;
  private readonly dir: string;
  private readonly index = new HandleIndex();
  /**
   * Per run: the log's size and mtime when last indexed, and its parsed records while
   * they are still current. Listing runs and reporting them (the inspector does both on
   * every refresh) then costs one stat per run instead of a read and parse of every log.
   */
  private readonly seen = new Map<string, { size: number; mtimeMs: number; log?: ReadLogResult }>();
  private readonly live = new Map<string, Run>();
  private readonly listeners = new Set<(e: RunRecordEvent) => void>();
  private readonly manifests = new ManifestCache();
  /** @internal */ readonly limits: RunLimits;
  /** @internal */ readonly readerLimits: ReaderLimits;
  /** @internal */ readonly offloadThresholdBytes: number;
  /** @internal */ readonly inlineAttachmentBytes: number;
  /** @internal */ readonly preservation: Preservation;
  /** @internal */ readonly captureCapBytes: number;
  /** @internal */ readonly blobs: BlobStore | undefined;

  private constructor(options: RunStoreOptions, dir: string) {
    this.tenant = options.tenant;
    this.dir = dir;
    this.blobs = options.blobs;
    this.limits = {
      largeResultBytes: positiveInt('largeResultBytes', options.limits?.largeResultBytes ?? DEFAULT_RUN_LIMITS.largeResultBytes),
      previewBytes: positiveInt('previewBytes', options.limits?.previewBytes ?? DEFAULT_RUN_LIMITS.previewBytes),
    };
    const r = { ...DEFAULT_READER_LIMITS, ...options.reader };
    this.readerLimits = {
      maxContentChars: positiveInt('maxContentChars', r.maxContentChars),
      maxLineChars: positiveInt('maxLineChars', r.maxLineChars),
      maxByteWindow: positiveInt('maxByteWindow', r.maxByteWindow),
      patternBudgetMs: positiveInt('patternBudgetMs', r.patternBudgetMs),
      searchTimeoutMs: positiveInt('searchTimeoutMs', r.searchTimeoutMs),
    };
    if (this.readerLimits.maxLineChars <= LINE_CUT_MARKER.length || this.readerLimits.maxLineChars > this.readerLimits.maxContentChars) {
      throw new EvidenceError('invalidArgument', 'maxLineChars must exceed the cut marker and not exceed maxContentChars');
    }
    this.offloadThresholdBytes = positiveInt('offloadThresholdBytes', options.offloadThresholdBytes ?? DEFAULT_OFFLOAD_THRESHOLD_BYTES);
    this.inlineAttachmentBytes = positiveInt('inlineAttachmentBytes', options.inlineAttachmentBytes ?? DEFAULT_INLINE_ATTACHMENT_BYTES);
    this.captureCapBytes = positiveInt('captureCapBytes', options.captureCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES);
    this.preservation = options.preservation ?? 'best_effort';
    if (this.preservation !== 'best_effort' && this.preservation !== 'required') throw new EvidenceError('invalidArgument', 'preservation must be best_effort or required');
    this.profileHash = profileHash({ ...this.limits, tools: options.tools ?? [] });
  }

  /** Validates the options and creates `<logsDir>/<tenant>/`. */
  static async open(options: RunStoreOptions): Promise<RunStore> {
    assertSafeSegment('tenant', options.tenant);
    const dir = path.join(path.resolve(options.logsDir), options.tenant);
    const store = new RunStore(options, dir);
    await fsp.mkdir(dir, { recursive: true });
    return store;
  }

  /** Starts a run: appends `run_started` to a new log. */
  async startRun(options: StartRunOptions = {}): Promise<Run> {
    const existing = await this.logFiles();
    let token: string;
    do token = randomBytes(5).toString('hex'); while (existing.some((id) => id.endsWith(`-${token}`)));
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '');
    const runId = `run-${stamp}-${token}`;
    const run = new Run(this, runId, token);
    const record: RunRecord = {
      type: 'run_started', runId, tenant: this.tenant, startedAt: nowIso(), profileHash: this.profileHash,
      ...(options.label !== undefined ? { label: options.label } : {}), ...(options.pinned !== undefined ? { pinned: options.pinned } : {}),
    };
    await appendRecord(this.logPath(runId), record, 'wx');
    this.live.set(runId, run);
    this.emit(runId, record);
    return run;
  }

  /** Every run of this tenant, newest first. */
  async listRuns(): Promise<RunSummary[]> {
    const states = await this.refresh();
    const out: RunSummary[] = [];
    for (const [runId, st] of states) {
      const s = this.summarize(runId, st);
      if (s) out.push(s);
    }
    return out.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId));
  }

  /** Every call of one run in start order, with the preview the model saw. */
  async report(runId: string): Promise<CallReport[]> {
    const { log } = await this.readRun(runId);
    const started = new Map<string, CallReport>();
    const order: string[] = [];
    const finishedRun = log.records.some((r) => r.type === 'run_finished');
    const running = this.live.has(runId);
    for (const r of log.records) {
      if (r.type === 'call_started' && !started.has(r.callId)) {
        order.push(r.callId);
        started.set(r.callId, {
          runId, callId: r.callId, tool: r.tool, arguments: r.arguments, status: running && !finishedRun ? 'running' : 'interrupted',
          startedAt: r.startedAt, resultBytes: 0, elided: false, preview: '', readable: false, binary: false, attachments: [],
        });
      } else if (r.type === 'call_finished') {
        if (!started.has(r.callId)) order.push(r.callId);
        started.set(r.callId, {
          runId, callId: r.callId, tool: r.tool, arguments: r.arguments, status: r.status, error: r.error, startedAt: r.startedAt,
          finishedAt: r.finishedAt, resultBytes: r.resultBytes, elided: r.elided, handle: r.resultHandle, preview: r.preview,
          previewRange: r.previewRange, sha256: r.sha256, stored: r.stored, readable: r.readable, contentType: r.contentType,
          lineCount: r.lineCount, binary: r.binary, attachments: r.attachments,
        });
      }
    }
    return order.map((id) => started.get(id)!);
  }

  /** Contract 2.5 over handles minted by this tenant's runs (or the runs in `scope`). */
  async readToolOutput(args: ReadToolOutputArgs, scope?: ReadScope, options?: ReadOptions): Promise<ReadToolOutputResult> {
    const req = validateReadArgs(args, this.readerLimits);
    const entry = await this.resolve(req.handle, scope);
    const view = await this.openView(entry);
    return readContent(view, req, this.readerLimits, options?.signal);
  }

  /** Verified byte access behind a handle, refused exactly as the reader refuses. */
  async openHandle(handle: string, scope?: ReadScope): Promise<HandleSource> {
    if (typeof handle !== 'string') throw new EvidenceError('invalidArgument', 'handle must be a string');
    const entry = await this.resolve(handle, scope);
    const view = await this.openView(entry);
    const c = contentOf(entry);
    const { manifest, source } = view;
    return {
      handle, runId: entry.runId, callId: entry.record.callId, name: entry.attachment?.name ?? 'result',
      byteCount: manifest.byteCount, sha256: manifest.sha256, binary: c.binary, contentType: c.contentType, lineCount: c.lineCount, stored: c.stored,
      newlineIndex: { chunkSize: manifest.chunkSize, chunkNewlines: manifest.chunkNewlines },
      readRange: (start, end) => readVerified(source, manifest, start, end),
      stream: (start, end) => streamVerified(source, manifest, start, end),
      verify: () => verifyAll(source, manifest),
    };
  }

  /** Listens for every record this store appends. */
  onDidRecord(listener: (event: RunRecordEvent) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  }

  /** Deletes a run's blobs, then its log (so a failed blob delete can be retried). */
  async deleteRun(runId: string): Promise<void> {
    await this.readRun(runId);
    const live = this.live.get(runId);
    if (live && !live.isFinished) throw new EvidenceError('invalidArgument', 'run is still in progress');
    if (this.blobs) await this.blobs.deleteRun(this.tenant, runId);
    await fsp.rm(this.logPath(runId), { force: true });
    this.index.removeRun(runId);
    this.seen.delete(runId);
    this.live.delete(runId);
  }

  /** Appends a `run_pinned` record. */
  async setPinned(runId: string, pinned: boolean): Promise<void> {
    await this.readRun(runId);
    const record: RunRecord = { type: 'run_pinned', runId, pinned, at: nowIso() };
    const live = this.live.get(runId);
    if (live) await live.append(record, true);
    else {
      await terminateTornTail(this.logPath(runId));
      await appendRecord(this.logPath(runId), record);
      this.emit(runId, record);
    }
  }

  /**
   * Retention: deletes unpinned, not-running runs older than `maxAgeMs` (by finish,
   * else start), then the oldest remaining ones while the total exceeds `maxBytes`.
   */
  async prune(options: PruneOptions): Promise<PruneResult> {
    const now = options.now ?? Date.now();
    const runs = (await this.listRuns()).reverse(); // oldest first
    let total = runs.reduce((n, r) => n + r.totalBytes, 0);
    const deletedRuns: string[] = [];
    let freedBytes = 0;
    const eligible = (r: RunSummary): boolean => !r.pinned && r.status !== 'running';
    const drop = async (r: RunSummary): Promise<void> => {
      await this.deleteRun(r.runId);
      deletedRuns.push(r.runId);
      freedBytes += r.totalBytes;
      total -= r.totalBytes;
    };
    const kept: RunSummary[] = [];
    for (const r of runs) {
      const at = Date.parse(r.finishedAt ?? r.startedAt);
      if (eligible(r) && options.maxAgeMs !== undefined && now - at > options.maxAgeMs) await drop(r);
      else kept.push(r);
    }
    if (options.maxBytes !== undefined) {
      for (const r of kept) {
        if (total <= options.maxBytes) break;
        if (eligible(r)) await drop(r);
      }
    }
    return { deletedRuns, freedBytes };
  }

  // ---- internals used by Run ----------------------------------------------------------

  /** @internal */ logPath(runId: string): string {
    return path.join(this.dir, `${runId}.jsonl`);
  }

  /** @internal Appended by a live run: index, change tracking, listeners. */
  async recorded(runId: string, record: RunRecord): Promise<void> {
    if (record.type === 'call_finished') this.index.addCall(runId, record);
    if (record.type === 'run_finished') { this.live.get(runId)?.markFinished(); this.live.delete(runId); }
    const st = await fsp.stat(this.logPath(runId)).catch(() => undefined);
    // The index already has the record; the parsed log does not, so it is dropped.
    if (st && this.seen.has(runId)) this.seen.set(runId, { size: st.size, mtimeMs: st.mtimeMs });
    this.emit(runId, record);
  }

  private emit(runId: string, record: RunRecord): void {
    for (const l of [...this.listeners]) {
      try { l({ runId, record }); } catch { /* a listener's failure is not the recorder's */ }
    }
  }

  /** @internal Resolves a handle through this tenant's records only. */
  async resolve(handle: string, scope?: ReadScope): Promise<HandleEntry> {
    if (handle.length < 1 || handle.length > MAX_HANDLE_LENGTH) throw accessDenied();
    let entry = this.index.lookup(handle, scope);
    if (!entry) {
      await this.refresh();
      entry = this.index.lookup(handle, scope);
    }
    if (!entry) throw accessDenied();
    return entry;
  }

  /** @internal The verified content behind a resolved handle, whatever its storage shape. */
  async openView(entry: HandleEntry): Promise<ContentView> {
    const c = contentOf(entry);
    const byteCount = entry.attachment ? entry.attachment.sizeBytes : entry.record.resultBytes;
    if (c.stored === 'preview_only') throw new EvidenceError('missing', 'tool output was not kept (no blob store was configured): only its preview was recorded');
    let view: ContentView;
    if (c.stored === 'inline') {
      const bytes = c.inline !== undefined ? encodeUtf8(c.inline) : Buffer.from(c.inlineBase64 ?? '', 'base64');
      const manifest = manifestOf(bytes);
      if (manifest.sha256 !== c.sha256 || manifest.byteCount !== byteCount) throw new EvidenceError('digestMismatch');
      view = { manifest, source: { size: async () => bytes.length, read: async (s, e) => bytes.subarray(s, e) }, lineCount: c.lineCount, binary: c.binary };
    } else {
      if (!this.blobs) throw missingError();
      const key: BlobKey = { tenant: this.tenant, runId: entry.runId, callId: entry.attachment ? `${entry.record.callId}.${entry.attachment.slot}` : entry.record.callId };
      const { manifest, source } = await openVerified(this.blobs, key, { sha256: c.sha256, byteCount, manifestDigest: c.manifestDigest ?? '' }, this.manifests);
      view = { manifest, source, lineCount: c.lineCount, binary: c.binary };
    }
    checkLineCount(view.manifest, view.lineCount);
    if (view.binary === view.manifest.utf8) throw new EvidenceError('digestMismatch');
    return view;
  }

  /** Run ids that have a log file. */
  private async logFiles(): Promise<string[]> {
    const names = await fsp.readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -6)).filter(isSafeSegment);
  }

  /** Re-reads logs that changed since last seen; returns every run's state. */
  private async refresh(): Promise<Map<string, RunState>> {
    const out = new Map<string, RunState>();
    const ids = await this.logFiles();
    for (const runId of [...this.seen.keys()]) {
      if (!ids.includes(runId)) { this.seen.delete(runId); this.index.removeRun(runId); }
    }
    for (const runId of ids) {
      const st = await this.readRun(runId).catch(() => undefined);
      if (st) out.set(runId, st);
    }
    return out;
  }

  /** Reads one run's log and refreshes its handles when it changed. */
  private async readRun(runId: string): Promise<RunState> {
    if (typeof runId !== 'string' || !isSafeSegment(runId)) throw new EvidenceError('invalidArgument', 'unknown run');
    const file = this.logPath(runId);
    const st = await fsp.stat(file).catch(() => undefined);
    if (!st?.isFile()) throw new EvidenceError('invalidArgument', 'unknown run');
    const prior = this.seen.get(runId);
    if (prior?.log && prior.size === st.size && prior.mtimeMs === st.mtimeMs) return { log: prior.log, mtimeMs: st.mtimeMs };
    const log = await readRunLog(file, runId);
    const first = log.records[0];
    const valid = first?.type === 'run_started' && first.tenant === this.tenant;
    if (!prior || prior.size !== log.sizeBytes || prior.mtimeMs !== st.mtimeMs) {
      // A log whose first record is not this tenant's run_started mints nothing.
      this.index.setRun(runId, valid ? log.records.filter((r): r is CallFinishedRecord => r.type === 'call_finished') : []);
    }
    this.seen.set(runId, { size: log.sizeBytes, mtimeMs: st.mtimeMs, log });
    return { log, mtimeMs: st.mtimeMs };
  }

  private summarize(runId: string, st: RunState): RunSummary | undefined {
    const records = st.log.records;
    const first = records[0];
    if (first?.type !== 'run_started' || first.tenant !== this.tenant) return undefined;
    let pinned = first.pinned ?? false;
    let finishedAt: string | undefined;
    let status: RunStatus | undefined;
    let callCount = 0;
    let blobBytes = 0;
    for (const r of records) {
      if (r.type === 'run_pinned') pinned = r.pinned;
      else if (r.type === 'run_finished') { finishedAt = r.finishedAt; status = r.status; }
      else if (r.type === 'call_finished') {
        callCount++;
        if (r.stored === 'blob') blobBytes += r.resultBytes;
        for (const a of r.attachments) if (a.stored === 'blob') blobBytes += a.sizeBytes;
      }
    }
    if (!status) {
      const live = this.live.get(runId);
      status = (live && !live.isFinished) || Date.now() - st.mtimeMs < RUNNING_GRACE_MS ? 'running' : 'interrupted';
    }
    return {
      runId, tenant: this.tenant, label: first.label, startedAt: first.startedAt, finishedAt, status, pinned, profileHash: first.profileHash,
      callCount, totalBytes: st.log.sizeBytes + blobBytes, tornTail: st.log.tornTail, problems: st.log.problems,
    };
  }
}

function contentOf(entry: HandleEntry): StoredContent {
  return entry.attachment ?? entry.record;
}

/** Turns a capture into the record fields every stored content shares. */
function storedFields(c: Captured, contentType: string, shownWhole: boolean, previewBytes: number, readable: boolean): StoredContent {
  const preview = shownWhole && !c.binary && c.inlineBytes
    ? { text: Buffer.from(c.inlineBytes).toString('utf8'), range: undefined }
    : makePreview(c.head, c.tail, c.sizeBytes, previewBytes, c.binary);
  return {
    contentType: c.binary ? ContentTypes.binary : contentType,
    sha256: c.sha256,
    stored: c.stored,
    preview: preview.text,
    ...(preview.range ? { previewRange: preview.range } : {}),
    ...(c.stored === 'inline' && c.inlineBytes ? (c.binary ? { inlineBase64: Buffer.from(c.inlineBytes).toString('base64') } : { inline: Buffer.from(c.inlineBytes).toString('utf8') }) : {}),
    ...(c.manifestDigest ? { manifestDigest: c.manifestDigest } : {}),
    lineCount: c.lineCount,
    binary: c.binary,
    readable,
  };
}

/** A safe message for a failure while keeping bytes. */
function backendMessage(e: unknown): string {
  if (e instanceof EvidenceError) return `blob store failed: ${e.message}`;
  return 'blob store failed';
}

/** One live run: records results and commands, reads its own handles. */
export class Run implements RunApi {
  readonly tenant: string;
  private seq = 0;
  private finished = false;
  private chain: Promise<unknown> = Promise.resolve();

  /** @internal Use `RunStore.startRun`. */
  constructor(private readonly store: RunStore, readonly runId: string, private readonly token: string) {
    this.tenant = store.tenant;
  }

  /** True once `finish` appended `run_finished`. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** @internal */ markFinished(): void {
    this.finished = true;
  }

  /**
   * @internal Appends one record after every earlier append of this run; `repairTail`
   * first terminates a torn last line (written by someone else, e.g. a crashed process).
   */
  append(record: RunRecord, repairTail = false): Promise<void> {
    const next = this.chain.then(async () => {
      if (repairTail) await terminateTornTail(this.store.logPath(this.runId));
      await appendRecord(this.store.logPath(this.runId), record);
      await this.store.recorded(this.runId, record);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async startCall(tool: string, args: Record<string, unknown>): Promise<{ callId: string; startedAt: string }> {
    if (typeof tool !== 'string' || tool.length === 0) throw new EvidenceError('invalidArgument', 'tool name must be a non-empty string');
    if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new EvidenceError('invalidArgument', 'tool arguments must be an object');
    if (this.finished) throw new EvidenceError('invalidArgument', 'run is finished');
    const callId = `${this.token}-${++this.seq}`;
    const startedAt = nowIso();
    await this.append({ type: 'call_started', runId: this.runId, callId, tool, arguments: args, startedAt });
    return { callId, startedAt };
  }

  /** Records one tool result: text, raw bytes, or a structured value (compact JSON). */
  async recordResult(tool: string, args: Record<string, unknown>, result: string | Uint8Array | object, options: RecordResultOptions = {}): Promise<CallOutcome> {
    const measured = measureResult(result);
    const call = await this.startCall(tool, args);
    return this.finishResult(call, tool, args, once(measured.bytes), options.contentType ?? measured.contentType, options, []);
  }

  /** Records a result streamed in pieces (e.g. a multi-gigabyte file) in bounded memory. */
  async recordStream(tool: string, args: Record<string, unknown>, body: AsyncIterable<Uint8Array>, options: RecordResultOptions = {}): Promise<CallOutcome> {
    const call = await this.startCall(tool, args);
    return this.finishResult(call, tool, args, body, options.contentType ?? ContentTypes.text, options, []);
  }

  /**
   * Captures a result and appends `call_finished`. `failure` (from a command) overrides
   * the status; a backend error while keeping the result is recorded as `failed`.
   */
  private async finishResult(
    call: { callId: string; startedAt: string }, tool: string, args: Record<string, unknown>, body: AsyncIterable<Uint8Array>,
    contentType: string, options: RecordResultOptions, attachments: AttachmentRecord[], failure?: { status: CallStatus; error: CallError },
  ): Promise<CallOutcome> {
    const s = this.store;
    const { callId } = call;
    let captured: Captured;
    try {
      captured = await captureOutput(body, {
        store: s.blobs, key: { tenant: this.tenant, runId: this.runId, callId }, inlineMaxBytes: s.offloadThresholdBytes,
        capBytes: Number.POSITIVE_INFINITY, previewBytes: s.limits.previewBytes,
      });
    } catch (e) {
      return this.recordFailure(call, tool, args, attachments, { code: 'backend', message: backendMessage(e) });
    }
    const decision = decideResultStorage({
      resultBytes: captured.sizeBytes, largeResultBytes: s.limits.largeResultBytes, offloadThresholdBytes: s.offloadThresholdBytes, hasBlobStore: s.blobs !== undefined,
    });
    // Binary bytes cannot be shown as text: always a handle.
    const elide = decision.elide || captured.binary;
    let status: CallStatus = options.isError ? 'error' : 'ok';
    let error: CallError | undefined = options.isError ? { code: 'tool_error', message: 'the tool reported an error' } : undefined;
    if (failure) ({ status, error } = failure);
    if (decision.failure) {
      status = 'failed';
      error = { code: 'blob_store_required', message: `the result (${captured.sizeBytes} bytes) needs a blob store and none is configured` };
    }
    const record: CallFinishedRecord = {
      type: 'call_finished', runId: this.runId, callId, tool, arguments: args, startedAt: call.startedAt, finishedAt: nowIso(), status,
      ...(error ? { error } : {}),
      resultBytes: captured.sizeBytes, elided: elide,
      ...(elide ? { resultHandle: resultHandleOf(callId) } : {}),
      ...storedFields(captured, contentType, !elide, s.limits.previewBytes, decision.stored !== 'preview_only'),
      attachments,
    };
    await this.append(record);
    return { callId, status, ...(record.resultHandle ? { handle: record.resultHandle } : {}), modelText: resultObservation(record), record };
  }

  /** A call whose bytes could not be kept: status `failed`, nothing readable minted for the result. */
  private async recordFailure(call: { callId: string; startedAt: string }, tool: string, args: Record<string, unknown>, attachments: AttachmentRecord[], error: CallError): Promise<CallOutcome> {
    const empty = manifestOf(new Uint8Array(0));
    const record: CallFinishedRecord = {
      type: 'call_finished', runId: this.runId, callId: call.callId, tool, arguments: args, startedAt: call.startedAt, finishedAt: nowIso(),
      status: 'failed', error, resultBytes: 0, elided: false, contentType: ContentTypes.text, sha256: empty.sha256, stored: 'inline', inline: '',
      preview: '', lineCount: 0, binary: false, readable: true, attachments,
    };
    await this.append(record);
    return { callId: call.callId, status: 'failed', modelText: `error: ${error.message}`, record };
  }

  /**
   * Runs `/bin/sh -c command` in its own process group; stdout and stderr stream to the
   * store as the process writes them, each capped at `captureCapBytes`; the exit value
   * is the `value` attachment (JSON). The call's result is the summary text.
   */
  async runCommand(command: string, options: RunCommandOptions): Promise<CallOutcome> {
    if (typeof command !== 'string' || command.length === 0) throw new EvidenceError('invalidArgument', 'command must be a non-empty string');
    const s = this.store;
    const cap = positiveInt('captureCapBytes', options.captureCapBytes ?? s.captureCapBytes);
    const tool = options.tool ?? RUN_COMMAND_TOOL;
    const args: Record<string, unknown> = { command, cwd: options.cwd, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
    const call = await this.startCall(tool, args);
    const proc = startCommand(command, options);
    let needStore: string | undefined;
    let backend: string | undefined;
    const captureStream = async (name: 'stdout' | 'stderr', source: AsyncIterable<Uint8Array>): Promise<Captured | undefined> => {
      try {
        return await captureOutput(source, {
          store: s.blobs, key: { tenant: this.tenant, runId: this.runId, callId: `${call.callId}.${name}` }, inlineMaxBytes: s.inlineAttachmentBytes,
          capBytes: cap, previewBytes: s.limits.previewBytes,
          onNeedStore: () => {
            if (s.preservation !== 'required') return true;
            needStore ??= name;
            proc.kill();
            return false;
          },
        });
      } catch (e) {
        backend ??= backendMessage(e);
        proc.kill();
        return undefined;
      }
    };
    const [out, err, exit] = await Promise.all([captureStream('stdout', proc.stdout), captureStream('stderr', proc.stderr), proc.exit]);
    const value = canonicalJson({ aborted: exit.aborted, code: exit.code, signal: exit.signal, timedOut: exit.timedOut });
    const valueCapture = await captureOutput(once(encodeUtf8(value)), {
      key: { tenant: this.tenant, runId: this.runId, callId: `${call.callId}.value` }, inlineMaxBytes: Number.MAX_SAFE_INTEGER, capBytes: Number.POSITIVE_INFINITY, previewBytes: s.limits.previewBytes,
    });
    const captures: { name: string; slot: string; c: Captured; contentType: string }[] = [];
    if (out) captures.push({ name: 'stdout', slot: 'stdout', c: out, contentType: ContentTypes.text });
    if (err) captures.push({ name: 'stderr', slot: 'stderr', c: err, contentType: ContentTypes.text });
    captures.push({ name: 'value', slot: 'value', c: valueCapture, contentType: ContentTypes.json });
    const missingFiles: string[] = [];
    if (!needStore && !backend && !exit.spawnFailed) {
      let n = 0;
      for (const rel of options.files ?? []) {
        const file = await this.captureFile(options.cwd, rel, `${call.callId}.f${n + 1}`, cap).catch((e: unknown) => { backend ??= backendMessage(e); return undefined; });
        if (file === undefined) { missingFiles.push(rel); continue; }
        n++;
        captures.push({ name: `file:${rel}`, slot: `f${n}`, c: file, contentType: ContentTypes.text });
      }
    }
    const views = this.attachmentViews(call.callId, captures);
    const attachments = views.map((v) => v.attachment);
    let failure: { status: CallStatus; error: CallError } | undefined;
    let failureText: string | undefined;
    if (needStore) {
      failureText = `${needStore} needs a blob store and none is configured (preservation is required): the command was stopped`;
      failure = { status: 'failed', error: { code: 'blob_store_required', message: failureText } };
    } else if (backend) {
      failureText = `${backend}: the command was stopped`;
      failure = { status: 'failed', error: { code: 'backend', message: failureText } };
    } else if (exit.spawnFailed) {
      failureText = 'the command could not be started (is the working directory accessible?)';
      failure = { status: 'error', error: { code: 'spawn_failed', message: failureText } };
    } else if (exit.timedOut) failure = { status: 'error', error: { code: 'timeout', message: `the command timed out after ${options.timeoutMs} ms` } };
    else if (exit.aborted) failure = { status: 'error', error: { code: 'aborted', message: 'the command was cancelled' } };
    const summary = commandSummary(command, { ...exitFields(exit), timeoutMs: options.timeoutMs, failure: failureText }, views, missingFiles);
    return this.finishResult(call, tool, args, once(encodeUtf8(summary)), ContentTypes.text, {}, attachments, failure);
  }

  /** Builds attachment records; the whole text appears in the summary only when it all fits `largeResultBytes`. */
  private attachmentViews(callId: string, captures: readonly { name: string; slot: string; c: Captured; contentType: string }[]): AttachmentView[] {
    const s = this.store;
    const textTotal = captures.filter((x) => x.name !== 'value').reduce((n, x) => n + x.c.sizeBytes, 0);
    const allWhole = textTotal <= s.limits.largeResultBytes;
    return captures.map(({ name, slot, c, contentType }) => {
      const d = decideAttachmentStorage({ sizeBytes: c.sizeBytes, inlineAttachmentBytes: s.inlineAttachmentBytes, hasBlobStore: s.blobs !== undefined, preservation: s.preservation });
      const whole = !c.binary && c.stored === 'inline' && (allWhole || name === 'value' || c.sizeBytes <= s.limits.previewBytes);
      const readable = c.stored !== 'preview_only' && d.readable !== false;
      const attachment: AttachmentRecord = {
        name, slot, handle: attachmentHandleOf(callId, slot),
        sizeBytes: c.sizeBytes, observedBytes: c.observedBytes, truncated: c.truncated,
        ...storedFields(c, contentType, whole, s.limits.previewBytes, readable),
      };
      return { attachment, whole };
    });
  }

  /** Captures one declared output file (relative to cwd, inside it) or undefined when absent. */
  private async captureFile(cwd: string, rel: string, segment: string, cap: number): Promise<Captured | undefined> {
    if (typeof rel !== 'string' || rel.length === 0 || path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) return undefined;
    const file = path.join(cwd, rel);
    const st = await fsp.lstat(file).catch(() => undefined);
    if (!st?.isFile()) return undefined;
    const s = this.store;
    return captureOutput(createReadStream(file), {
      store: s.blobs, key: { tenant: this.tenant, runId: this.runId, callId: segment }, inlineMaxBytes: s.inlineAttachmentBytes, capBytes: cap, previewBytes: s.limits.previewBytes,
    });
  }

  /** `read_tool_output` limited to this run's own handles. */
  readToolOutput(args: ReadToolOutputArgs): Promise<ReadToolOutputResult> {
    return this.store.readToolOutput(args, { runIds: [this.runId] });
  }

  /** Appends `run_finished` once. */
  async finish(status: RunFinishStatus = 'completed'): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await this.append({ type: 'run_finished', runId: this.runId, finishedAt: nowIso(), status });
  }
}

function exitFields(exit: CommandExit): { code: number | null; signal: string | null; timedOut: boolean; aborted: boolean } {
  return { code: exit.code, signal: exit.signal, timedOut: exit.timedOut, aborted: exit.aborted };
}
