/**
 * The run layer's pure decisions (docs/contracts.md §2.1, §2.4): no I/O, unit-tested to the byte.
 *
 * Boundary cases, each with its answer:
 * - Elision: a result of exactly `largeResultBytes` bytes stays whole; one byte more is
 *   elided (shown as handle + preview). Binary bytes are always elided, whatever their size.
 * - An attachment's whole text is shown in the summary only when it is inline text and
 *   all of the call's text attachments fit `largeResultBytes` (or it is the exit value,
 *   or it fits the preview anyway).
 * - Offload: a result of exactly `offloadThresholdBytes` bytes stays inline in the
 *   record; one byte more goes to the blob store. Offload always implies elision,
 *   whatever `largeResultBytes` says.
 * - No blob store: elision is unchanged; a result that needs offload is an explicit
 *   failure (`blob_store_required`, kept as `preview_only`), never written inline.
 * - Attachments: at most `inlineAttachmentBytes` stay inline; larger go to the blob
 *   store; with no store they become `preview_only` (readable: false), or the call
 *   fails with `blob_store_required` when preservation is `required`.
 * - Structured results are measured and previewed as compact JSON (`JSON.stringify`, no
 *   spaces); text is encoded as TextEncoder does and never rewritten.
 * - The profile hash covers the agent's limits and tool set; storage wiring (which
 *   store, the offload threshold) is not an input, so it can never change it.
 */
import { EvidenceError } from '../../errors.js';
import { canonicalJson } from '../../json.js';
import { sha256Hex } from '../../integrity/sha256.js';
import {
  ceilCodePointBoundary,
  decodeUtf8Strict,
  encodeUtf8,
  floorCodePointBoundary,
  isValidUtf8,
} from '../../utf8.js';
import type { Preservation, PreviewRange, RunLimits, StorageState } from '../types.js';

/**
 * Defaults of the agent's limits: the core's, and the editor's settings defaults (package.json
 * declares the same numbers; the MCP server and the command line read them there). The preview
 * is 896 bytes (448 head + 448 tail) so that a first view plus one pattern call stays under
 * the reading-economy target of 1.5 KB (docs/contracts.md §3.2).
 */
export const DEFAULT_RUN_LIMITS: RunLimits = { largeResultBytes: 4096, previewBytes: 896 };
/** Results above this go to the blob store: sized for the tightest backend (a log line), applied to all. */
export const DEFAULT_OFFLOAD_THRESHOLD_BYTES = 16 * 1024;
/** Attachments at or below this stay inline in the record. */
export const DEFAULT_INLINE_ATTACHMENT_BYTES = 4 * 1024;
/**
 * Per-stream capture cap of a command: none by default, so an output is kept whole while
 * the storage budget (retention) allows; a cap is an explicit setting (docs/contracts.md
 * §2.10).
 */
export const DEFAULT_CAPTURE_CAP_BYTES = Number.POSITIVE_INFINITY;

/** Content types the run layer assigns. */
export const ContentTypes = {
  text: 'text/plain; charset=utf-8',
  json: 'application/json',
  binary: 'application/octet-stream',
} as const;

/**
 * True when the model must see a handle and a preview: `resultBytes > largeResultBytes`,
 * or the bytes are binary (they cannot be shown as text, so they are always elided).
 */
export function decideElision(resultBytes: number, largeResultBytes: number, binary = false): boolean {
  return binary || resultBytes > largeResultBytes;
}

/**
 * True when an attachment's whole text appears in the command's summary: text kept
 * inline, and either every text attachment of the call fits `largeResultBytes`
 * together (`allFit`), or it is the exit `value`, or it fits the preview anyway.
 * Binary bytes are never shown whole.
 */
export function decideAttachmentShownWhole(input: {
  name: string;
  sizeBytes: number;
  stored: StorageState;
  binary: boolean;
  allFit: boolean;
  previewBytes: number;
}): boolean {
  return (
    !input.binary &&
    input.stored === 'inline' &&
    (input.allFit || input.name === 'value' || input.sizeBytes <= input.previewBytes)
  );
}

/** True when the bytes must live in the blob store: `resultBytes > offloadThresholdBytes`. */
export function decideOffload(resultBytes: number, offloadThresholdBytes: number): boolean {
  return resultBytes > offloadThresholdBytes;
}

/** Where a result goes and what the model sees. */
export interface ResultDecision {
  readonly elide: boolean;
  readonly offload: boolean;
  readonly stored: StorageState;
  /** Set when the bytes cannot be kept as the contract requires. */
  readonly failure?: 'blob_store_required';
}

