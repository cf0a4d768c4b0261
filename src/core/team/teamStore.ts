/**
 * A team store opened read-only on this machine (docs/contracts.md §7.2): the bucket's run logs mirrored into
 * `<dir>/logs/<tenant>/<runId>.jsonl` and indexed there by the same SQLite catalog as local runs (one `RunStore` per
 * publishing tenant), their bytes read from the bucket through `TeamBlobStore` and verified like every byte.
 *
 * A sync lists `runs/` under the prefix and fetches only the logs not mirrored yet; a log whose bytes do not hash to
 * the sha256 it was published with, that is not one finished run of the id its key names, is refused (and reported,
 * never mirrored). Handles resolve only through these mirrored records.
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
import type { TeamBucket } from './teamBucket.js';
import { teamStoreId, type TeamCredentials, type TeamLocation } from './teamLocation.js';

/** Logs fetched at once during a sync. */
const FETCHES_IN_FLIGHT = 8;

/** A handle that no mirrored record mints asks for a new listing at most this often (a teammate's new run). */
const RESYNC_ON_MISS_MS = 5_000;

/** What opening a team store needs. */
export interface TeamStoreOptions {
  /** How people name it (the configured name, or its URI). */
  readonly name: string;
  readonly location: TeamLocation;
  /** `<storage>/evidence/team`: each store's mirror is a folder of its own under it. */
  readonly teamDir: string;
  readonly reader?: Partial<ReaderLimits>;
  /** Access keys from the caller (the editor's SecretStorage); absent: the location's profile or the default chain. */
  readonly credentials?: TeamCredentials;
}

/** What one sync did. */
export interface TeamSyncReport {
  /** Runs listed under the prefix. */
  readonly listed: number;
  /** Runs fetched and indexed now. */
  readonly added: number;
  /** Runs whose log was refused (changed, cut, swapped, not a finished run): never indexed. */
  readonly refused: readonly string[];
}

/** A team run as listed: the run and the store it is in. */
export interface TeamRunSummary extends RunSummary {
  readonly store: string;
}

/** One team store, read-only. */
export class TeamStore {
  private readonly tenants = new Map<string, RunStore>();
  private readonly mirrored = new Set<string>();
  private readonly refusedRuns = new Set<string>();
  private lastSync = 0;
  private syncing: Promise<TeamSyncReport> | undefined;

  private constructor(
    readonly name: string,
    private readonly bucket: TeamBucket,
    private readonly logsDir: string,
    private readonly blobs: TeamBlobStore,
    private readonly reader: Partial<ReaderLimits> | undefined,
  ) {}

  /** Opens the mirror (creating it) and the catalogs of the tenants already mirrored; nothing is listed yet. */
  static async open(options: TeamStoreOptions): Promise<TeamStore> {
    // Loaded here only: the S3 SDK's start-up is paid by whoever opens a team store.
    const { TeamBucket } = await import('./teamBucket.js');
    const bucket = new TeamBucket(options.location, options.credentials);
    const logsDir = path.join(options.teamDir, teamStoreId(options.location), 'logs');
    await fsp.mkdir(logsDir, { recursive: true });
    const store = new TeamStore(options.name, bucket, logsDir, new TeamBlobStore(bucket, logsDir), options.reader);
    for (const tenant of await fsp.readdir(logsDir)) {
      if (!isSafeSegment(tenant)) continue;
      await store.tenant(tenant);
      for (const f of await fsp.readdir(path.join(logsDir, tenant)))
        if (f.endsWith('.jsonl')) store.mirrored.add(f.slice(0, -'.jsonl'.length));
    }
    return store;
  }

  /** Runs refused by the syncs of this process (marked in lists). */
  get refused(): ReadonlySet<string> {
    return this.refusedRuns;
  }

