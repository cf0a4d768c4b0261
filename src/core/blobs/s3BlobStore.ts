/**
 * S3-compatible blob store. Checksums only WHEN_REQUIRED: otherwise streamed bodies go `aws-chunked`, which some
 * servers (s3rver) store as the object itself. A streamed put buffers one part at most; no error carries credentials,
 * the endpoint or a key.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { EvidenceError } from '../errors.js';
import { assertSafeSegment, blobKeyPath, type BlobKey } from './blobKey.js';
import type { BlobStore } from './blobStore.js';

const S3_MAX_COPY_BYTES = 5 * 1024 * 1024 * 1024;

export interface S3BlobStoreOptions {
  readonly endpoint?: string;
  readonly region?: string;
  readonly bucket: string;
  readonly prefix?: string;
  /** Omitted: the SDK's default chain. */
  readonly credentials?: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
  /** Path-style works with every S3-compatible server. */
  readonly forcePathStyle?: boolean;
  readonly profile?: string;
  /** Default 8 MiB; S3 needs >= 5 MiB. */
  readonly partSizeBytes?: number;
  readonly maxAttempts?: number;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;

  constructor(options: S3BlobStoreOptions) {
    if (!options.bucket) throw new EvidenceError('invalidArgument', 'S3 bucket is required');
    const prefix = options.prefix ?? '';
    this.prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    this.bucket = options.bucket;
    this.partSize = options.partSizeBytes ?? 8 * 1024 * 1024;
    if (!Number.isSafeInteger(this.partSize) || this.partSize <= 0)
      throw new EvidenceError('invalidArgument', 'S3 part size must be a positive integer');
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region ?? 'us-east-1',
      forcePathStyle: options.forcePathStyle ?? true,
      credentials: options.credentials,
      ...(options.profile !== undefined && { profile: options.profile }),
      maxAttempts: options.maxAttempts ?? 3,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  dispose(): void {
    this.client.destroy();
  }

  private objectKey(key: BlobKey): string {
    return this.prefix + blobKeyPath(key);
  }

  async put(key: BlobKey, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<{ sizeBytes: number }> {
    const Key = this.objectKey(key);
    if (body instanceof Uint8Array) {
      await this.guard(() =>
        this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentLength: body.length })),
      );
      return { sizeBytes: body.length };
    }
    const part = Buffer.allocUnsafe(this.partSize);
    let fill = 0;
    let total = 0;
    let uploadId: string | undefined;
    const parts: { ETag?: string; PartNumber: number }[] = [];
    const flush = async (): Promise<void> => {
      if (uploadId === undefined) {
        const created = await this.guard(() =>
          this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key })),
        );
        uploadId = created.UploadId;
        if (!uploadId) throw new EvidenceError('backend', 'blob store request failed (no upload id)');
      }
      const PartNumber = parts.length + 1;
      // A copy: the SDK may hold the body while `part` is refilled.
      const done = await this.guard(() =>
        this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key,
            UploadId: uploadId,
            PartNumber,
            Body: Buffer.from(part.subarray(0, fill)),
            ContentLength: fill,
          }),
        ),
      );
      parts.push({ ETag: done.ETag, PartNumber });
      fill = 0;
    };
    try {
      for await (const piece of body) {
        let off = 0;
        while (off < piece.length) {
          const take = Math.min(this.partSize - fill, piece.length - off);
          part.set(piece.subarray(off, off + take), fill);
          fill += take;
          off += take;
          if (fill === this.partSize) await flush();
        }
        total += piece.length;
      }
      if (uploadId === undefined) {
        await this.guard(() =>
          this.client.send(
            new PutObjectCommand({ Bucket: this.bucket, Key, Body: part.subarray(0, fill), ContentLength: fill }),
          ),
        );
        return { sizeBytes: total };
      }
      if (fill > 0) await flush();
      await this.guard(() =>
        this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
          }),
        ),
      );
      return { sizeBytes: total };
    } catch (e) {
      if (uploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw e;
    }
  }

  async size(key: BlobKey): Promise<number | undefined> {
    try {
      const head = await this.guard(() =>
        this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })),
      );
      return head.ContentLength ?? 0;
    } catch (e) {
      if (e instanceof EvidenceError && e.code === 'missing') return undefined;
      throw e;
    }
  }

  async readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number> {
    const Key = this.objectKey(key);
    if (target.length === 0) {
      // Still answers `missing` for an absent object, as every adapter does.
      if ((await this.size(key)) === undefined) throw new EvidenceError('missing', 'stored bytes are missing');
      return 0;
    }
    try {
      // Read inside the guard: a connection cut mid-body is a backend error too.
      const body = await this.guard(async () => {
        const got = await this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key, Range: `bytes=${start}-${start + target.length - 1}` }),
        );
        return got.Body ? await got.Body.transformToByteArray() : new Uint8Array(0);
      });
      const n = Math.min(body.length, target.length);
      target.set(body.subarray(0, n));
      return n;
    } catch (e) {
      if (e instanceof EvidenceError && e.code === 'rangeNotSatisfiable') return 0;
      throw e;
    }
  }

  /** Server-side, so no byte passes through this process; over CopyObject's 5 GiB limit it streams in parts. */
  async move(from: BlobKey, to: BlobKey): Promise<Record<string, never>> {
    const size = await this.size(from);
    if (size === undefined) throw new EvidenceError('missing', 'stored bytes are missing');
    if (size <= S3_MAX_COPY_BYTES) {
      const source = this.objectKey(from);
      await this.guard(() =>
        this.client.send(
          new CopyObjectCommand({
            Bucket: this.bucket,
            Key: this.objectKey(to),
            CopySource: `${this.bucket}/${source.split('/').map(encodeURIComponent).join('/')}`,
          }),
        ),
      );
    } else {
      await this.put(to, this.pieces(from, size));
    }
    await this.delete(from);
    return {};
  }

  /** The buffer is reused: `put` copies each piece into its part. */
  private async *pieces(key: BlobKey, size: number): AsyncGenerator<Uint8Array> {
    const piece = new Uint8Array(this.partSize);
    for (let at = 0; at < size;) {
      const n = await this.readInto(key, at, piece.subarray(0, Math.min(piece.length, size - at)));
      if (n === 0) throw new EvidenceError('missing', 'stored bytes are missing');
      at += n;
      yield piece.subarray(0, n);
    }
  }

  async delete(key: BlobKey): Promise<void> {
    await this.guard(() =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })),
    );
  }

  async deleteRun(tenant: string, runId: string): Promise<void> {
    const Prefix = `${this.prefix}${assertSafeSegment('tenant', tenant)}/${assertSafeSegment('runId', runId)}/`;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.guard(() =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken })),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key)
          await this.guard(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: o.Key })));
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  /** Errors carry the HTTP status or "unreachable" only. */
  private async guard<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (e) {
      throw toSafeError(e);
    }
  }
}

function toSafeError(e: unknown): EvidenceError {
  if (e instanceof EvidenceError) return e;
  const err = e as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  const name = typeof err?.name === 'string' ? err.name : '';
  const status = typeof err?.$metadata?.httpStatusCode === 'number' ? err.$metadata.httpStatusCode : undefined;
  if (name === 'NoSuchKey' || name === 'NotFound' || (status === 404 && name !== 'NoSuchBucket'))
    return new EvidenceError('missing', 'stored bytes are missing');
  if (name === 'NoSuchBucket')
    return new EvidenceError('backend', 'blob store request failed: the bucket does not exist');
  // An empty read, told apart by code, not by message.
  if (status === 416) return new EvidenceError('rangeNotSatisfiable', 'blob store request failed (HTTP 416)');
  if (status !== undefined) return new EvidenceError('backend', `blob store request failed (HTTP ${status})`);
  return new EvidenceError('backend', 'blob store is unreachable');
}