/** Combines both thresholds; offload (and binary content) forces elision; no store + offload is a failure. */
export function decideResultStorage(input: {
  resultBytes: number;
  largeResultBytes: number;
  offloadThresholdBytes: number;
  hasBlobStore: boolean;
  binary?: boolean;
}): ResultDecision {
  const offload = decideOffload(input.resultBytes, input.offloadThresholdBytes);
  const elide = offload || decideElision(input.resultBytes, input.largeResultBytes, input.binary);
  if (offload && !input.hasBlobStore) return { elide, offload, stored: 'preview_only', failure: 'blob_store_required' };
  return { elide, offload, stored: offload ? 'blob' : 'inline' };
}

/** Where an attachment goes. */
export interface AttachmentDecision {
  readonly stored: StorageState;
  readonly readable: boolean;
  readonly failure?: 'blob_store_required';
}

/** Inline when small, blob when a store is wired, else preview_only or (required) a failure. */
export function decideAttachmentStorage(input: {
  sizeBytes: number;
  inlineAttachmentBytes: number;
  hasBlobStore: boolean;
  preservation: Preservation;
}): AttachmentDecision {
  if (input.sizeBytes <= input.inlineAttachmentBytes) return { stored: 'inline', readable: true };
  if (input.hasBlobStore) return { stored: 'blob', readable: true };
  if (input.preservation === 'required')
    return { stored: 'preview_only', readable: false, failure: 'blob_store_required' };
  return { stored: 'preview_only', readable: false };
}

/** A tool result reduced to the exact bytes that are measured, stored and previewed. */
export interface MeasuredResult {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly structured: boolean;
}

/**
 * Text: TextEncoder's bytes, untouched. Raw bytes: as given (text type when strictly
 * UTF-8, else binary). Anything else is structured: compact JSON, which is what the
 * threshold and the preview both count. A value JSON cannot encode is refused.
 */
export function measureResult(result: string | Uint8Array | object): MeasuredResult {
  if (typeof result === 'string')
    return { bytes: encodeUtf8(result), contentType: ContentTypes.text, structured: false };
  if (result instanceof Uint8Array)
    return {
      bytes: result,
      contentType: isValidUtf8(result) ? ContentTypes.text : ContentTypes.binary,
      structured: false,
    };
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new EvidenceError('invalidArgument', 'structured result cannot be encoded as JSON');
  return { bytes: encodeUtf8(json), contentType: ContentTypes.json, structured: true };
}

/** The agent profile that is hashed: limits and tool names, nothing about storage. */
export interface AgentProfile {
  readonly largeResultBytes: number;
  readonly previewBytes: number;
  readonly tools: readonly string[];
}

/** Stable lowercase hex sha256 of the profile (tool order and duplicates do not matter). */
export function profileHash(profile: AgentProfile): string {
  const tools = [...new Set(profile.tools)].sort();
  const text = canonicalJson({
    largeResultBytes: profile.largeResultBytes,
    previewBytes: profile.previewBytes,
    tools,
    v: 1,
  });
  return sha256Hex(text);
}

/** Lines in `byteCount` bytes holding `newlines` `\n`s: a last line without `\n` counts too. */
export function lineCountOf(newlines: number, byteCount: number, lastByte: number | undefined): number {
  if (byteCount === 0) return 0;
  return lastByte === 10 ? newlines : newlines + 1;
}

/** The marker between head and tail of a preview (part of what the model sees). */
export function omissionMarker(omittedBytes: number): string {
  return `\n[… ${omittedBytes} bytes omitted …]\n`;
}

/** A preview and the byte ranges it shows. */
export interface Preview {
  readonly text: string;
  readonly range?: PreviewRange;
}

/**
 * Head-and-tail preview of `totalBytes` bytes of which `head` is the first
 * `min(total, previewBytes)` and `tail` the last `min(total, previewBytes)`. Content of
 * at most `previewBytes` bytes is shown whole. Otherwise the head gets `ceil(P/2)` bytes
 * cut back to a code-point boundary and the tail the last `floor(P/2)` moved forward to
 * one, so neither contains a U+FFFD the content did not. Binary content has no preview.
 */
export function makePreview(
  head: Uint8Array,
  tail: Uint8Array,
  totalBytes: number,
  previewBytes: number,
  binary: boolean,
): Preview {
  if (binary) return { text: '' };
  if (totalBytes <= previewBytes) return { text: decodeUtf8Strict(head.subarray(0, totalBytes)) };
  const headEnd = floorCodePointBoundary(head, Math.ceil(previewBytes / 2));
  const tailOffset = totalBytes - tail.length;
  const wantTail = Math.max(headEnd, totalBytes - Math.floor(previewBytes / 2));
  const tailStart = tailOffset + ceilCodePointBoundary(tail, wantTail - tailOffset);
  const headText = decodeUtf8Strict(head.subarray(0, headEnd));
  const tailText = decodeUtf8Strict(tail.subarray(tailStart - tailOffset));
  return { text: headText + omissionMarker(tailStart - headEnd) + tailText, range: { headEnd, tailStart } };
}
