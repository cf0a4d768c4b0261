/**
 * A team store's objects on S3 (docs/contracts.md §7.1), every key built here from validated parts. Blobs and
 * manifests are addressed by their own sha256, so two publishers can never write different objects under one key; a
 * run's log comes last, so listing `runs/` lists complete runs, and it is never replaced.
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { validateBlobKey, type BlobKey } from '../blobs/blobKey.js';
import { S3BlobStore } from '../blobs/s3BlobStore.js';
import { EvidenceError } from '../errors.js';
import { sha256Hex } from '../integrity/sha256.js';
import type { TeamCredentials, TeamLocation } from './teamLocation.js';

/** Records only: outputs are blobs. */
const MAX_RUN_LOG_BYTES = 64 * 1024 * 1024;

const HEX64 = /^[0-9a-f]{64}$/;
const RUN_ID = /^run-[A-Za-z0-9-]{1,120}$/;

export interface ListedRun {
  readonly runId: string;
  readonly sizeBytes: number;
  /** The bucket's time for the object: a refused run's only trustworthy place in the list. */
  readonly listedAt: string;
}

/** A run log as fetched: `intact` only when it hashes to the sha256 its publisher recorded. */
export interface FetchedLog {
  readonly bytes: Uint8Array;
  readonly intact: boolean;
}

export class TeamBucket {
  readonly objects: S3BlobStore;
  private readonly client: S3Client;

  /** Without `credentials`: the location's profile, else the SDK's default chain. */
  constructor(
    readonly location: TeamLocation,
    credentials?: TeamCredentials,
  ) {
    const connection = {
      endpoint: location.endpoint,
      region: location.region,
      forcePathStyle: location.forcePathStyle,
      ...(credentials !== undefined
        ? { credentials }
        : location.profile !== undefined && { profile: location.profile }),
    };
    this.objects = new S3BlobStore({ ...connection, bucket: location.bucket, prefix: location.prefix });
    this.client = new S3Client({
      ...connection,
      maxAttempts: 3,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** A sha256 only: nothing else ever becomes part of it. */
  blobKey(sha256: string): BlobKey {
    return hexKey('blobs', sha256);
  }

  manifestKey(digest: string): BlobKey {
    return hexKey('manifests', digest);
  }

  async has(key: BlobKey): Promise<boolean> {
    return (await this.objects.size(key)) !== undefined;
  }

  /** The log is the last object of a publish, so a run is listed only once everything it names is stored. */
  async putRun(runId: string, log: Uint8Array): Promise<'written' | 'present'> {
    const Key = this.runKey(runId);
    if (await this.headRun(Key)) return 'present';
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.location.bucket,
          Key,
          Body: log,
          ContentLength: log.length,
          ContentType: 'application/x-ndjson',
          Metadata: { sha256: sha256Hex(log) },
          IfNoneMatch: '*',
        }),
      );
      return 'written';
    } catch (e) {
      // 412: another publisher wrote it between our HEAD and PUT; theirs stays.
      if (statusOf(e) === 412) return 'present';
      throw safeError(e);
    }
  }

  /**
   * ListObjects with the last key as marker: every S3-compatible server pages it the same way (s3rver fails a
   * truncated ListObjectsV2 page).
   */
  async *runs(): AsyncGenerator<ListedRun> {
    const Prefix = `${this.location.prefix}runs/`;
    let Marker: string | undefined;
    for (;;) {
      const page = await this.client
        .send(new ListObjectsCommand({ Bucket: this.location.bucket, Prefix, Marker }))
        .catch((e: unknown) => {
          throw safeError(e);
        });
      const contents = page.Contents ?? [];
      for (const o of contents) {
        const name = o.Key?.slice(Prefix.length) ?? '';
        const runId = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : '';
        // Anything else under runs/ is not ours: never read.
        if (RUN_ID.test(runId))
          yield { runId, sizeBytes: o.Size ?? 0, listedAt: (o.LastModified ?? new Date(0)).toISOString() };
      }
      const last = contents.at(-1)?.Key;
      if (!page.IsTruncated || last === undefined) return;
      Marker = last;
    }
  }

  /** A changed or cut object is a digest mismatch. */
  async getRun(runId: string): Promise<Uint8Array> {
    const log = await this.fetchLog(runId);
    if (!log.intact) throw new EvidenceError('digestMismatch');
    return log.bytes;
  }

  /** The log and whether it is the one published; an oversized log is not read. */
  async fetchLog(runId: string): Promise<FetchedLog> {
    let got;
    try {
      got = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.runKey(runId) }));
    } catch (e) {
      throw safeError(e);
    }
    if ((got.ContentLength ?? 0) > MAX_RUN_LOG_BYTES) return { bytes: new Uint8Array(0), intact: false };
    const bytes = got.Body ? await got.Body.transformToByteArray() : new Uint8Array(0);
    const expected = got.Metadata?.sha256;
    return { bytes, intact: typeof expected === 'string' && HEX64.test(expected) && sha256Hex(bytes) === expected };
  }

  dispose(): void {
    this.objects.dispose();
    this.client.destroy();
  }

  private runKey(runId: string): string {
    if (!RUN_ID.test(runId)) throw new EvidenceError('invalidArgument', 'run id is not a run id');
    return `${this.location.prefix}runs/${runId}.jsonl`;
  }

  private async headRun(Key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key }));
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw safeError(e);
    }
  }
}

function hexKey(kind: 'blobs' | 'manifests', hex: string): BlobKey {
  if (!HEX64.test(hex)) throw new EvidenceError('digestMismatch');
  return validateBlobKey({ tenant: kind, runId: hex.slice(0, 2), callId: hex });
}

function statusOf(e: unknown): number | undefined {
  const s = (e as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof s === 'number' ? s : undefined;
}

/** Names no key, endpoint or credential. */
function safeError(e: unknown): EvidenceError {
  if (e instanceof EvidenceError) return e;
  const name = (e as { name?: unknown } | null)?.name;
  if (statusOf(e) === 404 || name === 'NoSuchKey') return new EvidenceError('missing', 'stored bytes are missing');
  if (name === 'NoSuchBucket')
    return new EvidenceError('backend', 'team store request failed: the bucket does not exist');
  const status = statusOf(e);
  if (status === 403) return new EvidenceError('backend', 'team store request failed (HTTP 403: access denied)');
  if (status !== undefined) return new EvidenceError('backend', `team store request failed (HTTP ${status})`);
  return new EvidenceError('backend', 'team store is unreachable');
}
