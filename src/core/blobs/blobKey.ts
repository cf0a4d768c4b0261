/**
 * Blob keys (docs/contracts.md §2.3): every segment is validated before any physical address is built, so a key never
 * names a parent folder, an absolute path or a look-alike of `/` or `.`.
 */
import { randomBytes } from 'node:crypto';
import { EvidenceError } from '../errors.js';

export interface BlobKey {
  readonly tenant: string;
  readonly runId: string;
  /** `<callId>`, or `<callId>.<slot>` for an attachment. */
  readonly callId: string;
}

const MAX_SEGMENT_LENGTH = 128;

const SAFE_SEGMENT = /^[A-Za-z0-9._-]+$/;

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

/** Names the bad field, never echoing its value, which may be hostile. */
export function validateBlobKey(key: BlobKey): BlobKey {
  if (key === null || typeof key !== 'object') throw new EvidenceError('invalidArgument', 'blob key must be an object');
  for (const field of ['tenant', 'runId', 'callId'] as const) {
    if (!isSafeSegment(key[field]))
      throw new EvidenceError('invalidArgument', `blob key ${field} is not a safe path segment`);
  }
  return key;
}

export function assertSafeSegment(field: string, value: unknown): string {
  if (!isSafeSegment(value)) throw new EvidenceError('invalidArgument', `${field} is not a safe path segment`);
  return value;
}

export function blobKeyPath(key: BlobKey): string {
  validateBlobKey(key);
  return `${key.tenant}/${key.runId}/${key.callId}`;
}

/**
 * For bytes whose key is known only when their stream ends. The pid lets a start-up sweep remove what a killed writer
 * left; `t`, `m`, `p` are not hex, so it never equals a call id nor a sha256.
 */
export function temporaryCallId(): string {
  return `tmp-${process.pid}-${randomBytes(8).toString('hex')}`;
}

export const TEMPORARY_CALL_ID = /^tmp-(\d+)-[0-9a-f]{16}(?:\._manifest)?$/;
