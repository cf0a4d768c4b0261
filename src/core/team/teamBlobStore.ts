/**
 * A team store's blobs as a read-only `BlobStore`, so a team run is read by the same reader as a local one
 * (docs/contracts.md §7.2). Bucket addresses come only from the mirrored records' digests: nothing a model sent
 * becomes part of an S3 key.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { assertSafeSegment, validateBlobKey, type BlobKey } from '../blobs/blobKey.js';
import type { BlobStore } from '../blobs/blobStore.js';
import { MANIFEST_SUFFIX, missingError } from '../blobs/verifiedBlobs.js';
import { EvidenceError } from '../errors.js';
import { Lru } from '../lru.js';
import { parseRunLog } from '../runs/log/runLog.js';
import type { TeamBucket } from './teamBucket.js';

/** The inspector and a model read a few runs at a time. */
const RUNS_HELD = 64;

type RunBlobs = ReadonlyMap<string, { readonly sha256: string; readonly manifestDigest: string }>;

export class TeamBlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly runs = new Lru<string, RunBlobs>({ maxEntries: RUNS_HELD });

  constructor(
    private readonly bucket: TeamBucket,
    private readonly logsDir: string,
  ) {}

  async size(key: BlobKey): Promise<number | undefined> {
    return this.bucket.objects.size(await this.address(key));
  }

  async readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number> {
    return this.bucket.objects.readInto(await this.address(key), start, target);
  }

  put(): Promise<never> {
    return readOnly();
  }

  move(): Promise<never> {
    return readOnly();
  }

  delete(): Promise<never> {
    return readOnly();
  }

  deleteRun(): Promise<never> {
    return readOnly();
  }

  /** A call the records do not keep as a blob is missing. */
  private async address(key: BlobKey): Promise<BlobKey> {
    validateBlobKey(key);
    const sidecar = key.callId.endsWith(MANIFEST_SUFFIX);
    const segment = sidecar ? key.callId.slice(0, -MANIFEST_SUFFIX.length) : key.callId;
    const found = (await this.blobsOf(key.tenant, key.runId)).get(segment);
    if (!found) throw missingError();
    return sidecar ? this.bucket.manifestKey(found.manifestDigest) : this.bucket.blobKey(found.sha256);
  }

  private async blobsOf(tenant: string, runId: string): Promise<RunBlobs> {
    const id = `${tenant}/${runId}`;
    const held = this.runs.get(id);
    if (held) return held;
    const file = path.join(
      this.logsDir,
      assertSafeSegment('tenant', tenant),
      `${assertSafeSegment('runId', runId)}.jsonl`,
    );
    const bytes = await fsp.readFile(file).catch(() => {
      throw missingError();
    });
    const map = new Map<string, { sha256: string; manifestDigest: string }>();
    for (const r of parseRunLog(bytes, runId).records) {
      if (r.type !== 'call_finished') continue;
      if (r.stored === 'blob') map.set(r.callId, { sha256: r.sha256, manifestDigest: r.manifestDigest ?? '' });
      for (const a of r.attachments)
        if (a.stored === 'blob')
          map.set(`${r.callId}.${a.slot}`, { sha256: a.sha256, manifestDigest: a.manifestDigest ?? '' });
    }
    this.runs.set(id, map);
    return map;
  }
}

function readOnly(): Promise<never> {
  return Promise.reject(new EvidenceError('invalidArgument', 'a team store is read-only here'));
}
