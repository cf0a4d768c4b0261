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

export type EvidenceStorageState = 'inline' | 'blob' | 'artifact' | 'preview_only';

export interface RecordedObservation {
  /** The whole result when small, else a handle and previews (< 8 KiB). */
  readonly observation: string;
  /** Opaque; read it back with `read`. */
  readonly handle?: string;
  readonly runId: string;
  readonly callId: string;
  /** Compact JSON for objects. */
  readonly byteCount: number;
  readonly sha256: string;
  readonly stored: EvidenceStorageState;
  /** `error`: you passed `isError`; `failed`: the bytes could not be kept as promised. */
  readonly status: 'ok' | 'error' | 'failed';
}

export interface RecordOptions {
  /** The bytes are still kept. */
  readonly isError?: boolean;
  readonly runId?: string;
}

/** docs/contracts.md §2.5. */
export type ReadArgs = ReadToolOutputArgs;

/** docs/contracts.md §2.5. */
export type ReadResult = ReadToolOutputResult;

export interface RecordedCall {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly byteCount: number;
  readonly sha256: string;
  readonly handle?: string;
  readonly status: 'ok' | 'error' | 'failed';
}

export interface EvidenceRun {
  readonly runId: string;
  record(
    toolName: string,
    input: Record<string, unknown>,
    result: string | Uint8Array | object,
    options?: { readonly isError?: boolean },
  ): Promise<RecordedObservation>;
  finish(status?: 'completed' | 'failed' | 'cancelled'): Promise<void>;
}

export interface BoundedEvidenceApi {
  readonly version: 1;
  /** `toolName` must not be `read_tool_output` (reserved). Rejects with an `Error` whose message is safe to log. */
  record(
    toolName: string,
    input: Record<string, unknown>,
    result: string | Uint8Array | object,
    options?: RecordOptions,
  ): Promise<RecordedObservation>;
  /** A handle of another workspace is refused. */
  read(args: ReadArgs): Promise<ReadResult>;
  startRun(label?: string): Promise<EvidenceRun>;
  /** Retention never deletes a pinned run. */
  setPinned(runId: string, pinned: boolean): Promise<void>;
  readonly onDidRecord: vscode.Event<RecordedCall>;
}
