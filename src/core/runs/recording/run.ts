/** `Run`: one live run recording its calls into its log and the store's blobs (docs/contracts.md §2). */
import { EvidenceError } from '../../errors.js';
import { manifestOf, totalNewlines } from '../../integrity/integrity.js';
import { captureOutput, once, type Captured } from './capture.js';
import { ContentTypes, decideElision, decideResultStorage, lineCountOf, measureResult } from './decisions.js';
import { ErrorScan, type ErrorScanResult } from '../errorLines/errorLines.js';
import { mintResultHandle } from '../log/handles.js';
import { resultObservation } from './observation.js';
import { backendMessage, nowIso, storedFields } from './recordFields.js';
import type { RunningCommand } from '../processes/command.js';
import { runCommandCall } from './commandCall.js';
import { appendRecord, terminateTornTail } from '../log/runLog.js';
import type { CallRecorder, RunHost } from './runHost.js';
import type {
  AttachmentRecord,
  CallError,
  CallFinishedRecord,
  CallOutcome,
  CallStatus,
  ReadToolOutputArgs,
  ReadToolOutputResult,
  RecordResultOptions,
  RunApi,
  RunCommandOptions,
  RunFinishStatus,
  RunRecord,
  StoredArtifact,
} from '../types.js';

const SCAN_PIECE_BYTES = 1024 * 1024;

/**
 * docs/contracts.md §2.13. A streamed file is never held whole; the scan copies what it retains, so a reused piece is
 * safe.
 */
async function scanArtifact(
  range: (a: number, b: number) => Promise<Uint8Array>,
  n: number,
  pieces: StoredArtifact['pieces'],
): Promise<ErrorScanResult> {
  const scan = new ErrorScan();
  if (pieces) for await (const piece of pieces()) scan.push(piece);
  else for (let at = 0; at < n; at += SCAN_PIECE_BYTES) scan.push(await range(at, Math.min(n, at + SCAN_PIECE_BYTES)));
  return scan.end();
}

export class Run implements RunApi, CallRecorder {
  readonly tenant: string;
  private seq = 0;
  private finished = false;
  private chain: Promise<unknown> = Promise.resolve();

  /** @internal Use `RunStore.startRun`. */
  constructor(
    /** @internal */ readonly store: RunHost,
    readonly runId: string,
    private readonly token: string,
  ) {
    this.tenant = store.tenant;
  }

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
      const bytes = await appendRecord(this.store.logPath(this.runId), record);
      await this.store.recorded(this.runId, record, bytes);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** @internal Appends `call_started` and returns the new call id. */
  async startCall(tool: string, args: Record<string, unknown>): Promise<{ callId: string; startedAt: string }> {
    if (typeof tool !== 'string' || tool.length === 0)
      throw new EvidenceError('invalidArgument', 'tool name must be a non-empty string');
    if (args === null || typeof args !== 'object' || Array.isArray(args))
      throw new EvidenceError('invalidArgument', 'tool arguments must be an object');
    if (this.finished) throw new EvidenceError('invalidArgument', 'run is finished');
    const callId = `${this.token}-${++this.seq}`;
    const startedAt = nowIso();
    await this.append({ type: 'call_started', runId: this.runId, callId, tool, arguments: args, startedAt });
    return { callId, startedAt };
  }

  async recordResult(
    tool: string,
    args: Record<string, unknown>,
    result: string | Uint8Array | object,
    options: RecordResultOptions = {},
  ): Promise<CallOutcome> {
    const measured = measureResult(result);
    const call = await this.startCall(tool, args);
    return this.finishResult(
      call,
      tool,
      args,
      once(measured.bytes),
      options.contentType ?? measured.contentType,
      options,
      [],
    );
  }

  /**
   * The handle reads the artifact through the same verified reader as `.tool-artifacts/…` ranges, so the bytes are
   * kept once (docs/contracts.md §2.9).
   */
  async recordArtifact(
    tool: string,
    args: Record<string, unknown>,
    artifact: StoredArtifact,
    options: RecordResultOptions = {},
  ): Promise<CallOutcome> {
    const s = this.store;
    const call = await this.startCall(tool, args);
    const { manifest: m } = artifact;
    const n = m.byteCount;
    const held = artifact.bytes instanceof Uint8Array ? artifact.bytes : undefined;
    if (held && held.length !== n)
      throw new EvidenceError('invalidArgument', 'artifact bytes do not match their manifest');
    const binary = !m.utf8;
    // An artifact not held in memory cannot be shown whole.
    const elide = !held || decideElision(n, s.limits.largeResultBytes, binary);
    const p = s.limits.previewBytes;
    const read = artifact.bytes;
    const range = async (a: number, b: number): Promise<Uint8Array> =>
      a >= b ? new Uint8Array(0) : typeof read === 'function' ? read(a, b) : read.subarray(a, b);
    const head = await range(0, Math.min(p, n));
    const tail = await range(Math.max(0, n - p), n);
    const last = (await range(Math.max(0, n - 1), n))[0];
    const errorScan =
      elide && !binary && n > p && s.errorLines ? await scanArtifact(range, n, artifact.pieces) : undefined;
    const captured: Captured = {
      stored: 'artifact',
      sizeBytes: n,
      observedBytes: n,
      truncated: false,
      sha256: m.sha256,
      manifestDigest: artifact.manifestDigest,
      inlineBytes: elide ? undefined : held,
      head,
      tail,
      lineCount: lineCountOf(totalNewlines(m), n, last),
      binary,
      stopped: false,
      ...(errorScan ? { errorScan } : {}),
    };
    const record: CallFinishedRecord = {
      type: 'call_finished',
      runId: this.runId,
      callId: call.callId,
      tool,
      arguments: args,
      startedAt: call.startedAt,
      finishedAt: nowIso(),
      status: options.isError ? 'error' : 'ok',
      ...(options.isError ? { error: { code: 'tool_error', message: 'the tool reported an error' } } : {}),
      resultBytes: n,
      elided: elide,
      ...(elide ? { resultHandle: mintResultHandle() } : {}),
      ...storedFields(captured, options.contentType ?? ContentTypes.text, !elide, p, true, options.isError === true),
      artifactId: artifact.artifactId,
      attachments: [],
    };
    await this.append(record);
    return {
      callId: call.callId,
      status: record.status,
      ...(record.resultHandle ? { handle: record.resultHandle } : {}),
      modelText: resultObservation(record),
      record,
    };
  }

