/**
 * One workspace's evidence services, rebuilt when a setting changes. Nothing is module state, and nothing is
 * re-learned on a rebuild: a `.tool-artifacts/…` path stays valid after a reload.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CombinedRuns,
  EvidenceFileWorkspace,
  LocalWorkspace,
  openEvidenceStores,
  toolNamesOffered,
  type ArtifactStore,
  type BlobStore,
  type RunRecordEvent,
  type RunStore,
  type StorageLayout,
  type RunStoreApi,
  type TeamCredentials,
  type TeamLocation,
  TeamStore,
  type ToolCallContext,
} from '../core/index.js';
import type { EvidenceSettings } from './settings.js';
import type { Log } from './log.js';

/**
 * The contract's maxima: the model-facing tool shrinks its own windows to fit 8 KiB, and the inspector fetches larger
 * ones.
 */
const READER_LIMITS = { maxContentChars: 10_000, maxLineChars: 2_000, maxByteWindow: 64 * 1024 } as const;

export interface EvidenceServices {
  readonly layout: StorageLayout;
  readonly settings: EvidenceSettings;
  readonly runs: RunStore;
  /**
   * What people read: this storage's runs and the team stores' (read-only) as one list, and handles of either
   * (docs/contracts.md §7.2); `runs` itself when no team store is added.
   */
  readonly reads: RunStoreApi;
  /** The team stores added in user settings, opened (listed in the background). */
  readonly teams: readonly TeamStore[];
  readonly artifacts: ArtifactStore;
  /** `undefined`: previews only. */
  readonly blobs: BlobStore | undefined;
  readonly workspace: EvidenceFileWorkspace | undefined;
  readonly folder: string | undefined;
  dispose(): void;
}

export interface ServiceInputs {
  readonly layout: StorageLayout;
  readonly folder: string | undefined;
  /** Never from settings. */
  readonly s3Credentials: () => Promise<{ accessKeyId: string; secretAccessKey: string } | undefined>;
  readonly log: Log;
  /** The team stores the user added, with their credentials (src/extension/team/teamSettings.ts). */
  readonly teamStores?: () => Promise<readonly TeamStoreEntry[]>;
}

/** One team store to open: its name, where it is, and access keys when the user kept them in SecretStorage. */
export interface TeamStoreEntry {
  readonly name: string;
  readonly location: TeamLocation;
  readonly credentials?: TeamCredentials;
}

/** The run profile hashes them. */
const EVIDENCE_TOOL_NAMES: readonly string[] = toolNamesOffered('lm');

export function toolContext(services: EvidenceServices, signal: AbortSignal, log: Log): ToolCallContext {
  return {
    runs: services.runs,
    artifacts: services.artifacts,
    files: services.workspace,
    folder: services.folder,
    settings: services.settings,
    signal,
    log: (message, error) => log.error(message, error),
  };
}

export async function openServices(inputs: ServiceInputs, settings: EvidenceSettings): Promise<EvidenceServices> {
  const { layout, log } = inputs;
  const { runs, artifacts, blobs } = await openEvidenceStores(layout, settings, {
    tools: EVIDENCE_TOOL_NAMES,
    reader: { ...READER_LIMITS, searchTimeoutMs: settings.searchTimeoutMs },
    s3Credentials: inputs.s3Credentials,
    warn: (message) => log.warn(message),
  });
  let workspace: EvidenceFileWorkspace | undefined;
  if (inputs.folder) {
    try {
      const local = await LocalWorkspace.open({ root: inputs.folder, denyPatterns: settings.readFileDenyPatterns });
      workspace = EvidenceFileWorkspace.create(local, artifacts, settings);
    } catch (e) {
      log.error('the workspace folder could not be opened for evidence_readFile', e);
    }
  }
  const teams = await openTeams(inputs, READER_LIMITS.maxByteWindow, settings.searchTimeoutMs);
  log.info(
    `evidence storage ready: tenant ${layout.tenant}, blobs ${blobs?.kind ?? 'none'}, team stores ${teams.length}`,
  );
  return {
    layout,
    settings,
    runs,
    reads: teams.length > 0 ? new CombinedRuns(runs, teams) : runs,
    teams,
    artifacts,
    blobs,
    workspace,
    folder: inputs.folder,
    dispose: () => {
      runs.close();
      blobs?.dispose?.();
      for (const t of teams) t.close();
    },
  };
}

