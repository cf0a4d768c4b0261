/**
 * Artifact identity (docs/contracts.md §1.1): `artifactId = "artifact-" + sha256(bytes)`,
 * the validated identity record, and the virtual range path that reads an artifact back
 * (§1.3). Pure: no store, no I/O (the store is artifacts.ts).
 */
import { EvidenceError } from '../errors.js';

/** The identity record of one artifact: `artifactId` is `"artifact-" + sha256`. */
export interface ArtifactRef {
  /** `"artifact-"` followed by the 64 lowercase hex digits of `sha256`. */
  readonly artifactId: string;
  /** Exact number of stored bytes. */
  readonly byteCount: number;
  /** Lowercase hex sha256 of the stored bytes. */
  readonly sha256: string;
}

const ARTIFACT_ID = /^artifact-[0-9a-f]{64}$/;
/** 64 lowercase hex digits (a sha256). */
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** True when `value` is a well-formed artifact id (it says nothing about any store). */
export function isArtifactId(value: unknown): value is string {
  return typeof value === 'string' && ARTIFACT_ID.test(value);
}

/**
 * Builds a validated identity record. Checks run in the contract's order (id, byte
 * count, digest, match), so a malformed id is reported as `artifact id` even when it
 * would also fail to match. The mismatch message says `artifactId`, not `artifact id`,
 * so that the four failures stay distinguishable by their message.
 */
export function makeArtifactRef(artifactId: unknown, byteCount: unknown, sha256: unknown): ArtifactRef {
  if (!isArtifactId(artifactId)) throw new EvidenceError('artifactIdInvalid');
  if (typeof byteCount !== 'number' || !Number.isSafeInteger(byteCount) || byteCount < 0) {
    throw new EvidenceError('invalidArgument', 'artifact byte count must be a non-negative integer');
  }
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new EvidenceError('invalidArgument', 'artifact digest must be 64 lowercase hex digits');
  }
  if (artifactId !== `artifact-${sha256}`) {
    throw new EvidenceError('invalidArgument', 'artifactId must match "artifact-" + sha256');
  }
  return { artifactId, byteCount, sha256 };
}

/** True for a byte range `[start, end)` with `0 <= start < end` (safe integers). */
export function isRange(start: number, end: number): boolean {
  return Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start < end;
}
