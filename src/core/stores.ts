/**
 * Opening one workspace's stores from its layout and settings, in one place for every
 * front end (the editor's services, the MCP server, the command line): the blob adapter
 * the settings choose, the run store with the limits, and the artifact store over the
 * same blob store (docs/contracts.md §2.8). Nothing here reads the catalog: opening costs
 * the same at 100,000 runs as at none.
 */
import { ArtifactStore } from './artifacts/artifacts.js';
import type { BlobStore } from './blobs/blobStore.js';
import { FsBlobStore } from './blobs/fsBlobStore.js';
import { openBlobStore, type BlobSettings, type BlobStoreInputs } from './blobs/openBlobStore.js';
import { RunStore } from './runs/store/runStore.js';
import type { Preservation, ReaderLimits } from './runs/types.js';
import { ensureLayout, type StorageLayout } from './storageLayout.js';

/** The settings the stores are opened with, named as `boundedEvidence.*`. */
export interface StoreSettings extends BlobSettings {
  readonly largeResultBytes: number;
  readonly previewBytes: number;
  /** 0: no cap (outputs kept whole while retention allows; docs/contracts.md §2.10). */
  readonly captureCapBytes: number;
  readonly preservation: Preservation;
}

/** Options of `openEvidenceStores`. */
export interface OpenStoresOptions extends Omit<BlobStoreInputs, 'blobsDir'> {
  /** The tools of the agent profile (hashed into each run's profile). */
  readonly tools: readonly string[];
  /** The reader's bounds (the editor's inspector reads larger windows than a model). */
  readonly reader: Partial<ReaderLimits>;
}

/** One tenant's stores. */
export interface EvidenceStores {
  readonly runs: RunStore;
  readonly artifacts: ArtifactStore;
  /** What backs large outputs (undefined: no blob store, previews only). */
  readonly blobs: BlobStore | undefined;
  /** Runs left open by a writer that died, finished now as `interrupted` (docs/contracts.md §5.4). */
  readonly interrupted: readonly string[];
}

/** Creates the layout's folders and opens every store of it. */
export async function openEvidenceStores(
  layout: StorageLayout,
  settings: StoreSettings,
  options: OpenStoresOptions,
): Promise<EvidenceStores> {
  await ensureLayout(layout);
  const blobs = await openBlobStore(settings, { ...options, blobsDir: layout.blobsDir });
  const maintenance = options.maintenance ?? true;
  // Artifacts are keys of the same blob store (docs/architecture.md §3); with none (S3 chosen
  // but not configured: outputs keep previews only) they stay on this machine's filesystem
  // store, since an `evidence_readFile` observation promises ranges that read back.
  const artifacts = new ArtifactStore({
    blobs: blobs ?? (await FsBlobStore.open(layout.blobsDir, { sweep: false })),
    tenant: layout.tenant,
    // Stores of the old layout: their artifacts move into the blob store on first read.
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
    // `evidence_readFile` results are recorded by naming their artifact: handles read them there.
    artifacts,
  });
  // Runs left open by a writer that died (a killed server, a crashed editor) stop showing as running (docs/contracts.md
  // §5.4).
  const interrupted = await runs.finishInterrupted().catch((e: unknown) => {
    options.warn(`runs left open could not be finished: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  });
  return { runs, artifacts, blobs, interrupted };
}
