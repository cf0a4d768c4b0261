/**
 * Blob keys (docs/contracts.md §2.3): `{ tenant, runId, callId }`, never a bare string. Every
 * segment is validated before any physical address is built, so a key can never name
 * a parent folder, an absolute path, a NUL-terminated C string or a Unicode look-alike
 * of `/` or `.` (only ASCII letters, digits, `.`, `_`, `-` are accepted).
 */
import { randomBytes } from 'node:crypto';
import { EvidenceError } from '../errors.js';

/** Where one blob lives, logically. Adapters fold all three parts into the address. */
export interface BlobKey {
  /** The tenant (one per workspace storage): part of every physical address. */
  readonly tenant: string;
  /** The run that produced the bytes. */
  readonly runId: string;
  /** The call segment: `<callId>`, or `<callId>.<slot>` for an attachment. */
  readonly callId: string;
}

/** Longest accepted segment, in characters (all ASCII, so also bytes). */
const MAX_SEGMENT_LENGTH = 128;

const SAFE_SEGMENT = /^[A-Za-z0-9._-]+$/;

/** True when `s` is one safe path segment: `[A-Za-z0-9._-]{1,128}`, not `.` or `..`. */
export function isSafeSegment(s: unknown): s is string {
  return (
    typeof s === 'string' &&
    s.length > 0 &&
    s.length <= MAX_SEGMENT_LENGTH &&
    SAFE_SEGMENT.test(s) &&
    s !== '.' &&
    s !== '..'
  );
}

/**
 * Throws `EvidenceError('invalidArgument')` naming the bad field (never echoing its
 * value, which may be hostile) unless every segment is safe; returns the key otherwise.
 */
export function validateBlobKey(key: BlobKey): BlobKey {
  if (key === null || typeof key !== 'object') throw new EvidenceError('invalidArgument', 'blob key must be an object');
  for (const field of ['tenant', 'runId', 'callId'] as const) {
    if (!isSafeSegment(key[field]))
      throw new EvidenceError('invalidArgument', `blob key ${field} is not a safe path segment`);
  }
  return key;
}

/** Validates one segment on its own (tenant, run id) with the same rule. */
export function assertSafeSegment(field: string, value: unknown): string {
  if (!isSafeSegment(value)) throw new EvidenceError('invalidArgument', `${field} is not a safe path segment`);
  return value;
}

/** `tenant/runId/callId` after validation: the one relative address every adapter uses. */
export function blobKeyPath(key: BlobKey): string {
  validateBlobKey(key);
  return `${key.tenant}/${key.runId}/${key.callId}`;
}

/**
 * A call segment for bytes whose final key is known only when their stream ends (an
 * artifact's sha256, docs/contracts.md §1.1): `tmp-<pid>-<16 hex>`. The writer's pid lets
 * the filesystem store's start-up sweep remove what a killed writer left; `t`, `m`, `p`
 * are not hex, so it never equals a run's call id (`<hex token>-<n>`) nor a sha256.
 */
export function temporaryCallId(): string {
  return `tmp-${process.pid}-${randomBytes(8).toString('hex')}`;
}

/** Matches `temporaryCallId()` and its manifest sidecar; group 1 is the writer's pid. */
export const TEMPORARY_CALL_ID = /^tmp-(\d+)-[0-9a-f]{16}(?:\._manifest)?$/;