/** Opens each team store's local index (nothing is listed here); one that cannot be opened is logged and left out. */
async function openTeams(inputs: ServiceInputs, maxByteWindow: number, searchTimeoutMs: number): Promise<TeamStore[]> {
  const teams: TeamStore[] = [];
  for (const t of (await inputs.teamStores?.().catch(() => [])) ?? []) {
    try {
      teams.push(
        await TeamStore.open({
          name: t.name,
          location: t.location,
          teamDir: path.join(inputs.layout.root, 'team'),
          reader: { ...READER_LIMITS, maxByteWindow, searchTimeoutMs },
          ...(t.credentials && { credentials: t.credentials }),
        }),
      );
    } catch (e) {
      inputs.log.error(`team store ${t.name} left out`, e);
    }
  }
  return teams;
}

/**
 * How long a swapped-out store stays open after its last live run ended: a read by handle
 * that started on it (a fetch in the inspector, a tool call) finishes well within this.
 */
const RETIRE_GRACE_MS = 30_000;
const RETIRE_POLL_MS = 5_000;

/** `onDidRecord` keeps its listeners across rebuilds. */
export class ServicesHost implements vscode.Disposable {
  private currentPromise: Promise<EvidenceServices>;
  private current: EvidenceServices | undefined;
  /** A run still recording in an older store keeps reporting. */
  private readonly recordSubscriptions = new Map<EvidenceServices, { dispose(): void }>();
  private readonly retiring = new Set<EvidenceServices>();
  private retireTimer: NodeJS.Timeout | undefined;
  private generation = 0;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  private readonly recordEmitter = new vscode.EventEmitter<RunRecordEvent>();
  readonly onDidChange = this.changeEmitter.event;
  readonly onDidRecord = this.recordEmitter.event;

  constructor(
    private readonly build: () => Promise<EvidenceServices>,
    private readonly log: Log,
  ) {
    this.currentPromise = this.open();
    // A failed build is logged in open(); callers of get() see the rejection themselves.
    this.currentPromise.catch(() => undefined);
  }

  get(): Promise<EvidenceServices> {
    return this.currentPromise;
  }

  /**
   * Calls in flight keep the old services, stores over the same folders; they are closed only once idle and past a
   * grace, since a capture may still stream through them.
   */
  async rebuild(): Promise<EvidenceServices> {
    this.currentPromise = this.open();
    this.currentPromise.catch(() => undefined);
    return await this.currentPromise;
  }

  private async open(): Promise<EvidenceServices> {
    // Only the latest build becomes current; an older one finishing later is released.
    const generation = ++this.generation;
    try {
      const services = await this.build();
      if (generation !== this.generation) {
        services.dispose();
        return await this.currentPromise;
      }
      this.recordSubscriptions.set(
        services,
        services.runs.onDidRecord((e) => this.recordEmitter.fire(e)),
      );
      if (this.current) this.retire(this.current);
      this.current = services;
      this.changeEmitter.fire();
      return services;
    } catch (e) {
      this.log.error('evidence storage could not be opened', e);
      throw e;
    }
  }

  get openStores(): number {
    return this.recordSubscriptions.size;
  }

  private retire(services: EvidenceServices): void {
    this.retiring.add(services);
    if (this.retireTimer) return;
    const idleSince = new Map<EvidenceServices, number>();
    this.retireTimer = setInterval(() => {
      const now = Date.now();
      for (const s of this.retiring) {
        if (s.runs.liveRuns > 0) {
          idleSince.delete(s);
          continue;
        }
        const since = idleSince.get(s) ?? now;
        idleSince.set(s, since);
        if (now - since < RETIRE_GRACE_MS) continue;
        this.close(s);
        idleSince.delete(s);
      }
      if (this.retiring.size === 0) {
        clearInterval(this.retireTimer);
        this.retireTimer = undefined;
      }
    }, RETIRE_POLL_MS);
    this.retireTimer.unref();
  }

  private close(services: EvidenceServices): void {
    this.retiring.delete(services);
    this.recordSubscriptions.get(services)?.dispose();
    this.recordSubscriptions.delete(services);
    try {
      services.dispose();
    } catch (e) {
      this.log.error('a swapped-out evidence store could not be closed', e);
    }
  }

  dispose(): void {
    if (this.retireTimer) clearInterval(this.retireTimer);
    for (const s of [...this.retiring]) this.close(s);
    if (this.current) this.close(this.current);
    this.changeEmitter.dispose();
    this.recordEmitter.dispose();
  }
}
