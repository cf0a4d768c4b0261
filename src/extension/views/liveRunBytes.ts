/** A running run's bytes so far, from capture progress. */
import type { CaptureProgressEvent, RunRecordEvent } from '../../core/index.js';

export class LiveRunBytes {
  private readonly streams = new Map<string, Map<string, number>>();

  /** True when a figure changed. */
  progress(e: CaptureProgressEvent): boolean {
    const calls = this.streams.get(e.runId) ?? new Map<string, number>();
    const key = `${e.callId}/${e.stream}`;
    if (calls.get(key) === e.bytes) return false;
    calls.set(key, e.bytes);
    this.streams.set(e.runId, calls);
    return true;
  }

  record({ runId, record }: RunRecordEvent): void {
    if (record.type === 'call_finished') {
      const calls = this.streams.get(runId);
      for (const key of [...(calls?.keys() ?? [])]) if (key.startsWith(`${record.callId}/`)) calls!.delete(key);
      if (calls?.size === 0) this.streams.delete(runId);
    } else if (record.type === 'run_finished') this.streams.delete(runId);
  }

  of(runId: string): number | undefined {
    const calls = this.streams.get(runId);
    if (!calls) return undefined;
    let sum = 0;
    for (const n of calls.values()) sum += n;
    return sum;
  }

  clear(): void {
    this.streams.clear();
  }
}
