/**
 * Handles (docs/contracts.md §2.2) resolve only by lookup among the handles this store's records minted: never parsed
 * or turned into a storage address. 128 random bits, so none can be guessed from another; the prefix is for people.
 * Every refusal is the same sentence, which does not say whether the handle ever existed.
 */
import { randomBytes } from 'node:crypto';
import { EvidenceError } from '../../errors.js';
import type { AttachmentRecord, CallFinishedRecord } from './records.js';

export interface Disposable {
  dispose(): void;
}

export const ACCESS_DENIED_MESSAGE = 'access denied: unknown or expired handle';

export function accessDenied(): EvidenceError {
  return new EvidenceError('accessDenied', ACCESS_DENIED_MESSAGE);
}

/** No `-` or `.`, so a double click selects the whole handle; no case to get wrong. */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

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

export function mintResultHandle(): string {
  return `res_${randomBase32()}`;
}

export function mintAttachmentHandle(): string {
  return `out_${randomBase32()}`;
}

/**
 * Checked when a log is read, never applied to what a model sends; the derived forms are what records before opaque
 * handles carry.
 */
export const MINTED_RESULT_HANDLE = /^res_[a-z2-7]{26}$/;
export const MINTED_ATTACHMENT_HANDLE = /^out_[a-z2-7]{26}$/;

export function isMintedHandle(handle: string): boolean {
  return MINTED_RESULT_HANDLE.test(handle) || MINTED_ATTACHMENT_HANDLE.test(handle);
}

/** For handles recorded before opaque ones: `res_<token>-<n>`, `out_<token>-<n>_<slot>`. */
export function legacyRunToken(handle: string): string | undefined {
  return /^(?:res|out)_([0-9a-f]{10})-\d+(?:_|$)/.exec(handle)?.[1];
}

export function legacyResultHandle(callId: string): string {
  return `res_${callId}`;
}

export function legacyAttachmentHandle(callId: string, slot: string): string {
  return `out_${callId}_${slot}`;
}

export interface HandleEntry {
  readonly runId: string;
  readonly record: CallFinishedRecord;
  readonly attachment?: AttachmentRecord;
}
