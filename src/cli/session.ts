/**
 * The stores the command line works on: the same folder layout, tenant rule, limits and
 * tool profile as the MCP server (src/node/storage.ts, src/node/settings.ts), which are the
 * editor's (src/core/storageLayout.ts), so a handle minted by `capture` reads in the
 * editor and the other way round (docs/architecture.md §2.4).
 */
import { openEvidenceStores, type ArtifactStore, type BlobStore, type RunStore } from '../core/index.js';
import { packageDeclarations, MCP_TOOL_NAMES } from '../node/packageJson.js';
import { resolveSettings, type DeclaredSettings } from '../node/settings.js';
import { openStorage, type OpenedStorage } from '../node/storage.js';
import { findStorage } from '../core/reach/locate.js';
import { UsageError } from './args.js';

import { ENV } from '../core/processEnv.js';

/** What every subcommand but `hook` and `mcp` opens. */
export interface CliSession {
  readonly storage: OpenedStorage;
  readonly settings: DeclaredSettings;
  readonly runs: RunStore;
  readonly artifacts: ArtifactStore;
  /** Where the runs' large outputs are (what `publish` reads back). */
  readonly blobs: BlobStore | undefined;
}

/**
 * The storage folder: `--storage`, else the environment, else the one the editor mapped to this folder or the
 * folder's default storage (src/core/reach/locate.ts: the hooks find the same one); a usage error saying how to get
 * one when there is no home to keep a default in.
 */
export function storageDirOf(flag: string | undefined, env: NodeJS.ProcessEnv, cwd?: string): string {
  const found = findStorage(env, cwd, flag || undefined);
  if (found === undefined || found.dir === '') {
    throw new UsageError(
      `no evidence storage: pass --storage DIR or set ${ENV.storage} (VS Code's ` +
        `integrated terminals have it once the Bounded Evidence extension is active; ` +
        `"Bounded Evidence: Copy MCP Server Configuration" shows the folder)`,
    );
  }
  return found.dir;
}

/**
 * Opens the stores of a storage folder with the editor's default limits, the way the
 * MCP server opens them (the core's `openEvidenceStores`, filesystem blobs). Without
 * `maintenance` (every subcommand but `list`), the start-up checks a long-lived process
 * makes are skipped: the command answers and exits without waiting for them.
 */
export async function openSession(storageDir: string, options: { maintenance?: boolean } = {}): Promise<CliSession> {
  const declarations = packageDeclarations();
  const settings = resolveSettings(declarations);
  const storage = await openStorage(storageDir);
  const { runs, artifacts, blobs } = await openEvidenceStores(
    storage,
    { ...settings, backend: 'filesystem' },
    {
      // The MCP server's profile: the same tools over the same core, so the runs compare.
      tools: MCP_TOOL_NAMES,
      reader: { maxByteWindow: settings.maxRangeBytes },
      warn: () => undefined,
      // One request, then exit: the logs-folder check and the temporary-file sweeps are the
      // long-lived front ends' (and `list`'s) work (docs/architecture.md §2.4).
      maintenance: options.maintenance ?? false,
    },
  );
  return { storage, settings, runs, artifacts, blobs };
}
