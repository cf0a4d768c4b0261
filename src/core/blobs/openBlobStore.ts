/**
 * One place for every front end (docs/architecture.md §3). Adding an adapter: its file, one case here, its run of the
 * contract suite, its settings.
 */
import type { BlobStore } from './blobStore.js';
import { FsBlobStore } from './fsBlobStore.js';

/** Credentials are never settings. */
export interface S3BlobSettings {
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly forcePathStyle: boolean;
}

export interface BlobSettings {
  readonly backend: 'filesystem' | 's3';
  readonly s3?: S3BlobSettings;
}

export interface BlobStoreInputs {
  readonly blobsDir: string;
  /** From SecretStorage in the editor; undefined: the SDK's default chain. */
  readonly s3Credentials?: () => Promise<{ accessKeyId: string; secretAccessKey: string } | undefined>;
  readonly warn: (message: string) => void;
  /** False for a short-lived process: no start-up sweep of temporary files. */
  readonly maintenance?: boolean;
}

/** Undefined (after `warn`) when it cannot be built, so results keep previews only. */
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
      // The S3 SDK's start-up cost is paid only by this backend.
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
