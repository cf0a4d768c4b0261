/** Records batched into one `changed` delta, capture progress at a bounded rate. */
import type {
  CallFinishedRecord,
  CallStartedRecord,
  CaptureProgressEvent,
  RunRecordEvent,
  RunStoreApi,
} from '../../core/index.js';
import type { CallDto, HostToWebview, LiveStreamDto, RunDto } from '../../shared/protocol.js';
import { callFromRecord, toRunDto } from './mapping.js';

const liveIntervalMs = 500;

export interface LiveDeltaDeps {
  store(): Promise<RunStoreApi>;
  post(message: HostToWebview): void;
  /** It may be hidden before a batch goes. */
  stillReady(): boolean;
  warn(message: string, e: unknown): void;
  readonly deltaDelayMs?: number;
}

export class LiveDeltas {
  private pending: RunRecordEvent[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private liveStreams = new Map<string, CaptureProgressEvent>();
  private liveTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly liveDecoder = new TextDecoder('utf-8', { fatal: false });

  constructor(private readonly deps: LiveDeltaDeps) {}

  dispose(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.liveTimer) clearTimeout(this.liveTimer);
  }

  record(e: RunRecordEvent): void {
    this.pending.push(e);
    this.flushTimer ??= setTimeout(() => {
      void this.flush();
    }, this.deps.deltaDelayMs ?? 150);
  }

  private async flush(): Promise<void> {
    this.flushTimer = undefined;
    const events = this.pending;
    this.pending = [];
    if (!this.deps.stillReady() || events.length === 0) return;
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
      const store = await this.deps.store();
      const touched = new Set(events.map((e) => e.runId));
      // Only the touched runs, looked up in the catalog.
      const ids = [...touched].slice(0, 1000);
      runs = (await store.queryRuns({ runIds: ids, limit: ids.length })).map(toRunDto);
    } catch (e) {
      this.deps.warn('inspector: could not list runs for a live update', e);
    }
    // The page may have gone meanwhile.
    if (!this.deps.stillReady()) return;
    this.deps.post({ type: 'changed', runs, calls: [...calls.values()] });
  }

  progress(e: CaptureProgressEvent): void {
    this.liveStreams.set(`${e.runId}/${e.callId}/${e.stream}`, e);
    this.liveTimer ??= setTimeout(() => this.flushLive(), liveIntervalMs);
  }

  private flushLive(): void {
    this.liveTimer = undefined;
    const events = [...this.liveStreams.values()];
    this.liveStreams = new Map();
    if (!this.deps.stillReady() || events.length === 0) return;
    const streams: LiveStreamDto[] = events.map((e) => ({
      runId: e.runId,
      callId: e.callId,
      stream: e.stream,
      bytes: e.bytes,
      // The tail may begin inside a character: drop what decodes to a replacement at its start.
      tail: this.liveDecoder.decode(e.tail).replace(/^\uFFFD+/, ''),
    }));
    this.deps.post({ type: 'live', streams });
  }
}
