/**
 * The manifest (docs/contracts.md §1.1), apart from integrity.ts so the caches keyed by its digest need not import
 * that back.
 */
import { EvidenceError } from '../errors.js';
import { sha256Hex } from './sha256.js';

export interface Manifest {
  readonly byteCount: number;
  readonly sha256: string;
  readonly chunkSize: number;
  readonly chunkDigests: Uint8Array;
  /** The sparse line index. */
  readonly chunkNewlines: Uint32Array;
  /** Else binary. */
  readonly utf8: boolean;
}

export function chunkCount(byteCount: number, chunkSize: number): number {
  return Math.ceil(byteCount / chunkSize);
}

/** All a capture needs once its sidecar is stored (docs/contracts.md §2.10). */
export interface ManifestSummary {
  readonly byteCount: number;
  readonly sha256: string;
  readonly chunkSize: number;
  readonly utf8: boolean;
  readonly chunks: number;
  readonly newlines: number;
}

const MAGIC = 'BEM1';

/** Binary so that a 1 GiB artifact's manifest stays small. */
export function encodeManifest(m: Manifest): Uint8Array {
  const chunks = m.chunkNewlines.length;
  const header = encodeManifestHeader({
    byteCount: m.byteCount,
    sha256: m.sha256,
    chunkSize: m.chunkSize,
    utf8: m.utf8,
    chunks,
  });
  const out = Buffer.alloc(header.length + m.chunkDigests.length + chunks * 4);
  out.set(header, 0);
  let p = header.length;
  out.set(m.chunkDigests, p);
  p += m.chunkDigests.length;
  out.set(newlinesLE(m.chunkNewlines), p);
  return out;
}

/** A writer that keeps the tables on disk streams them after it. */
export function encodeManifestHeader(s: Omit<ManifestSummary, 'newlines'>): Uint8Array {
  const header = Buffer.from(
    JSON.stringify({
      byteCount: s.byteCount,
      sha256: s.sha256,
      chunkSize: s.chunkSize,
      utf8: s.utf8,
      chunks: s.chunks,
    }),
  );
  const out = Buffer.alloc(8 + header.length);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(header.length, 4);
  header.copy(out, 8);
  return out;
}

export function newlinesLE(counts: Uint32Array): Uint8Array {
  const out = Buffer.alloc(counts.length * 4);
  for (let i = 0; i < counts.length; i++) out.writeUInt32LE(counts[i]!, i * 4);
  return out;
}

/** Any inconsistency is a digest mismatch. */
export function decodeManifest(bytes: Uint8Array): Manifest {
  const fail = (): never => {
    throw new EvidenceError('digestMismatch');
  };
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 8 || buf.toString('latin1', 0, 4) !== MAGIC) fail();
  const headerLength = buf.readUInt32LE(4);
  if (8 + headerLength > buf.length) fail();
  let header: { byteCount: unknown; sha256: unknown; chunkSize: unknown; utf8: unknown; chunks: unknown };
  try {
    header = JSON.parse(buf.toString('utf8', 8, 8 + headerLength));
  } catch {
    return fail();
  }
  const { byteCount, sha256, chunkSize, utf8, chunks } = header;
  if (typeof byteCount !== 'number' || !Number.isSafeInteger(byteCount) || byteCount < 0) fail();
  if (typeof chunkSize !== 'number' || !Number.isSafeInteger(chunkSize) || chunkSize <= 0) fail();
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) fail();
  if (typeof utf8 !== 'boolean' || chunks !== chunkCount(byteCount as number, chunkSize as number)) fail();
  const n = chunks as number;
  let p = 8 + headerLength;
  if (buf.length !== p + n * 36) fail();
  const chunkDigests = Uint8Array.from(buf.subarray(p, p + n * 32));
  p += n * 32;
  const chunkNewlines = new Uint32Array(n);
  for (let i = 0; i < n; i++) chunkNewlines[i] = buf.readUInt32LE(p + i * 4);
  return {
    byteCount: byteCount as number,
    sha256: sha256 as string,
    chunkSize: chunkSize as number,
    chunkDigests,
    chunkNewlines,
    utf8: utf8 as boolean,
  };
}

/** Records keep it so a rewritten manifest is caught. */
export function manifestDigest(m: Manifest): string {
  return sha256Hex(encodeManifest(m));
}
