/**
 * Choosing and constructing the blob adapter from settings, in one place for every
 * front end (docs/architecture.md §3). Adding an adapter: its file, one case here, its
 * run of the contract suite (test/unit/core/blobs), and its settings.
 */
import type { BlobStore } from './blobStore.js';
import { FsBlobStore } from './fsBlobStore.js';

/** S3 connection settings as `boundedEvidence.storage.s3.*` holds them (credentials are never settings). */
export interface S3BlobSettings {
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly forcePathStyle: boolean;
}

/** The storage settings that choose an adapter. */
export interface BlobSettings {
  readonly backend: 'filesystem' | 's3';
  /** Needed when `backend` is `s3`. */
  readonly s3?: S3BlobSettings;
}

/** What opening needs besides the settings. */
export interface BlobStoreInputs {
  /** The filesystem adapter's root (`<storage>/evidence/blobs`). */
  readonly blobsDir: string;
  /** S3 credentials (from SecretStorage in the editor); undefined: the SDK's default chain. */
  readonly s3Credentials?: () => Promise<{ accessKeyId: string; secretAccessKey: string } | undefined>;
  /** Told why the choice fell short (no bucket: previews only; no credentials: the default chain). */
  readonly warn: (message: string) => void;
  /** False for a short-lived process: no start-up sweep of temporary files (`RunStoreOptions.maintenance`). */
  readonly maintenance?: boolean;
}

/**
 * The adapter the settings ask for; undefined (after `warn`) when it cannot be built, so results keep previews only.
 */
export async function openBlobStore(settings: BlobSettings, inputs: BlobStoreInputs): Promise<BlobStore | undefined> {
  switch (settings.backend) {
    case 'filesystem':
      return await FsBlobStore.open(inputs.blobsDir, { sweep: inputs.maintenance ?? true });
    case 's3': {
      const s3 = settings.s3;
      if (!s3?.bucket) {
        inputs.warn(
          'S3 storage is selected but boundedEvidence.storage.s3.bucket is empty: ' +
            'large outputs keep only their previews',
        );
        return undefined;
      }
      const credentials = await inputs.s3Credentials?.();
      if (!credentials)
        inputs.warn(
          'no S3 credentials in SecretStorage ("Bounded Evidence: Set S3 Credentials"): using the SDK default chain',
        );
      // Loaded only for this backend: the S3 SDK's start-up cost is not paid by the filesystem store.
      const { S3BlobStore } = await import('./s3BlobStore.js');
      return new S3BlobStore({
        bucket: s3.bucket,
        endpoint: s3.endpoint || undefined,
        region: s3.region,
        prefix: s3.prefix,
        forcePathStyle: s3.forcePathStyle,
        credentials,
      });
    }
  }
}
