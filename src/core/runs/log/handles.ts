/**
 * Handles (docs/contracts.md §2.2): opaque strings minted by a run and resolved only by
 * looking them up among the handles this store's own run records minted. A handle is
 * never parsed, split or turned into a storage address: what the model sends is only
 * ever a lookup key.
 *
 * A new handle is `res_` (a call's result) or `out_` (one attachment: stdout, stderr, a
 * file) and 26 characters of base32 over 128 random bits (`node:crypto`): it encodes no
 * run, call, slot, time or count, so none can be guessed from another (MCP 2026-07-28,
 * "Stateful Tools"). The prefix is kept for people, and for the front ends that find a
 * handle in text (links, the Inspector's search): it says only which kind of thing the
 * observation named, which the observation says beside it anyway. Records written
 * before (`res_<callId>`, `out_<callId>_<slot>`) keep their handles, which keep resolving.
 *
 * Every refusal (never minted, expired with its run, minted by another run outside the
 * scope or by another tenant, empty, path-like, 10 KB long, minted twice) is the same
 * sentence, `access denied: unknown or expired handle`, which names nothing else and
 * does not say whether the handle ever existed.
 */
import { randomBytes } from 'node:crypto';
import { EvidenceError } from '../../errors.js';
import type { AttachmentRecord, CallFinishedRecord } from './records.js';

/** Something to stop listening with. */
export interface Disposable {
  dispose(): void;
}

/** The one refusal sentence for every handle that does not resolve. */
export const ACCESS_DENIED_MESSAGE = 'access denied: unknown or expired handle';

/** A fresh access-denied error (same message whatever the cause). */
export function accessDenied(): EvidenceError {
  return new EvidenceError('accessDenied', ACCESS_DENIED_MESSAGE);
}

/** RFC 4648 base32, lower case: no `-` or `.` (a double click selects the whole handle), no case to get wrong. */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 128 random bits as 26 base32 characters (the last one carries 3 bits). */
function randomBase32(): string {
  const bytes = randomBytes(16);
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(acc >>> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out + BASE32[(acc << (5 - bits)) & 31];
}

/** A new handle for a call's result: `res_` and 26 random base32 characters. */
export function mintResultHandle(): string {
  return `res_${randomBase32()}`;
}

/** A new handle for one attachment of a call: `out_` and 26 random base32 characters. */
export function mintAttachmentHandle(): string {
  return `out_${randomBase32()}`;
}

/**
 * The forms a record may claim (checked when a log is read, never applied to what a model
 * sends): a minted one, or the derived one records written before opaque handles carry.
 */
export const MINTED_RESULT_HANDLE = /^res_[a-z2-7]{26}$/;
export const MINTED_ATTACHMENT_HANDLE = /^out_[a-z2-7]{26}$/;

/** True for a handle of the minted (opaque) form: its shape says only that a lookup could find it. */
export function isMintedHandle(handle: string): boolean {
  return MINTED_RESULT_HANDLE.test(handle) || MINTED_ATTACHMENT_HANDLE.test(handle);
}

/**
 * The run token a handle recorded before opaque handles names its run by (`res_<token>-<n>`,
 * `out_<token>-<n>_<slot>`: the forms below), or undefined for any other string.
 */
export function legacyRunToken(handle: string): string | undefined {
  return /^(?:res|out)_([0-9a-f]{10})-\d+(?:_|$)/.exec(handle)?.[1];
}

/** The handle a result recorded before opaque handles carries (`res_<callId>`). */
export function legacyResultHandle(callId: string): string {
  return `res_${callId}`;
}

/** The handle an attachment recorded before opaque handles carries (`out_<callId>_<slot>`). */
export function legacyAttachmentHandle(callId: string, slot: string): string {
  return `out_${callId}_${slot}`;
}

/** What a handle stands for: a call's result, or one of its attachments. */
export interface HandleEntry {
  readonly runId: string;
  readonly record: CallFinishedRecord;
  /** Undefined for the result handle. */
  readonly attachment?: AttachmentRecord;
}
