/** The verified bytes behind a resolved handle, whatever its storage shape. */
import type { BlobKey } from '../../blobs/blobKey.js';
import type { BlobStore } from '../../blobs/blobStore.js';
import { missingError, openVerified, type ManifestCache } from '../../blobs/verifiedBlobs.js';
import { EvidenceError } from '../../errors.js';
import { manifestOf, readVerified, streamVerified, verifyAll } from '../../integrity/integrity.js';
import { encodeUtf8 } from '../../utf8.js';
import type { HandleEntry } from '../log/handles.js';
import { checkLineCount, type ContentView } from '../reading/reader.js';
import type { HandleSource, RecordedArtifacts, StoredContent } from '../types.js';

export interface ContentStores {
  readonly tenant: string;
  readonly blobs: BlobStore | undefined;
  readonly artifacts: RecordedArtifacts | undefined;
  readonly manifests: ManifestCache;
}

function contentOf(entry: HandleEntry): StoredContent {
  return entry.attachment ?? entry.record;
}

export async function openContentView(stores: ContentStores, entry: HandleEntry): Promise<ContentView> {
  const c = contentOf(entry);
  const byteCount = entry.attachment ? entry.attachment.sizeBytes : entry.record.resultBytes;
  if (c.stored === 'preview_only')
    throw new EvidenceError(
      'missing',
      'tool output was not kept (no blob store was configured): only its preview was recorded',
    );
  let view: ContentView;
  if (c.stored === 'inline') {
    const bytes = c.inline !== undefined ? encodeUtf8(c.inline) : Buffer.from(c.inlineBase64 ?? '', 'base64');
    const manifest = manifestOf(bytes);
    if (manifest.sha256 !== c.sha256 || manifest.byteCount !== byteCount) throw new EvidenceError('digestMismatch');
    view = {
      manifest,
      source: { size: async () => bytes.length, read: async (s, e) => bytes.subarray(s, e) },
      lineCount: c.lineCount,
      binary: c.binary,
    };
  } else if (c.stored === 'artifact') {
    // The artifact store holds these bytes once.
    if (!stores.artifacts || !c.artifactId || !c.manifestDigest) throw missingError();
    const { manifest, source } = await stores.artifacts
      .openRecorded({ artifactId: c.artifactId, byteCount, sha256: c.sha256 }, c.manifestDigest)
      .catch((e: unknown) => {
        throw e instanceof EvidenceError && e.code === 'notAvailable' ? missingError() : e;
      });
    view = { manifest, source, lineCount: c.lineCount, binary: c.binary };
  } else {
    if (!stores.blobs) throw missingError();
    const key: BlobKey = {
      tenant: stores.tenant,
      runId: entry.runId,
      callId: entry.attachment ? `${entry.record.callId}.${entry.attachment.slot}` : entry.record.callId,
    };
    const { manifest, source } = await openVerified(
      stores.blobs,
      key,
      { sha256: c.sha256, byteCount, manifestDigest: c.manifestDigest ?? '' },
      stores.manifests,
    );
    view = { manifest, source, lineCount: c.lineCount, binary: c.binary };
  }
  // A capped stream: every reply says which bytes were kept of how many observed.
  if (entry.attachment?.truncated) view = { ...view, observedBytes: entry.attachment.observedBytes };
  checkLineCount(view.manifest, view.lineCount);
  if (view.binary === view.manifest.utf8) throw new EvidenceError('digestMismatch');
  return view;
}

export function handleSourceOf(handle: string, entry: HandleEntry, view: ContentView): HandleSource {
  const c = contentOf(entry);
  const { manifest, source } = view;
  return {
    handle,
    runId: entry.runId,
    callId: entry.record.callId,
    name: entry.attachment?.name ?? 'result',
    byteCount: manifest.byteCount,
    sha256: manifest.sha256,
    binary: c.binary,
    contentType: c.contentType,
    lineCount: c.lineCount,
    stored: c.stored,
    newlineIndex: { chunkSize: manifest.chunkSize, chunkNewlines: manifest.chunkNewlines },
    readRange: (start, end) => readVerified(source, manifest, start, end),
    stream: (start, end) => streamVerified(source, manifest, start, end),
    verify: () => verifyAll(source, manifest),
  };
}
