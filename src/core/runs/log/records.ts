/**
 * The run log's schema (docs/contracts.md §2.2): every record a run log holds and the
 * fields they share. This is the durable contract: logs written by any earlier version
 * must keep reading, so changes here are additive only. It imports nothing of the run
 * layer but the owner's shape, so the log, the catalog and the recorder all sit above it.
 */
import type { RunOwner } from './owner.js';

/** Where a result's or attachment's bytes live. */
export type StorageState = 'inline' | 'blob' | 'artifact' | 'preview_only';

/**
 * How a call ended: `ok` the tool produced its result (a command ran, whatever its exit
 * code), `error` the tool itself failed (could not start, timed out, was aborted, or the
 * caller marked the result as an error), `failed` the evidence layer could not keep the
 * bytes as promised (no blob store, a backend failure): nothing of it counts as success.
 */
export type CallStatus = 'ok' | 'error' | 'failed';

/** Why a call is not `ok`. */
export type CallErrorCode = 'blob_store_required' | 'backend' | 'tool_error' | 'spawn_failed' | 'timeout' | 'aborted';

/** A call's failure, as recorded (the message is safe to show a model). */
export interface CallError {
  /** Machine-readable reason. */
  readonly code: CallErrorCode;
  /** One sentence for a model or a person; no host paths, no stored bytes. */
  readonly message: string;
}

/** How a run ended (`finish(status)`; `interrupted` is written by `finishInterrupted` for a run whose writer died). */
export type RunFinishStatus = 'completed' | 'failed' | 'cancelled' | 'interrupted';

/** The byte ranges a preview shows: head `[0, headEnd)` and tail `[tailStart, size)`. */
export interface PreviewRange {
  /** End of the head (exclusive), on a code-point boundary. */
  readonly headEnd: number;
  /** Start of the tail; equals `headEnd` (or the size) when nothing was omitted. */
  readonly tailStart: number;
}

/** Fields shared by a call's result and by each attachment: what is known of some bytes. */
export interface StoredContent {
  /** MIME type: `text/plain; charset=utf-8`, `application/json` or `application/octet-stream`. */
  readonly contentType: string;
  /** Lowercase hex sha256 of the kept bytes (computed even when they were not kept). */
  readonly sha256: string;
  /** Where the kept bytes live. */
  readonly stored: StorageState;
  /**
   * The preview exactly as the model saw it: the whole text when it was not elided,
   * else head + `\n…[N bytes omitted]…\n` + tail (see `previewRange`). Empty for binary.
   */
  readonly preview: string;
  /** Byte ranges behind `preview` when it is a head/tail excerpt. */
  readonly previewRange?: PreviewRange;
  /** The bytes as UTF-8 text when `stored` is `inline` and they are text. */
  readonly inline?: string;
  /** The bytes, base64, when `stored` is `inline` and they are not valid UTF-8. */
  readonly inlineBase64?: string;
  /**
   * sha256 of the serialised integrity manifest stored beside a blob (`stored: 'blob'`) or an artifact
   * (`stored: 'artifact'`).
   */
  readonly manifestDigest?: string;
  /**
   * The artifact that holds the bytes when `stored` is `artifact` (`evidence_readFile`: the bytes are kept once,
   * docs/contracts.md §2.9).
   */
  readonly artifactId?: string;
  /** Number of lines: `\n` count, plus one when the last byte is not `\n` (0 when empty). */
  readonly lineCount: number;
  /** True when the bytes are not strictly valid UTF-8: reported, never rendered. */
  readonly binary: boolean;
  /** False when the bytes cannot be read back (`preview_only`). */
  readonly readable: boolean;
  /**
   * The lines that most likely explain a failure, as the first view showed them (docs/contracts.md
   * §2.13): set only when the content was shown by preview and a rule matched. Absent in older logs.
   */
  readonly errorLines?: ErrorLines;
}

/** Error lines of an output shown in its first view (docs/contracts.md §2.13). */
export interface ErrorLines {
  /** Lines of the whole output the rules count (what `pattern` finds: `total_matches`). */
  readonly total: number;
  /** The `read_tool_output` pattern that finds every counted line (the union of the rules that matched). */
  readonly pattern: string;
  /** Set when the scan stopped at its limit (1 GiB): `total` counts the lines of bytes [0, scannedBytes) only. */
  readonly scannedBytes?: number;
  /** The lines shown, in output order. */
  readonly lines: readonly {
    /** 1-based. */
    readonly lineNumber: number;
    /** Offset of the line's first match, in bytes (as `read_tool_output` reports it). */
    readonly byteOffset: number;
    /** The exact text: the whole line, or a window around the match (`…` before, `…[line cut]` after). */
    readonly text: string;
    /** Set when `text` is a window: the output byte range [start, end) it shows. */
    readonly window?: { readonly start: number; readonly end: number };
  }[];
}

