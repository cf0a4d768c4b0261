/**
 * The same layout, tenant rule, limits and tool profile as the MCP server and the editor, so a handle minted by
 * `capture` reads in the editor and the other way round (docs/architecture.md §2.4).
 */
import { openEvidenceStores, type ArtifactStore, type BlobStore, type RunStore } from '../core/index.js';
import { packageDeclarations, MCP_TOOL_NAMES } from '../node/packageJson.js';
import { resolveSettings, type DeclaredSettings } from '../node/resolveSettings.js';
import { openStorage, type OpenedStorage } from '../node/openStorage.js';
import { findStorage } from '../core/reach/locate.js';
import { UsageError } from './args.js';

import { ENV } from '../core/processEnv.js';

export interface CliSession {
  readonly storage: OpenedStorage;
  readonly settings: DeclaredSettings;
  readonly runs: RunStore;
  readonly artifacts: ArtifactStore;
  readonly blobs: BlobStore | undefined;
}

/**
 * The hooks find the same one (src/core/reach/locate.ts); a usage error says how to get one when there is no home to
 * keep a default in.
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

/** Without `maintenance` the start-up checks are skipped: the command answers and exits without waiting for them. */
export async function openSession(storageDir: string, options: { maintenance?: boolean } = {}): Promise<CliSession> {
  const declarations = packageDeclarations();
  const settings = resolveSettings(declarations);
  const storage = await openStorage(storageDir);
  const { runs, artifacts, blobs } = await openEvidenceStores(
    storage,
    { ...settings, backend: 'filesystem' },
    {
      // The MCP server's profile, so the runs compare.
      tools: MCP_TOOL_NAMES,
      reader: { maxByteWindow: settings.maxRangeBytes },
      warn: () => undefined,
      // One request, then exit: maintenance is the long-lived front ends' work (docs/architecture.md §2.4).
      maintenance: options.maintenance ?? false,
    },
  );
  return { storage, settings, runs, artifacts, blobs };
}
