/**
 * Sizes in this project are UTF-8 bytes. Encoding follows TextEncoder (a lone surrogate becomes U+FFFD); decoding is
 * strict and keeps a leading BOM.
 */
import { isUtf8 } from 'node:buffer';

const encoder = new TextEncoder();

export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function decodeUtf8Strict(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
}

export function isValidUtf8(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** In invalid input it may return an offset inside garbage; callers that need validity check it. */
export function floorCodePointBoundary(bytes: Uint8Array, limit: number): number {
  let i = Math.max(0, Math.min(limit, bytes.length));
  const stop = Math.max(0, i - 3);
  while (i > stop && i < bytes.length && isContinuation(bytes[i]!)) i--;
  return i;
}

export function ceilCodePointBoundary(bytes: Uint8Array, from: number): number {
  let i = Math.max(0, Math.min(from, bytes.length));
  const stop = Math.min(bytes.length, i + 3);
  while (i < stop && isContinuation(bytes[i]!)) i++;
  return i;
}

/** Carries at most three bytes between pieces, so memory is constant whatever the stream size. */
export class Utf8Validator {
  private carry: Uint8Array = new Uint8Array(0);
  private ok = true;

  update(piece: Uint8Array): void {
    if (!this.ok || piece.length === 0) return;
    let data = piece;
    if (this.carry.length > 0) {
      const need = expectedLength(this.carry[0]!);
      if (need === 0) {
        this.ok = false;
        return;
      }
      const take = Math.min(need - this.carry.length, piece.length);
      const joined = new Uint8Array(this.carry.length + take);
      joined.set(this.carry, 0);
      joined.set(piece.subarray(0, take), this.carry.length);
      if (joined.length < need) {
        this.carry = joined;
        return;
      }
      if (!isUtf8(joined)) {
        this.ok = false;
        return;
      }
      this.carry = new Uint8Array(0);
      data = piece.subarray(take);
    }
    const cut = trailingIncompleteStart(data);
    if (!isUtf8(data.subarray(0, cut))) {
      this.ok = false;
      return;
    }
    this.carry = data.slice(cut);
  }

  finish(): boolean {
    return this.ok && this.carry.length === 0;
  }
}

function expectedLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

function trailingIncompleteStart(data: Uint8Array): number {
  const n = data.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = data[n - back]!;
    if (isContinuation(b)) continue;
    const len = expectedLength(b);
    return len > back ? n - back : n;
  }
  return n;
}
