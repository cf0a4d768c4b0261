/**
 * A team store opened read-only (docs/contracts.md §7.2): the bucket's run logs mirrored and indexed by the same
 * catalog as local runs, their bytes read from the bucket and verified. A log that does not hash to its published
 * sha256 or is not one finished run is refused, never mirrored: it is listed by its id and the bucket's time, marked,
 * and a handle its bytes name is refused with the tampering sentence.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { isSafeSegment } from '../blobs/blobKey.js';
import { EvidenceError } from '../errors.js';
import { accessDenied } from '../runs/log/handles.js';
import { parseRunLog } from '../runs/log/runLog.js';
import { RunStore } from '../runs/store/runStore.js';
import type {
  HandleSource,
  ReaderLimits,
  ReadOptions,
  ReadScope,
  ReadToolOutputArgs,
  ReadToolOutputResult,
  RunSummary,
} from '../runs/types.js';
import { TeamBlobStore } from './teamBlobStore.js';
import type { FetchedLog, ListedRun, TeamBucket } from './teamBucket.js';
import { teamStoreId, type TeamCredentials, type TeamLocation } from './teamLocation.js';

const FETCHES_IN_FLIGHT = 8;

/** For a teammate's new run. */
const RESYNC_ON_MISS_MS = 5_000;

export interface TeamStoreOptions {
  readonly name: string;
  readonly location: TeamLocation;
  readonly teamDir: string;
  readonly reader?: Partial<ReaderLimits>;
  /** Access keys from the caller (the editor's SecretStorage); absent: the location's profile or the default chain. */
  readonly credentials?: TeamCredentials;
}

export interface TeamSyncReport {
  readonly listed: number;
  readonly added: number;
  /** Changed, cut, swapped, not a finished run: never indexed. */
  readonly refused: readonly string[];
}

export interface TeamRunSummary extends RunSummary {
  readonly store: string;
}

/** What is known of a refused run: nothing its log says is trusted. */
interface RefusedRun {
  readonly summary: TeamRunSummary;
  /** Handles its bytes name: each read of one is refused, never resolved. */
  readonly handles: ReadonlySet<string>;
}

const HANDLE_IN_BYTES = /\b(?:res|out)_[a-z2-7]{26}\b/g;

export class TeamStore {
  private readonly tenants = new Map<string, RunStore>();
  private readonly mirrored = new Set<string>();
  private readonly refusedRuns = new Map<string, RefusedRun>();
  private lastSync = 0;
  private syncing: Promise<TeamSyncReport> | undefined;

  private constructor(
    readonly name: string,
    /** Its local index's folder name under the team folder. */
    readonly id: string,
    private readonly bucket: TeamBucket,
    private readonly logsDir: string,
    private readonly blobs: TeamBlobStore,
    private readonly reader: Partial<ReaderLimits> | undefined,
  ) {}

  /** Nothing is listed yet. */
  static async open(options: TeamStoreOptions): Promise<TeamStore> {
    // Loaded here only: the S3 SDK's start-up is paid by whoever opens a team store.
    const { TeamBucket } = await import('./teamBucket.js');
    const bucket = new TeamBucket(options.location, options.credentials);
    const id = teamStoreId(options.location);
    const logsDir = path.join(options.teamDir, id, 'logs');
    await fsp.mkdir(logsDir, { recursive: true });
    const store = new TeamStore(options.name, id, bucket, logsDir, new TeamBlobStore(bucket, logsDir), options.reader);
    for (const tenant of await fsp.readdir(logsDir)) {
      if (!isSafeSegment(tenant)) continue;
      await store.tenant(tenant);
      for (const f of await fsp.readdir(path.join(logsDir, tenant)))
        if (f.endsWith('.jsonl')) store.mirrored.add(f.slice(0, -'.jsonl'.length));
    }
    return store;
  }

  get refused(): ReadonlySet<string> {
    return new Set(this.refusedRuns.keys());
  }

