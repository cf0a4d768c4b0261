/**
 * `RunStore` (one per tenant): starting, listing and reporting runs, resolving handles and
 * reading what they name, retention (docs/contracts.md §2). Recording is `Run`'s
 * (`run.ts`), command calls are `runCommand.ts`.
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
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { assertSafeSegment, isSafeSegment, type BlobKey } from '../blobs/blobKey.js';
import type { BlobStore } from '../blobs/blobStore.js';
import { ManifestCache, missingError, openVerified } from '../blobs/verifiedBlobs.js';
import { EvidenceError } from '../errors.js';
import { manifestOf, readVerified, streamVerified, verifyAll } from '../integrity.js';
import { encodeUtf8 } from '../utf8.js';
import { DEFAULT_CAPTURE_CAP_BYTES, DEFAULT_INLINE_ATTACHMENT_BYTES, DEFAULT_OFFLOAD_THRESHOLD_BYTES, DEFAULT_RUN_LIMITS, profileHash } from './decisions.js';
import { accessDenied, HandleIndex, type HandleEntry } from './handles.js';
import { checkLineCount, DEFAULT_READER_LIMITS, LINE_CUT_MARKER, readContent, validateReadArgs, type ContentView } from './reader.js';
import { nowIso, positiveInt } from './recordFields.js';
import { Run } from './run.js';
import { appendRecord, readRunLog, terminateTornTail, type ReadLogResult } from './runLog.js';
import type {
  CallFinishedRecord, CallReport, Disposable, HandleSource, Preservation, PruneOptions, PruneResult, ReadScope, ReadToolOutputArgs,
  ReadToolOutputResult, ReaderLimits, RecordedArtifacts, RunLimits, RunRecord, RunRecordEvent, RunStatus, RunStoreApi, RunStoreOptions, RunSummary,
  StartRunOptions, StoredContent,
} from './types.js';

// The store's public surface includes the recorder and command calls, split by idea.
export { Run } from './run.js';
export { RUN_COMMAND_TOOL, type RunCommandExtras } from './runCommand.js';

/** An unfinished run whose log was written to within this window counts as running (another window may own it). */
const RUNNING_GRACE_MS = 10 * 60 * 1000;

/** Longest handle that can resolve (contract 2.5: 1–256 characters). */
const MAX_HANDLE_LENGTH = 256;

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
  private readonly artifacts: RecordedArtifacts | undefined;

  private constructor(options: RunStoreOptions, dir: string) {
    this.tenant = options.tenant;
    this.dir = dir;
    this.blobs = options.blobs;
    this.artifacts = options.artifacts;
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
          previewRange: r.previewRange, sha256: r.sha256, stored: r.stored, ...(r.artifactId ? { artifactId: r.artifactId, ...(r.manifestDigest ? { manifestDigest: r.manifestDigest } : {}) } : {}),
          readable: r.readable, contentType: r.contentType, lineCount: r.lineCount, binary: r.binary, attachments: r.attachments,
        });
      }
    }
    return order.map((id) => started.get(id)!);
  }

  /** Contract 2.5 over handles minted by this tenant's runs (or the runs in `scope`). */
  async readToolOutput(args: ReadToolOutputArgs, scope?: ReadScope): Promise<ReadToolOutputResult> {
    const req = validateReadArgs(args, this.readerLimits);
    const entry = await this.resolve(req.handle, scope);
    const view = await this.openView(entry);
    return readContent(view, req, this.readerLimits);
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
    } else if (c.stored === 'artifact') {
      // The artifact store holds these bytes once; they are read (and verified) as `.tool-artifacts/…` ranges are.
      if (!this.artifacts || !c.artifactId || !c.manifestDigest) throw missingError();
      const { manifest, source } = await this.artifacts.openRecorded({ artifactId: c.artifactId, byteCount, sha256: c.sha256 }, c.manifestDigest)
        .catch((e: unknown) => { throw e instanceof EvidenceError && e.code === 'notAvailable' ? missingError() : e; });
      view = { manifest, source, lineCount: c.lineCount, binary: c.binary };
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
