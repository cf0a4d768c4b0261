/**
 * The run log's schema (docs/contracts.md §2.2), the durable contract: logs of any earlier version must keep reading,
 * so changes are additive only.
 */
import type { RunOwner } from './owner.js';

export type StorageState = 'inline' | 'blob' | 'artifact' | 'preview_only';

/** `error`: the tool itself failed; `failed`: the evidence layer could not keep the bytes as promised. */
export type CallStatus = 'ok' | 'error' | 'failed';

export type CallErrorCode = 'blob_store_required' | 'backend' | 'tool_error' | 'spawn_failed' | 'timeout' | 'aborted';

/** The message is safe to show a model. */
export interface CallError {
  readonly code: CallErrorCode;
  /** No host paths, no stored bytes. */
  readonly message: string;
}

/** `interrupted`: written by `finishInterrupted` for a run whose writer died. */
export type RunFinishStatus = 'completed' | 'failed' | 'cancelled' | 'interrupted';

export interface PreviewRange {
  /** On a code-point boundary. */
  readonly headEnd: number;
  readonly tailStart: number;
}

export interface StoredContent {
  readonly contentType: string;
  /** Computed even when they were not kept. */
  readonly sha256: string;
  readonly stored: StorageState;
  /** Exactly as the model saw it. Empty for binary. */
  readonly preview: string;
  readonly previewRange?: PreviewRange;
  readonly inline?: string;
  readonly inlineBase64?: string;
  readonly manifestDigest?: string;
  /** The bytes are kept once (docs/contracts.md §2.9). */
  readonly artifactId?: string;
  /** 0 when empty. */
  readonly lineCount: number;
  /** Reported, never rendered. */
  readonly binary: boolean;
  readonly readable: boolean;
  /** docs/contracts.md §2.13. Absent in older logs. */
  readonly errorLines?: ErrorLines;
}

export interface ErrorLines {
  readonly total: number;
  readonly pattern: string;
  readonly scannedBytes?: number;
  readonly lines: readonly {
    readonly lineNumber: number;
    readonly byteOffset: number;
    readonly text: string;
    readonly window?: { readonly start: number; readonly end: number };
  }[];
}

/** docs/contracts.md §2.4. */
export interface AttachmentRecord extends StoredContent {
  readonly name: string;
  readonly slot: string;
  readonly handle: string;
  readonly sizeBytes: number;
  /** Counted past the cap. */
  readonly observedBytes: number;
  readonly truncated: boolean;
}

export interface RunStartedRecord {
  readonly type: 'run_started';
  readonly runId: string;
  readonly tenant: string;
  readonly startedAt: string;
  readonly profileHash: string;
  readonly label?: string;
  readonly pinned?: boolean;
  /** Absent in older logs. */
  readonly owner?: RunOwner;
  /** Absent in older logs: read as `{ kind: 'tool' }`. */
  readonly source?: RunSource;
}

export interface CallStartedRecord {
  readonly type: 'call_started';
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly startedAt: string;
}

export interface CallFinishedRecord extends StoredContent {
  readonly type: 'call_finished';
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly status: CallStatus;
  readonly error?: CallError;
  readonly resultBytes: number;
  readonly elided: boolean;
  /** Set when the result was elided or offloaded. */
  readonly resultHandle?: string;
  readonly attachments: readonly AttachmentRecord[];
}

/** Retention never prunes a pinned run. */
interface RunPinnedRecord {
  readonly type: 'run_pinned';
  readonly runId: string;
  readonly pinned: boolean;
  readonly at: string;
}

interface RunFinishedRecord {
  readonly type: 'run_finished';
  readonly runId: string;
  readonly finishedAt: string;
  readonly status: RunFinishStatus;
}

/**
 * What a model was handed of a finished call, in UTF-8 bytes (docs/contracts.md §2.14), appended once the answer is
 * final.
 */
export interface CallShownRecord {
  readonly type: 'call_shown';
  readonly runId: string;
  readonly callId: string;
  readonly view: 'answer' | 'read';
  readonly bytes: number;
  readonly handle?: string;
  /** A small routed output given back whole. */
  readonly whole?: boolean;
  readonly at: string;
}

export type RunRecord =
  RunStartedRecord | CallStartedRecord | CallFinishedRecord | RunPinnedRecord | RunFinishedRecord | CallShownRecord;

export interface LogProblem {
  readonly line: number;
  /** `torn_tail`: crash mid-append; the others are mid-file. */
  readonly kind: 'torn_tail' | 'invalid_json' | 'wrong_shape';
  /** Never the line's content. */
  readonly detail: string;
}

/** docs/contracts.md §2.2.1. */
export interface RunSource {
  readonly kind: 'tool' | 'participant' | 'hook' | 'cli' | 'mcp' | 'command' | 'api';
  readonly agent?: string;
  /** So one conversation's runs can be found together. */
  readonly sessionId?: string;
}