  /** The refused runs, newest first by the bucket's time. */
  refusedList(): TeamRunSummary[] {
    return [...this.refusedRuns.values()]
      .map((r) => r.summary)
      .sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : a.runId < b.runId ? 1 : -1));
  }

  /** One sync at a time. */
  sync(): Promise<TeamSyncReport> {
    this.syncing ??= this.syncOnce().finally(() => {
      this.lastSync = Date.now();
      this.syncing = undefined;
    });
    return this.syncing;
  }

  async listRuns(): Promise<TeamRunSummary[]> {
    const all: TeamRunSummary[] = [];
    for (const runs of this.tenants.values())
      for (const r of await runs.listRuns()) all.push({ ...r, store: this.name });
    return all.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
  }

  /** From the catalogs' index, no log read. */
  async firstPage(limit: number): Promise<TeamRunSummary[]> {
    const all: TeamRunSummary[] = [];
    for (const runs of this.tenants.values())
      for (const r of await runs.queryRuns({ limit })) all.push({ ...r, store: this.name });
    return all.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0)).slice(0, limit);
  }

  runStores(): RunStore[] {
    return [...this.tenants.values()];
  }

  async searchable(): Promise<RunStore[]> {
    await this.syncing?.catch(() => undefined);
    return this.runStores();
  }

  /**
   * A handle no mirrored record mints is looked for once more after a new listing, then refused with the usual
   * sentence.
   */
  async readToolOutput(
    args: ReadToolOutputArgs,
    scope?: ReadScope,
    options?: ReadOptions,
  ): Promise<ReadToolOutputResult> {
    return this.withRun(args.handle, (runs) => runs.readToolOutput(args, scope, options));
  }

  async openHandle(handle: string): Promise<HandleSource> {
    const src = await this.withRun(handle, (runs) => runs.openHandle(handle));
    return { ...src, store: this.name };
  }

  /** The tenant store holding `runId`, when a mirrored log of this store has it. */
  async runStoreOf(runId: string): Promise<RunStore | undefined> {
    for (const runs of this.tenants.values())
      if ((await runs.queryRuns({ runIds: [runId], limit: 1 })).length > 0) return runs;
    return undefined;
  }

  close(): void {
    for (const runs of this.tenants.values()) runs.close();
    this.bucket.dispose();
  }

  private async withRun<T>(handle: unknown, fn: (runs: RunStore) => Promise<T>): Promise<T> {
    if (typeof handle !== 'string') throw accessDenied();
    this.refuseIfTampered(handle);
    let owner = await this.ownerOf(handle);
    if (!owner && Date.now() - this.lastSync >= RESYNC_ON_MISS_MS) {
      // A store that cannot be listed answers as one that never minted the handle: a model learns nothing of it.
      const synced = await this.sync().then(
        () => true,
        () => false,
      );
      if (synced) {
        this.refuseIfTampered(handle);
        owner = await this.ownerOf(handle);
      }
    }
    if (!owner) throw accessDenied();
    try {
      return await fn(owner.runs);
    } catch (e) {
      if (e instanceof EvidenceError && e.code === 'missing')
        throw new EvidenceError(
          'missing',
          `stored bytes of run ${owner.runId} are missing from team store ${this.name}`,
        );
      throw e;
    }
  }

  /** The local tampering sentence for a handle of a refused run. */
  private refuseIfTampered(handle: string): void {
    for (const r of this.refusedRuns.values()) if (r.handles.has(handle)) throw new EvidenceError('digestMismatch');
  }

  private async ownerOf(handle: string): Promise<{ runs: RunStore; runId: string } | undefined> {
    for (const runs of this.tenants.values()) {
      const entry = await runs.resolve(handle).catch((e: unknown) => {
        if (e instanceof EvidenceError && e.code === 'accessDenied') return undefined;
        throw e;
      });
      if (entry) return { runs, runId: entry.runId };
    }
    return undefined;
  }

  private async tenant(tenant: string): Promise<RunStore> {
    let runs = this.tenants.get(tenant);
    if (!runs) {
      runs = await RunStore.open({
        logsDir: this.logsDir,
        tenant,
        blobs: this.blobs,
        maintenance: false,
        ...(this.reader !== undefined && { reader: this.reader }),
      });
      this.tenants.set(tenant, runs);
    }
    return runs;
  }

  private async syncOnce(): Promise<TeamSyncReport> {
    const fresh: ListedRun[] = [];
    let listed = 0;
    for await (const run of this.bucket.runs()) {
      listed++;
      if (!this.mirrored.has(run.runId)) fresh.push(run);
    }
    const touched = new Set<RunStore>();
    const refused: string[] = [];
    let added = 0;
    for (let i = 0; i < fresh.length; i += FETCHES_IN_FLIGHT) {
      const batch = fresh.slice(i, i + FETCHES_IN_FLIGHT);
      const done = await Promise.all(batch.map((run) => this.fetchRun(run)));
      for (const [j, fetched] of done.entries()) {
        const runId = batch[j]!.runId;
        if (typeof fetched !== 'string') {
          refused.push(runId);
          this.refusedRuns.set(runId, fetched);
          continue;
        }
        this.refusedRuns.delete(runId);
        this.mirrored.add(runId);
        touched.add(await this.tenant(fetched));
        added++;
      }
    }
    // The catalogs index the new logs in start order, in batches (docs/architecture.md §6).
    for (const runs of touched) await runs.reconcileWithLogs();
    return { listed, added, refused };
  }

  /** The mirrored run's tenant, or the refused run as it is listed. */
  private async fetchRun(run: ListedRun): Promise<string | RefusedRun> {
    const { runId } = run;
    let log: FetchedLog;
    try {
      log = await this.bucket.fetchLog(runId);
    } catch (e) {
      if (e instanceof EvidenceError && e.code === 'missing') return this.refusedRun(run, 'unreadable', undefined);
      throw e;
    }
    const bytes = Buffer.from(log.bytes.buffer, log.bytes.byteOffset, log.bytes.byteLength);
    if (!log.intact) return this.refusedRun(run, 'tampered', bytes);
    const parsed = parseRunLog(bytes, runId);
    const first = parsed.records[0];
    const finished = parsed.records.some((r) => r.type === 'run_finished');
    if (
      first?.type !== 'run_started' ||
      first.runId !== runId ||
      !isSafeSegment(first.tenant) ||
      !finished ||
      parsed.tornTail ||
      parsed.problems.length > 0
    )
      return this.refusedRun(run, 'unreadable', bytes);
    const dir = path.join(this.logsDir, first.tenant);
    await fsp.mkdir(dir, { recursive: true });
    // Whole or not at all: a sync killed mid-write leaves a temporary name the next sync ignores.
    const tmp = path.join(dir, `.${runId}.${process.pid}.tmp`);
    await fsp.writeFile(tmp, log.bytes);
    await fsp.rename(tmp, path.join(dir, `${runId}.jsonl`));
    return first.tenant;
  }

  private refusedRun(run: ListedRun, why: 'tampered' | 'unreadable', bytes: Buffer | undefined): RefusedRun {
    return {
      handles: new Set(bytes?.toString('latin1').match(HANDLE_IN_BYTES) ?? []),
      summary: {
        runId: run.runId,
        tenant: '',
        startedAt: run.listedAt,
        status: 'failed',
        pinned: false,
        profileHash: '',
        callCount: 0,
        failedCalls: 0,
        totalBytes: run.sizeBytes,
        outputBytes: 0,
        tornTail: false,
        problems: [],
        store: this.name,
        refused: why,
      },
    };
  }
}
