/**
 * UTF-8 helpers. Sizes in this project are UTF-8 bytes, never UTF-16 code units.
 * Encoding follows TextEncoder (a lone surrogate becomes U+FFFD: that is the stored
 * byte sequence); decoding is strict (`fatal`) and keeps a leading BOM (`ignoreBOM`).
 */
import { isUtf8 } from 'node:buffer';

const encoder = new TextEncoder();

/** Encodes text exactly as the store hashes it. */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Strict decode: throws on any invalid sequence; a leading BOM is kept as U+FEFF. */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
}

/** True when the bytes are, as a whole, strictly valid UTF-8. */
export function isValidUtf8(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

/** True when `bytes[i]` is a UTF-8 continuation byte (10xxxxxx). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * The largest offset `<= limit` that does not split a code point, scanning back at most
 * three bytes (a code point is at most four). In invalid input it may return an offset
 * inside garbage; callers that need validity check it separately.
 */
export function floorCodePointBoundary(bytes: Uint8Array, limit: number): number {
  let i = Math.max(0, Math.min(limit, bytes.length));
  const stop = Math.max(0, i - 3);
  while (i > stop && i < bytes.length && isContinuation(bytes[i]!)) i--;
  return i;
}

/** The smallest offset `>= from` that does not split a code point. */
export function ceilCodePointBoundary(bytes: Uint8Array, from: number): number {
  let i = Math.max(0, Math.min(from, bytes.length));
  const stop = Math.min(bytes.length, i + 3);
  while (i < stop && isContinuation(bytes[i]!)) i++;
  return i;
}

/**
 * Incremental strict UTF-8 validation over a stream of pieces, without decoding to
 * strings (Buffer's isUtf8 is SIMD-fast). Keeps at most three carried bytes between
 * pieces, so memory is constant whatever the stream size.
 */
export class Utf8Validator {
  private carry: Uint8Array = new Uint8Array(0);
  private ok = true;

  /** Feeds the next piece of the stream. */
  update(piece: Uint8Array): void {
    if (!this.ok || piece.length === 0) return;
    let data = piece;
    if (this.carry.length > 0) {
      // Complete the carried code point with the few bytes it still needs.
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

  /** Ends the stream: true when every byte fed formed valid UTF-8. */
  finish(): boolean {
    return this.ok && this.carry.length === 0;
  }
}

/** Length of the sequence a lead byte announces (0 for a byte that cannot lead). */
function expectedLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Start of a trailing, possibly incomplete sequence (a lead byte within the last three
 * bytes whose sequence runs past the end), or `data.length` when the data ends cleanly.
 */
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
