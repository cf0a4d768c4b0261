import { EvidenceError } from '../../errors.js';
import {
  DEFAULT_CAPTURE_CAP_BYTES,
  DEFAULT_INLINE_ATTACHMENT_BYTES,
  DEFAULT_OFFLOAD_THRESHOLD_BYTES,
  DEFAULT_RUN_LIMITS,
  profileHash,
} from '../recording/decisions.js';
import { DEFAULT_READER_LIMITS, LINE_CUT_MARKER } from '../reading/reader.js';
import { captureCap, positiveInt } from '../recording/recordFields.js';
import type { Preservation, ReaderLimits, RunLimits, RunStoreOptions } from '../types.js';

export interface StoreSettings {
  readonly limits: RunLimits;
  readonly readerLimits: ReaderLimits;
  readonly offloadThresholdBytes: number;
  readonly inlineAttachmentBytes: number;
  readonly captureCapBytes: number;
  readonly errorLines: boolean;
  readonly preservation: Preservation;
  readonly profileHash: string;
}

/** Throws `invalidArgument` naming the first bad one. */
export function storeSettingsOf(options: RunStoreOptions): StoreSettings {
  const limits = {
    largeResultBytes: positiveInt(
      'largeResultBytes',
      options.limits?.largeResultBytes ?? DEFAULT_RUN_LIMITS.largeResultBytes,
    ),
    previewBytes: positiveInt('previewBytes', options.limits?.previewBytes ?? DEFAULT_RUN_LIMITS.previewBytes),
  };
  const r = { ...DEFAULT_READER_LIMITS, ...options.reader };
  const readerLimits = {
    maxContentChars: positiveInt('maxContentChars', r.maxContentChars),
    maxLineChars: positiveInt('maxLineChars', r.maxLineChars),
    maxByteWindow: positiveInt('maxByteWindow', r.maxByteWindow),
    patternBudgetMs: positiveInt('patternBudgetMs', r.patternBudgetMs),
    searchTimeoutMs: positiveInt('searchTimeoutMs', r.searchTimeoutMs),
  };
  if (readerLimits.maxLineChars <= LINE_CUT_MARKER.length || readerLimits.maxLineChars > readerLimits.maxContentChars) {
    throw new EvidenceError(
      'invalidArgument',
      'maxLineChars must exceed the cut marker and not exceed maxContentChars',
    );
  }
  const offloadThresholdBytes = positiveInt(
    'offloadThresholdBytes',
    options.offloadThresholdBytes ?? DEFAULT_OFFLOAD_THRESHOLD_BYTES,
  );
  const inlineAttachmentBytes = positiveInt(
    'inlineAttachmentBytes',
    options.inlineAttachmentBytes ?? DEFAULT_INLINE_ATTACHMENT_BYTES,
  );
  const captureCapBytes = captureCap(options.captureCapBytes ?? DEFAULT_CAPTURE_CAP_BYTES);
  const errorLines = options.errorLines ?? true;
  const preservation = options.preservation ?? 'best_effort';
  if (preservation !== 'best_effort' && preservation !== 'required')
    throw new EvidenceError('invalidArgument', 'preservation must be best_effort or required');
  return {
    limits,
    readerLimits,
    offloadThresholdBytes,
    inlineAttachmentBytes,
    captureCapBytes,
    errorLines,
    preservation,
    profileHash: profileHash({ ...limits, tools: options.tools ?? [] }),
  };
}