  /** Bounded memory. */
  async recordStream(
    tool: string,
    args: Record<string, unknown>,
    body: AsyncIterable<Uint8Array>,
    options: RecordResultOptions = {},
  ): Promise<CallOutcome> {
    const call = await this.startCall(tool, args);
    return this.finishResult(call, tool, args, body, options.contentType ?? ContentTypes.text, options, []);
  }

  /**
   * Captures a result and appends `call_finished`. `failure` (from a command) overrides
   * the status; a backend error while keeping the result is recorded as `failed`.
   * @internal
   */
  async finishResult(
    call: { callId: string; startedAt: string },
    tool: string,
    args: Record<string, unknown>,
    body: AsyncIterable<Uint8Array>,
    contentType: string,
    options: RecordResultOptions,
    attachments: AttachmentRecord[],
    failure?: { status: CallStatus; error: CallError },
  ): Promise<CallOutcome> {
    const s = this.store;
    const { callId } = call;
    let captured: Captured;
    try {
      captured = await captureOutput(body, {
        store: s.blobs,
        key: { tenant: this.tenant, runId: this.runId, callId },
        inlineMaxBytes: s.offloadThresholdBytes,
        capBytes: Number.POSITIVE_INFINITY,
        previewBytes: s.limits.previewBytes,
        scanErrors: s.errorLines,
      });
    } catch (e) {
      return this.recordFailure(call, tool, args, attachments, { code: 'backend', message: backendMessage(e) });
    }
    const decision = decideResultStorage({
      resultBytes: captured.sizeBytes,
      largeResultBytes: s.limits.largeResultBytes,
      offloadThresholdBytes: s.offloadThresholdBytes,
      hasBlobStore: s.blobs !== undefined,
      binary: captured.binary,
    });
    const elide = decision.elide;
    let status: CallStatus = options.isError ? 'error' : 'ok';
    let error: CallError | undefined = options.isError
      ? { code: 'tool_error', message: 'the tool reported an error' }
      : undefined;
    if (failure) ({ status, error } = failure);
    if (decision.failure) {
      status = 'failed';
      error = {
        code: 'blob_store_required',
        message: `the result (${captured.sizeBytes} bytes) needs a blob store and none is configured`,
      };
    }
    const record: CallFinishedRecord = {
      type: 'call_finished',
      runId: this.runId,
      callId,
      tool,
      arguments: args,
      startedAt: call.startedAt,
      finishedAt: nowIso(),
      status,
      ...(error ? { error } : {}),
      resultBytes: captured.sizeBytes,
      elided: elide,
      ...(elide ? { resultHandle: mintResultHandle() } : {}),
      // docs/contracts.md §2.13.
      ...storedFields(
        captured,
        contentType,
        !elide,
        s.limits.previewBytes,
        decision.stored !== 'preview_only',
        status !== 'ok',
      ),
      attachments,
    };
    await this.append(record);
    return {
      callId,
      status,
      ...(record.resultHandle ? { handle: record.resultHandle } : {}),
      modelText: resultObservation(record),
      record,
    };
  }

  /** Nothing readable is minted for the result. */
  private async recordFailure(
    call: { callId: string; startedAt: string },
    tool: string,
    args: Record<string, unknown>,
    attachments: AttachmentRecord[],
    error: CallError,
  ): Promise<CallOutcome> {
    const empty = manifestOf(new Uint8Array(0));
    const record: CallFinishedRecord = {
      type: 'call_finished',
      runId: this.runId,
      callId: call.callId,
      tool,
      arguments: args,
      startedAt: call.startedAt,
      finishedAt: nowIso(),
      status: 'failed',
      error,
      resultBytes: 0,
      elided: false,
      contentType: ContentTypes.text,
      sha256: empty.sha256,
      stored: 'inline',
      inline: '',
      preview: '',
      lineCount: 0,
      binary: false,
      readable: true,
      attachments,
    };
    await this.append(record);
    return { callId: call.callId, status: 'failed', modelText: `error: ${error.message}`, record };
  }

  runCommand(command: string, options: RunCommandOptions): Promise<CallOutcome> {
    return runCommandCall(this, command, options);
  }

  /**
   * A routed agent command ran in the agent's own shell (docs/contracts.md §6.1): recorded exactly as `runCommand`
   * records its own.
   */
  recordCommand(command: string, options: RunCommandOptions, started: RunningCommand): Promise<CallOutcome> {
    return runCommandCall(this, command, options, started);
  }

  readToolOutput(args: ReadToolOutputArgs): Promise<ReadToolOutputResult> {
    return this.store.readToolOutput(args, { runIds: [this.runId] });
  }

  async finish(status: RunFinishStatus = 'completed'): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await this.append({ type: 'run_finished', runId: this.runId, finishedAt: nowIso(), status });
  }
}
