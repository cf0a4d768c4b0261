/**
 * The run layer's pure decisions (docs/contracts.md §2.1, §2.4), unit-tested to the byte. Offload implies elision; no
 * blob store turns a needed offload into an explicit `blob_store_required` failure, never an inline write. Storage
 * wiring is not an input of the profile hash, so it can never change it.
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
 * package.json declares the same numbers for the settings. The preview is sized so a first view plus one pattern call
 * stays under the reading-economy target (docs/contracts.md §3.2).
 */
export const DEFAULT_RUN_LIMITS: RunLimits = { largeResultBytes: 4096, previewBytes: 896 };
/** Sized for the tightest backend (a log line), applied to all. */
export const DEFAULT_OFFLOAD_THRESHOLD_BYTES = 16 * 1024;
export const DEFAULT_INLINE_ATTACHMENT_BYTES = 4 * 1024;
/** None by default: an output is kept whole while retention allows (docs/contracts.md §2.10). */
export const DEFAULT_CAPTURE_CAP_BYTES = Number.POSITIVE_INFINITY;

export const ContentTypes = {
  text: 'text/plain; charset=utf-8',
  json: 'application/json',
  binary: 'application/octet-stream',
} as const;

/** Binary bytes cannot be shown as text, so they are always elided. */
export function decideElision(resultBytes: number, largeResultBytes: number, binary = false): boolean {
  return binary || resultBytes > largeResultBytes;
}

/** Binary bytes are never shown whole. */
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

export function decideOffload(resultBytes: number, offloadThresholdBytes: number): boolean {
  return resultBytes > offloadThresholdBytes;
}

export interface ResultDecision {
  readonly elide: boolean;
  readonly offload: boolean;
  readonly stored: StorageState;
  readonly failure?: 'blob_store_required';
}

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

export interface AttachmentDecision {
  readonly stored: StorageState;
  readonly readable: boolean;
  readonly failure?: 'blob_store_required';
}

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

export interface MeasuredResult {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly structured: boolean;
}

/**
 * Structured results count as compact JSON, what the threshold and the preview both see. A value JSON cannot encode
 * is refused.
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

/** Nothing about storage. */
export interface AgentProfile {
  readonly largeResultBytes: number;
  readonly previewBytes: number;
  readonly tools: readonly string[];
}

/** Tool order and duplicates do not matter. */
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

/** A last line without `\n` counts too. */
export function lineCountOf(newlines: number, byteCount: number, lastByte: number | undefined): number {
  if (byteCount === 0) return 0;
  return lastByte === 10 ? newlines : newlines + 1;
}

/** Part of what the model sees. */
export function omissionMarker(omittedBytes: number): string {
  return `\n[… ${omittedBytes} bytes omitted …]\n`;
}

export interface Preview {
  readonly text: string;
  readonly range?: PreviewRange;
}

/**
 * Head and tail are cut to code-point boundaries, so neither contains a U+FFFD the content did not. Binary content
 * has no preview.
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
