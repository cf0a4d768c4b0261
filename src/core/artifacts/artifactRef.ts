/** Artifact identity (docs/contracts.md §1.1, §1.3). Pure: no store, no I/O. */
import { EvidenceError } from '../errors.js';

export interface ArtifactRef {
  readonly artifactId: string;
  readonly byteCount: number;
  readonly sha256: string;
}

const ARTIFACT_ID = /^artifact-[0-9a-f]{64}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Says nothing about any store. */
export function isArtifactId(value: unknown): value is string {
  return typeof value === 'string' && ARTIFACT_ID.test(value);
}

/**
 * Checks run in the contract's order, so a malformed id is reported as `artifact id` even when it would also fail to
 * match; the mismatch says `artifactId` so the four failures stay distinguishable.
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

export function isRange(start: number, end: number): boolean {
  return Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start < end;
}