  /** Lists the bucket's runs and mirrors the new ones; one sync at a time. */
  sync(): Promise<TeamSyncReport> {
    this.syncing ??= this.syncOnce().finally(() => {
      this.lastSync = Date.now();
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /** Every mirrored run, newest first, with this store's name. */
  async listRuns(): Promise<TeamRunSummary[]> {
    const all: TeamRunSummary[] = [];
    for (const runs of this.tenants.values())
      for (const r of await runs.listRuns()) all.push({ ...r, store: this.name });
    return all.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
  }

  /** The newest `limit` mirrored runs (the catalogs' newest-first index, no log read): a list's first page. */
  async firstPage(limit: number): Promise<TeamRunSummary[]> {
    const all: TeamRunSummary[] = [];
    for (const runs of this.tenants.values())
      for (const r of await runs.queryRuns({ limit })) all.push({ ...r, store: this.name });
    return all.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0)).slice(0, limit);
  }

  /** The run stores of the publishing tenants (for a search over every kept output). */
  runStores(): RunStore[] {
    return [...this.tenants.values()];
  }

  /** The run stores once a listing in flight (the first, at start-up) has ended, whatever its outcome. */
  async searchable(): Promise<RunStore[]> {
    await this.syncing?.catch(() => undefined);
    return this.runStores();
  }

  /**
   * `read_tool_output` over this store's runs. A handle no mirrored record mints is looked for once more after a new
   * listing (a teammate may have published it since), then refused with the usual sentence. A blob the records name
   * but the bucket lacks is an error naming the run.
   */
  async readToolOutput(
    args: ReadToolOutputArgs,
    scope?: ReadScope,
    options?: ReadOptions,
  ): Promise<ReadToolOutputResult> {
    return this.withRun(args.handle, (runs) => runs.readToolOutput(args, scope, options));
  }

  /** Verified byte access behind a team handle (Verify, export). */
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

  /** Closes the catalogs and the bucket's connections. */
  close(): void {
    for (const runs of this.tenants.values()) runs.close();
    this.bucket.dispose();
  }

  private async withRun<T>(handle: unknown, fn: (runs: RunStore) => Promise<T>): Promise<T> {
    if (typeof handle !== 'string') throw accessDenied();
    let owner = await this.ownerOf(handle);
    if (!owner && Date.now() - this.lastSync >= RESYNC_ON_MISS_MS) {
      // A store that cannot be listed now answers as one that never minted the handle: a model learns nothing of it.
      const synced = await this.sync().then(
        () => true,
        () => false,
      );
      if (synced) owner = await this.ownerOf(handle);
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

  /** The tenant store whose records mint `handle`, and the run; undefined when none does. */
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
    const fresh: string[] = [];
    let listed = 0;
    for await (const { runId } of this.bucket.runs()) {
      listed++;
      if (!this.mirrored.has(runId)) fresh.push(runId);
    }
    const touched = new Set<RunStore>();
    const refused: string[] = [];
    let added = 0;
    for (let i = 0; i < fresh.length; i += FETCHES_IN_FLIGHT) {
      const batch = fresh.slice(i, i + FETCHES_IN_FLIGHT);
      const done = await Promise.all(batch.map((runId) => this.fetchRun(runId)));
      for (const [j, tenant] of done.entries()) {
        const runId = batch[j]!;
        if (tenant === undefined) {
          refused.push(runId);
          this.refusedRuns.add(runId);
          continue;
        }
        this.refusedRuns.delete(runId);
        this.mirrored.add(runId);
        touched.add(await this.tenant(tenant));
        added++;
      }
    }
    // The catalogs index the new logs in start order, in batches (docs/architecture.md §6).
    for (const runs of touched) await runs.reconcileWithLogs();
    return { listed, added, refused };
  }

  /** Fetches and checks one run's log and mirrors it; its tenant, or undefined when the log is refused. */
  private async fetchRun(runId: string): Promise<string | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await this.bucket.getRun(runId);
    } catch (e) {
      if (e instanceof EvidenceError && (e.code === 'digestMismatch' || e.code === 'missing')) return undefined;
      throw e;
    }
    const log = parseRunLog(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), runId);
    const first = log.records[0];
    const finished = log.records.some((r) => r.type === 'run_finished');
    if (
      first?.type !== 'run_started' ||
      first.runId !== runId ||
      !isSafeSegment(first.tenant) ||
      !finished ||
      log.tornTail ||
      log.problems.length > 0
    )
      return undefined;
    const dir = path.join(this.logsDir, first.tenant);
    await fsp.mkdir(dir, { recursive: true });
    // Whole or not at all: a sync killed mid-write leaves a temporary name the next sync ignores.
    const tmp = path.join(dir, `.${runId}.${process.pid}.tmp`);
    await fsp.writeFile(tmp, bytes);
    await fsp.rename(tmp, path.join(dir, `${runId}.jsonl`));
    return first.tenant;
  }
}
