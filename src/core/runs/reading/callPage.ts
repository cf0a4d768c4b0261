/**
 * The inspector's list page (docs/architecture.md §6): each call read back from its run log by the offset the catalog
 * holds, so a page costs a read per call whatever the number of runs; only a run with an unfinished call is read
 * whole.
 */
import { promises as fsp } from 'node:fs';
import { finishedRecordAt } from '../log/runLog.js';
import type {
  CallFinishedRecord,
  CallPage,
  CallReport,
  CallReportPage,
  CallSummary,
  RunRecord,
  RunSummary,
} from '../types.js';

/** `running`: its run is live here. */
export function callReportsOf(runId: string, records: readonly RunRecord[], running: boolean): CallReport[] {
  const started = new Map<string, CallReport>();
  const order: string[] = [];
  const finishedRun = records.some((r) => r.type === 'run_finished');
  for (const r of records) {
    if (r.type === 'call_started' && !started.has(r.callId)) {
      order.push(r.callId);
      started.set(r.callId, {
        runId,
        callId: r.callId,
        tool: r.tool,
        arguments: r.arguments,
        status: running && !finishedRun ? 'running' : 'interrupted',
        startedAt: r.startedAt,
        resultBytes: 0,
        elided: false,
        preview: '',
        readable: false,
        binary: false,
        attachments: [],
      });
    } else if (r.type === 'call_finished') {
      if (!started.has(r.callId)) order.push(r.callId);
      started.set(r.callId, callReportOf(runId, r));
    }
  }
  return order.map((id) => started.get(id)!);
}

function callReportOf(runId: string, r: CallFinishedRecord): CallReport {
  return {
    runId,
    callId: r.callId,
    tool: r.tool,
    arguments: r.arguments,
    status: r.status,
    error: r.error,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    resultBytes: r.resultBytes,
    elided: r.elided,
    handle: r.resultHandle,
    preview: r.preview,
    previewRange: r.previewRange,
    sha256: r.sha256,
    stored: r.stored,
    ...(r.artifactId
      ? { artifactId: r.artifactId, ...(r.manifestDigest ? { manifestDigest: r.manifestDigest } : {}) }
      : {}),
    readable: r.readable,
    contentType: r.contentType,
    lineCount: r.lineCount,
    binary: r.binary,
    attachments: r.attachments,
    ...(r.errorLines ? { errorLines: r.errorLines } : {}),
  };
}

export interface CallPageSource {
  logPath(runId: string): string;
  /** The fallback for an unfinished call, or a record that moved. */
  report(runId: string): Promise<CallReport[]>;
  /** No log read. */
  run(runId: string): RunSummary | undefined;
}

function recordAt(fh: fsp.FileHandle, c: CallSummary): Promise<CallFinishedRecord | undefined> {
  return c.logRecord
    ? finishedRecordAt(fh, c.runId, c.callId, c.logRecord.offset, c.logRecord.length)
    : Promise.resolve(undefined);
}

/**
 * A call whose record is not where the catalog says is taken from `report(runId)`, so the answer always agrees with
 * the logs.
 */
export async function reportPage(page: CallPage, src: CallPageSource): Promise<Omit<CallReportPage, 'tools'>> {
  const byRun = new Map<string, CallSummary[]>();
  for (const c of page.rows) {
    let list = byRun.get(c.runId);
    if (!list) byRun.set(c.runId, (list = []));
    list.push(c);
  }
  const found = new Map<CallSummary, CallReport>();
  let logReads = 0;
  for (const [runId, rows] of byRun) {
    const finished = rows.filter((c) => c.logRecord !== undefined);
    let missing = rows.length - finished.length;
    if (finished.length > 0) {
      const fh = await fsp.open(src.logPath(runId), 'r').catch(() => undefined);
      if (fh) {
        try {
          for (const c of finished) {
            logReads++;
            const r = await recordAt(fh, c);
            if (r) found.set(c, callReportOf(runId, r));
            else missing++;
          }
        } finally {
          await fh.close();
        }
      } else missing += finished.length;
    }
    if (missing > 0) {
      logReads++;
      const all = new Map((await src.report(runId)).map((r) => [r.callId, r]));
      for (const c of rows) {
        if (found.has(c)) continue;
        const r = all.get(c.callId);
        if (r) found.set(c, r);
      }
    }
  }
  const calls: CallReport[] = [];
  for (const c of page.rows) {
    const r = found.get(c);
    // Deleted between the catalog read and this one.
    if (r) calls.push(r);
  }
  const runs: RunSummary[] = [];
  for (const runId of byRun.keys()) {
    const r = src.run(runId);
    if (r) runs.push(r);
  }
  return { total: page.total, offset: page.offset, calls, runs, logReads };
}
