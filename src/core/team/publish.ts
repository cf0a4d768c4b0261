/**
 * Publishing runs to a team store (docs/contracts.md §7.1): each blob and manifest only where the bucket lacks it,
 * then the run's log last, so a publish stopped anywhere leaves the run unlisted and the next one writes only what is
 * missing.
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

export interface PublishSource {
  readonly logsDir: string;
  readonly tenant: string;
  /** undefined: only inline outputs can be published. */
  readonly blobs: BlobStore | undefined;
}

export interface PublishReport {
  readonly runId: string;
  /** `present`: published before, by anyone; its log was left as it was. */
  readonly run: 'written' | 'present';
  readonly blobsUploaded: number;
  readonly blobsPresent: number;
  readonly bytesUploaded: number;
}

/** Throws a sentence; the run stays local whatever happens. */
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

/** A run id that is not one safe segment is refused before any path is built. */
async function readLocalLog(source: PublishSource, runId: string): Promise<Uint8Array> {
  if (!/^run-[A-Za-z0-9-]{1,120}$/.test(runId)) throw new EvidenceError('invalidArgument', 'not a run id');
  const file = path.join(source.logsDir, source.tenant, `${runId}.jsonl`);
  const bytes = await fsp.readFile(file).catch(() => {
    throw new EvidenceError('invalidArgument', `no run ${runId} in this storage`);
  });
  // Whole lines only: another process may be appending a note to a finished run right now.
  return bytes.subarray(0, bytes.lastIndexOf(10) + 1);
}

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

/** Read through the verified reader, so a local blob that no longer matches its record is never published. */
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