/** One output of a call (docs/contracts.md §2.4): a command's stdout, stderr, exit value, files. */
export interface AttachmentRecord extends StoredContent {
  /** `stdout`, `stderr`, `value` or `file:<name>`. */
  readonly name: string;
  /**
   * Safe token used in the blob key (`stdout`, `stderr`, `value`, `f1`, …; in the handle of records written before
   * opaque handles).
   */
  readonly slot: string;
  /** `out_` and 26 random base32 characters (`out_<callId>_<slot>` in records written before). */
  readonly handle: string;
  /** Bytes kept (at most the capture cap). */
  readonly sizeBytes: number;
  /** Bytes the tool produced (counted past the cap, never dropped from the count). */
  readonly observedBytes: number;
  /** True when capture stopped keeping bytes at its cap. */
  readonly truncated: boolean;
}

/** First record of a run log. */
export interface RunStartedRecord {
  readonly type: 'run_started';
  readonly runId: string;
  readonly tenant: string;
  /** ISO 8601. */
  readonly startedAt: string;
  /** Stable hash of the agent profile (limits and tool set), see `profileHash`. */
  readonly profileHash: string;
  readonly label?: string;
  readonly pinned?: boolean;
  /** The process writing the run (absent in older logs), see owner.ts. */
  readonly owner?: RunOwner;
  /** Which front end started the run (absent in older logs: read as `{ kind: 'tool' }`). */
  readonly source?: RunSource;
}

/** A tool call began. */
export interface CallStartedRecord {
  readonly type: 'call_started';
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly startedAt: string;
}

/** A tool call ended: every field docs/contracts.md §2.2 lists, plus the call's attachments. */
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
  /** Full size of the result in bytes, always (compact JSON for structured results). */
  readonly resultBytes: number;
  /** True when the model saw a handle and a preview instead of the whole result. */
  readonly elided: boolean;
  /**
   * The result's handle (`res_` and 26 random base32 characters; `res_<callId>` in records written before), set when
   * the result was elided or offloaded.
   */
  readonly resultHandle?: string;
  readonly attachments: readonly AttachmentRecord[];
}

/** A run was pinned or unpinned (retention never prunes a pinned run). */
interface RunPinnedRecord {
  readonly type: 'run_pinned';
  readonly runId: string;
  readonly pinned: boolean;
  readonly at: string;
}

/** Last record of a finished run. */
interface RunFinishedRecord {
  readonly type: 'run_finished';
  readonly runId: string;
  readonly finishedAt: string;
  readonly status: RunFinishStatus;
}

/**
 * What a model was handed of a finished call (docs/contracts.md §2.14): the call's own
 * answer (`answer`, its first view) or a `read_tool_output` reply over one of its handles
 * (`read`), as the UTF-8 byte count of the exact text handed over. Appended to the log of
 * the run that holds the call, after the answer is final, by the front end that gave it.
 */
export interface CallShownRecord {
  readonly type: 'call_shown';
  readonly runId: string;
  readonly callId: string;
  readonly view: 'answer' | 'read';
  /** UTF-8 bytes of the text the model was handed. */
  readonly bytes: number;
  /** The handle read (`read` only). */
  readonly handle?: string;
  /** True when the answer held the call's output exactly as written (a small routed output given back whole). */
  readonly whole?: boolean;
  readonly at: string;
}

/** Any line of a run log. */
export type RunRecord =
  RunStartedRecord | CallStartedRecord | CallFinishedRecord | RunPinnedRecord | RunFinishedRecord | CallShownRecord;

/** A line of a run log that was skipped on read, and why. */
export interface LogProblem {
  /** 1-based line number in the log file. */
  readonly line: number;
  /** `torn_tail`: last line without its newline (crash mid-append); the others are mid-file. */
  readonly kind: 'torn_tail' | 'invalid_json' | 'wrong_shape';
  /** Short description (never the line's content). */
  readonly detail: string;
}

/**
 * Which front end started a run (docs/contracts.md §2.2.1): the editor's tools
 * (`tool`), the chat participant, an agent's terminal command routed by the hook
 * (`hook`, with the agent and its session id), the command line (`cli`), the MCP
 * server (`mcp`), a palette command (`command`) or the extension API (`api`).
 */
export interface RunSource {
  readonly kind: 'tool' | 'participant' | 'hook' | 'cli' | 'mcp' | 'command' | 'api';
  /** The agent whose hook routed the command (`copilot`, `claude`, `codex`, `gemini`, …). */
  readonly agent?: string;
  /** The agent's session id (hook `session_id`), so one conversation's runs can be found together. */
  readonly sessionId?: string;
}
