/** Small pieces every record writer shares (docs/contracts.md §2). */
import { EvidenceError, isStorageFull, STORAGE_FULL } from '../../errors.js';
import type { Captured } from './capture.js';
import { ContentTypes, makePreview } from './decisions.js';
import { selectErrorLines } from '../errorLines/errorLines.js';
import type { StoredContent } from '../log/records.js';

export function positiveInt(name: string, v: number): number {
  if (!Number.isSafeInteger(v) || v <= 0)
    throw new EvidenceError('invalidArgument', `${name} must be a positive integer`);
  return v;
}

export function captureCap(v: number): number {
  return v === Number.POSITIVE_INFINITY ? v : positiveInt('captureCapBytes', v);
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** Error lines (docs/contracts.md §2.13) take up to half of the preview budget; `failed` says which lines count. */
export function storedFields(
  c: Captured,
  contentType: string,
  shownWhole: boolean,
  previewBytes: number,
  readable: boolean,
  failed = false,
): StoredContent {
  const whole = shownWhole && !c.binary && c.inlineBytes !== undefined;
  const errors =
    !whole && !c.binary && c.errorScan && c.sizeBytes > previewBytes
      ? selectErrorLines(c.errorScan, failed, Math.floor(previewBytes / 2))
      : undefined;
  const preview = whole
    ? { text: Buffer.from(c.inlineBytes!).toString('utf8'), range: undefined }
    : makePreview(c.head, c.tail, c.sizeBytes, previewBytes - (errors?.bytes ?? 0), c.binary);
  return {
    contentType: c.binary ? ContentTypes.binary : contentType,
    sha256: c.sha256,
    stored: c.stored,
    preview: preview.text,
    ...(preview.range ? { previewRange: preview.range } : {}),
    ...(c.stored === 'inline' && c.inlineBytes
      ? c.binary
        ? { inlineBase64: Buffer.from(c.inlineBytes).toString('base64') }
        : { inline: Buffer.from(c.inlineBytes).toString('utf8') }
      : {}),
    ...(c.manifestDigest ? { manifestDigest: c.manifestDigest } : {}),
    lineCount: c.lineCount,
    binary: c.binary,
    readable,
    ...(errors ? { errorLines: errors.lines } : {}),
  };
}

export function backendMessage(e: unknown): string {
  if (e instanceof EvidenceError) return `blob store failed: ${e.message}`;
  // Named, so the result says why the bytes are gone (docs/contracts.md §5.6).
  if (isStorageFull(e)) return `blob store failed: ${STORAGE_FULL}`;
  return 'blob store failed';
}
