/** Every call goes through the current run store, exactly like the evidence tools. */
import * as vscode from 'vscode';
import { boundModelText, withRun, type CallOutcome, type Run, type RunFinishStatus } from '../../core/index.js';
import type { BoundedEvidenceApi, EvidenceRun, RecordedCall, RecordedObservation } from './api.js';
import { Ids } from '../ids.js';
import type { ServicesHost } from '../services.js';

function observationOf(runId: string, o: CallOutcome): RecordedObservation {
  return {
    observation: boundModelText(o.modelText),
    ...(o.handle !== undefined ? { handle: o.handle } : {}),
    runId,
    callId: o.callId,
    byteCount: o.record.resultBytes,
    sha256: o.record.sha256,
    stored: o.record.stored,
    status: o.status,
  };
}

function checkToolName(toolName: unknown): string {
  if (typeof toolName !== 'string' || toolName.length === 0 || toolName.length > 256)
    throw new Error('toolName must be a non-empty string');
  if (toolName === Ids.tools.readToolOutput) throw new Error('read_tool_output is a reserved tool name');
  return toolName;
}

export function createApi(host: ServicesHost, subscriptions: vscode.Disposable[]): BoundedEvidenceApi {
  const open = new Map<string, Run>();
  const emitter = new vscode.EventEmitter<RecordedCall>();
  subscriptions.push(
    emitter,
    host.onDidRecord(({ runId, record }) => {
      if (record.type !== 'call_finished') return;
      emitter.fire({
        runId,
        callId: record.callId,
        tool: record.tool,
        byteCount: record.resultBytes,
        sha256: record.sha256,
        status: record.status,
        ...(record.resultHandle !== undefined ? { handle: record.resultHandle } : {}),
      });
    }),
  );

  const recordIn = async (
    run: Run,
    toolName: string,
    input: Record<string, unknown>,
    result: string | Uint8Array | object,
    isError?: boolean,
  ): Promise<RecordedObservation> => {
    const outcome = await run.recordResult(checkToolName(toolName), input ?? {}, result, { isError: isError === true });
    return observationOf(run.runId, outcome);
  };

  const wrap = (run: Run): EvidenceRun => ({
    runId: run.runId,
    record: (toolName, input, result, options) => recordIn(run, toolName, input, result, options?.isError),
    finish: async (status?: RunFinishStatus) => {
      open.delete(run.runId);
      await run.finish(status);
    },
  });

  return {
    version: 1,
    async record(toolName, input, result, options) {
      if (options?.runId !== undefined) {
        const run = open.get(options.runId);
        if (!run) throw new Error('unknown run: open one with startRun and pass its runId');
        return await recordIn(run, toolName, input, result, options.isError);
      }
      checkToolName(toolName);
      return withRun(
        (await host.get()).runs,
        { label: `api: ${toolName}`, source: { kind: 'api' } },
        async (run, finishAs) => {
          const recorded = await recordIn(run, toolName, input, result, options?.isError);
          finishAs('completed');
          return recorded;
        },
      );
    },
    async read(args) {
      return await (await host.get()).runs.readToolOutput(args);
    },
    async startRun(label) {
      const run = await (
        await host.get()
      ).runs.startRun({ label: typeof label === 'string' ? label.slice(0, 200) : 'api run', source: { kind: 'api' } });
      open.set(run.runId, run);
      return wrap(run);
    },
    async setPinned(runId, pinned) {
      await (await host.get()).runs.setPinned(runId, pinned === true);
    },
    onDidRecord: emitter.event,
  };
}
