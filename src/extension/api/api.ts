/**
 * The API this extension returns from `activate`, for other agent extensions:
 *
 * ```ts
 * const ext = vscode.extensions.getExtension<BoundedEvidenceApi>('bounded-evidence.bounded-evidence');
 * const api = await ext?.activate();
 * if (api?.version === 1) {
 *   const { observation, handle } = await api.record('my_search', { query }, hugeText);
 *   // give `observation` (bounded, < 8 KiB) to the model instead of hugeText;
 *   // later: await api.read({ handle, pattern: 'error' })
 * }
 * ```
 *
 * Versioning: `version` changes only on a breaking change; members are only added
 * within a version. Every type a caller needs is exported from this one file (the two
 * reader types are the run layer's, `src/core/runs/types.ts`). Results are recorded in this workspace's storage under
 * its tenant, exactly as the evidence tools record theirs; handles are read back by
 * `read` and by the `read_tool_output` tool, and the inspector lists every call.
 */
import type * as vscode from 'vscode';
import type { ReadToolOutputArgs, ReadToolOutputResult } from '../../core/index.js';

/** Where a result's bytes live. */
export type EvidenceStorageState = 'inline' | 'blob' | 'artifact' | 'preview_only';

/** What `record` returns. */
export interface RecordedObservation {
  /**
   * What to show the model instead of the result: the whole result when small, else a handle and previews (< 8 KiB).
   */
  readonly observation: string;
  /** The result's handle (`res_…`, opaque) when the result was elided or offloaded (read it back with `read`). */
  readonly handle?: string;
  readonly runId: string;
  readonly callId: string;
  /** Full size of the result in bytes (compact JSON for objects). */
  readonly byteCount: number;
  /** Lowercase hex sha256 of those bytes. */
  readonly sha256: string;
  readonly stored: EvidenceStorageState;
  /** `ok`, `error` (you passed `isError`), or `failed` (the bytes could not be kept as promised). */
  readonly status: 'ok' | 'error' | 'failed';
}

/** Options of `record`. */
export interface RecordOptions {
  /** The tool reported an error; the bytes are still kept. */
  readonly isError?: boolean;
  /** Record into a run opened with `startRun` instead of a run of its own. */
  readonly runId?: string;
}

/** Arguments of `read`: docs/contracts.md §2.5's `read_tool_output` (handle, offset, limit, pattern, bytes). */
export type ReadArgs = ReadToolOutputArgs;

/**
 * The reply of `read`: every field of docs/contracts.md §2.5 (the `read_tool_output` tool's pattern reply to a model
 * leaves out the call's echo, §2.5).
 */
export type ReadResult = ReadToolOutputResult;

/** Fired after a call was recorded (by a tool, a command, or any API caller). */
export interface RecordedCall {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly byteCount: number;
  readonly sha256: string;
  readonly handle?: string;
  readonly status: 'ok' | 'error' | 'failed';
}

/** A run opened by an API caller to group several calls (one agent task). */
export interface EvidenceRun {
  readonly runId: string;
  /** Same as `api.record(…, { runId })`. */
  record(
    toolName: string,
    input: Record<string, unknown>,
    result: string | Uint8Array | object,
    options?: { readonly isError?: boolean },
  ): Promise<RecordedObservation>;
  /** Ends the run (once). */
  finish(status?: 'completed' | 'failed' | 'cancelled'): Promise<void>;
}

/** Version 1 of the Bounded Evidence API. */
export interface BoundedEvidenceApi {
  readonly version: 1;
  /**
   * Records one tool result (text, raw bytes, or a JSON-able object measured as compact
   * JSON) and returns what the model should see. `toolName` must not be
   * `read_tool_output` (reserved). Rejects with an `Error` whose message is safe to log.
   */
  record(
    toolName: string,
    input: Record<string, unknown>,
    result: string | Uint8Array | object,
    options?: RecordOptions,
  ): Promise<RecordedObservation>;
  /** Reads a window of a recorded result by handle; a handle of another workspace is refused (access denied). */
  read(args: ReadArgs): Promise<ReadResult>;
  /** Opens a run for several calls; finish it when the task ends. */
  startRun(label?: string): Promise<EvidenceRun>;
  /** Pins a run (retention never deletes it) or unpins it. */
  setPinned(runId: string, pinned: boolean): Promise<void>;
  /** Every call recorded in this workspace from now on. */
  readonly onDidRecord: vscode.Event<RecordedCall>;
}
