/**
 * Publishing recorded runs to a team store (docs/contracts.md §7.1). Per run: every blob its records name is read
 * back verified from the local store and put under its sha256 with its manifest under the manifest's own sha256,
 * each only when the bucket lacks it (HEAD first: whoever stored it, the bytes are the same); then the run's log.
 * A publish stopped anywhere before the log leaves the run unlisted, and the next publish finds the blobs there and
 * writes only what is missing.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { BlobKey } from '../blobs/blobKey.js';
import { readRange, type BlobStore } from '../blobs/blobStore.js';
import { manifestKeyOf, missingError, openVerified } from '../blobs/verifiedBlobs.js';
import { EvidenceError } from '../errors.js';
import { streamVerified } from '../integrity/integrity.js';
import { sha256Hex } from '../integrity/sha256.js';
import { parseRunLog } from '../runs/log/runLog.js';
import type { StoredContent } from '../runs/log/records.js';
import type { TeamBucket } from './teamBucket.js';

/** The local store a run is published from. */
export interface PublishSource {
  /** `<storage>/evidence/logs`. */
  readonly logsDir: string;
  readonly tenant: string;
  /** Where the run's blobs are (undefined: only inline outputs can be published). */
  readonly blobs: BlobStore | undefined;
}

/** What one run's publish did. */
export interface PublishReport {
  readonly runId: string;
  /** `present`: the run was published before (by this or another publisher); its log was left as it was. */
  readonly run: 'written' | 'present';
  readonly blobsUploaded: number;
  readonly blobsPresent: number;
  /** Bytes put: blobs, manifests and the log. */
  readonly bytesUploaded: number;
}

/** Publishes one finished run of `source`; throws a sentence (the run stays local whatever happens). */
export async function publishRun(source: PublishSource, bucket: TeamBucket, runId: string): Promise<PublishReport> {
  const log = await readLocalLog(source, runId);
  const parsed = parseRunLog(Buffer.from(log.buffer, log.byteOffset, log.byteLength), runId);
  const first = parsed.records[0];
  if (first?.type !== 'run_started' || first.tenant !== source.tenant || first.runId !== runId)
    throw new EvidenceError('invalidArgument', `${runId} is not a run of this storage`);
  if (!parsed.records.some((r) => r.type === 'run_finished'))
    throw new EvidenceError('invalidArgument', `${runId} is still running: publish it once it has finished`);
  let blobsUploaded = 0;
  let blobsPresent = 0;
  let bytesUploaded = 0;
  for (const { key, content } of blobsOf(parsed.records, source.tenant, runId)) {
    const uploaded = await publishBlob(source, bucket, key, content);
    if (uploaded === 0) blobsPresent++;
    else blobsUploaded++;
    bytesUploaded += uploaded;
  }
  const run = await bucket.putRun(runId, log);
  if (run === 'written') bytesUploaded += log.length;
  return { runId, run, blobsUploaded, blobsPresent, bytesUploaded };
}

/**
 * The run's log as it is on disk, whole lines; a run id that is not one safe segment is refused before any path is
 * built.
 */
async function readLocalLog(source: PublishSource, runId: string): Promise<Uint8Array> {
  if (!/^run-[A-Za-z0-9-]{1,120}$/.test(runId)) throw new EvidenceError('invalidArgument', 'not a run id');
  const file = path.join(source.logsDir, source.tenant, `${runId}.jsonl`);
  const bytes = await fsp.readFile(file).catch(() => {
    throw new EvidenceError('invalidArgument', `no run ${runId} in this storage`);
  });
  // Whole lines only: another process may be appending a note (`call_shown`) to a finished run right now.
  return bytes.subarray(0, bytes.lastIndexOf(10) + 1);
}

/** Every blob the records name (results and attachments kept as `blob`), with its key in the local store. */
function* blobsOf(
  records: ReturnType<typeof parseRunLog>['records'],
  tenant: string,
  runId: string,
): Generator<{ key: BlobKey; content: StoredContent & { byteCount: number } }> {
  for (const r of records) {
    if (r.type !== 'call_finished') continue;
    if (r.stored === 'blob')
      yield { key: { tenant, runId, callId: r.callId }, content: { ...r, byteCount: r.resultBytes } };
    for (const a of r.attachments)
      if (a.stored === 'blob')
        yield { key: { tenant, runId, callId: `${r.callId}.${a.slot}` }, content: { ...a, byteCount: a.sizeBytes } };
  }
}

/**
 * Puts one blob and its manifest where the bucket lacks them; returns the bytes put (0: both were there). The bytes
 * are read through the verified reader, so a local blob that no longer matches its record is never published.
 */
async function publishBlob(
  source: PublishSource,
  bucket: TeamBucket,
  key: BlobKey,
  content: StoredContent & { byteCount: number },
): Promise<number> {
  const manifestDigest = content.manifestDigest ?? '';
  const dataKey = bucket.blobKey(content.sha256);
  const manifestKey = bucket.manifestKey(manifestDigest);
  const [hasData, hasManifest] = await Promise.all([bucket.has(dataKey), bucket.has(manifestKey)]);
  if (hasData && hasManifest) return 0;
  if (!source.blobs) throw missingError();
  const expected = { sha256: content.sha256, byteCount: content.byteCount, manifestDigest };
  const { manifest, source: local } = await openVerified(source.blobs, key, expected);
  let put = 0;
  if (!hasData) {
    await bucket.objects.put(dataKey, streamVerified(local, manifest));
    put += manifest.byteCount;
  }
  if (!hasManifest) {
    const sidecar = manifestKeyOf(key);
    const encoded = await readRange(source.blobs, sidecar, 0, (await source.blobs.size(sidecar)) ?? 0);
    if (sha256Hex(encoded) !== manifestDigest) throw new EvidenceError('digestMismatch');
    await bucket.objects.put(manifestKey, encoded);
    put += encoded.length;
  }
  return put;
}
