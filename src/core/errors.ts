/**
 * The contract's error sentences, declared once; none ever includes a path, another artifact's id or stored bytes.
 */
export const ErrorText = {
  artifactIdInvalid: 'artifact id is invalid',
  rangeOrder: 'artifact range must satisfy 0 <= start < end',
  notAvailable: 'artifact is not available in this store',
  digestMismatch: 'artifact digest does not match its recorded identity',
  exceedsStored: 'artifact range exceeds the stored byte count',
  contentsConflict: 'artifact contents conflict with their identity',
  rangeMalformed: 'artifact range path is malformed',
  rangeNotUtf8: 'artifact range does not align to UTF-8 text',
  observationTooSmall: 'evidence observation limit is too small for artifact metadata',
} as const;

export type EvidenceErrorCode =
  keyof typeof ErrorText | 'accessDenied' | 'missing' | 'invalidArgument' | 'backend' | 'rangeNotSatisfiable';

/** An error whose message is safe to show a model or a person. */
export class EvidenceError extends Error {
  constructor(
    readonly code: EvidenceErrorCode,
    message?: string,
  ) {
    super(message ?? (code in ErrorText ? ErrorText[code as keyof typeof ErrorText] : code));
    this.name = 'EvidenceError';
  }
}

export function isStorageFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** docs/contracts.md §5.6. */
export const STORAGE_FULL = 'the evidence storage is full (no space left on device)';

export const STORAGE_FULL_RESULT =
  `error: ${STORAGE_FULL}; nothing of this call could be recorded or kept: ` + `free space and try again`;
