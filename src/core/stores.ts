/**
 * One place for every front end to open a workspace's stores (docs/contracts.md §2.8). Nothing here reads the
 * catalog, so opening costs the same at any number of runs.
 */
import { ArtifactStore } from './artifacts/artifacts.js';
import type { BlobStore } from './blobs/blobStore.js';
import { FsBlobStore } from './blobs/fsBlobStore.js';
import { openBlobStore, type BlobSettings, type BlobStoreInputs } from './blobs/openBlobStore.js';
import { RunStore } from './runs/store/runStore.js';
import type { Preservation, ReaderLimits } from './runs/types.js';
import { ensureLayout, type StorageLayout } from './storageLayout.js';

export interface StoreSettings extends BlobSettings {
  readonly largeResultBytes: number;
  readonly previewBytes: number;
  /** 0: no cap (docs/contracts.md §2.10). */
  readonly captureCapBytes: number;
  readonly preservation: Preservation;
}

export interface OpenStoresOptions extends Omit<BlobStoreInputs, 'blobsDir'> {
  /** Hashed into each run's profile. */
  readonly tools: readonly string[];
  /** The editor's inspector reads larger windows than a model. */
  readonly reader: Partial<ReaderLimits>;
}

export interface EvidenceStores {
  readonly runs: RunStore;
  readonly artifacts: ArtifactStore;
  /** undefined: previews only. */
  readonly blobs: BlobStore | undefined;
  /** Left open by a writer that died, finished now as `interrupted` (docs/contracts.md §5.4). */
  readonly interrupted: readonly string[];
}

export async function openEvidenceStores(
  layout: StorageLayout,
  settings: StoreSettings,
  options: OpenStoresOptions,
): Promise<EvidenceStores> {
  await ensureLayout(layout);
  const blobs = await openBlobStore(settings, { ...options, blobsDir: layout.blobsDir });
  const maintenance = options.maintenance ?? true;
  // With no blob store (S3 chosen but not configured), artifacts stay on the filesystem store, since an
  // `evidence_readFile` observation promises ranges that read back.
  const artifacts = new ArtifactStore({
    blobs: blobs ?? (await FsBlobStore.open(layout.blobsDir, { sweep: false })),
    tenant: layout.tenant,
    legacyRoot: layout.artifactsDir,
  });
  const runs = await RunStore.open({
    maintenance,
    logsDir: layout.logsDir,
    tenant: layout.tenant,
    blobs,
    limits: { largeResultBytes: settings.largeResultBytes, previewBytes: settings.previewBytes },
    tools: options.tools,
    preservation: settings.preservation,
    ...(settings.captureCapBytes > 0 && { captureCapBytes: settings.captureCapBytes }),
    reader: options.reader,
    artifacts,
  });
  const interrupted = await runs.finishInterrupted().catch((e: unknown) => {
    options.warn(`runs left open could not be finished: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  });
  return { runs, artifacts, blobs, interrupted };
}
