/**
 * Scale: a heavy user's year of evidence in one workspace's storage.
 *
 * Seeds 1,000 / 10,000 / 100,000 runs (`BENCH_SCALE_SIZES=1000,10000` to choose) with a
 * realistic mix of every kind of call the product records: one run in three has two calls
 * (1,334 calls per 1,000 runs); one call in ten a `run_command` that printed 2.3 MB to
 * stdout, kept as a blob plus its manifest (identical large outputs are hard links of one
 * real recording, so the disk stays small); one in four an `evidence_readFile` (one read in
 * eight of a 1 MB file, kept as an artifact; the rest a small file, recorded whole); the
 * others a small `run_command` with stdout, stderr and exit value, as the storage bench
 * mixes them. The records are clones of a real recording
 * (same bytes, new ids and times), the catalog rows are what the recorder writes (through
 * the catalog's own row code, `Catalog.indexSnapshots`).
 *
 * Then, in a NEW Node process per size (what an MCP server or the CLI pays; the
 * extension host runs the same core path: RunStore.open, the artifact store, the first
 * read): open to first tool answer, the largest event-loop stall while opening and
 * answering (a ping every 100 ms), handle hit and miss (medians), first and repeated
 * `queryCalls` page (what the inspector's host asks for), `reconcileWithLogs` (Clear All's first
 * step) and `listRuns`, retention over
 * every run in slices (1% of runs past the age limit), heap and RSS growth, files in
 * storage. Baseline in the same run (1k and 10k only): what opening cost before the
 * catalog — reading and parsing every run log — and a catalog rebuild from the logs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as path from 'node:path';
import { FsBlobStore } from '../src/core/blobs/fsBlobStore.js';
import { MANIFEST_SUFFIX } from '../src/core/blobs/verifiedBlobs.js';
import { EvidenceFileWorkspace, LocalWorkspace, readFileRecorded } from '../src/core/index.js';
import { ArtifactStore, ARTIFACTS_SEGMENT } from '../src/core/artifacts/artifacts.js';
import { Catalog, CATALOG_FILE } from '../src/core/runs/catalog/catalog.js';
import { mintAttachmentHandle, mintResultHandle } from '../src/core/runs/log/handles.js';
import { snapshotOf, type RunSnapshot } from '../src/core/runs/catalog/rows.js';
import { parseRunLog, readRunLog } from '../src/core/runs/log/runLog.js';
import { RunStore } from '../src/core/runs/store/runStore.js';
import type { CallFilter, CallFinishedRecord, RunRecord } from '../src/core/runs/types.js';
import { median, report, scratchDir } from './util.js';

const TENANT = 'bench-tenant';
const DAY = 86_400_000;
const LARGE_BYTES = 2_300_000;

interface Layout {
  readonly logsDir: string;
  readonly blobsDir: string;
  readonly artifactsDir: string;
}

function layoutOf(dir: string): Layout {
  return {
    logsDir: path.join(dir, 'logs'),
    blobsDir: path.join(dir, 'blobs'),
    artifactsDir: path.join(dir, 'artifacts'),
  };
}

/** The records every seeded run clones: one real recording of each kind of call. */
interface Template {
  readonly small: CallFinishedRecord;
  readonly large: CallFinishedRecord;
  readonly smallRead: CallFinishedRecord;
  readonly largeRead: CallFinishedRecord;
  readonly runId: string;
  readonly token: string;
  readonly layout: Layout;
}

/** Records a small and a large command and a small and a large file read, as the tools record them (the product's default limits). */
async function template(dir: string): Promise<Template> {
  const layout = layoutOf(dir);
  const blobs = await FsBlobStore.open(layout.blobsDir);
  const artifacts = new ArtifactStore({ blobs, tenant: TENANT, legacyRoot: layout.artifactsDir });
  const store = await RunStore.open({ logsDir: layout.logsDir, tenant: TENANT, blobs, artifacts });
  const ws = path.join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(path.join(ws, 'small.ts'), 'export const answer = 42;\n');
  writeFileSync(
    path.join(ws, 'large.log'),
    Array.from({ length: 20_000 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog\n`).join(''),
  );
  const files = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws }), artifacts, {
    maxInlineBytes: 4096,
    previewBytes: 896,
    maxRangeBytes: 4096,
  });
  const run = await store.startRun({ label: 'template' });
  const small = await run.runCommand('echo "compiled 12 files in 840 ms"; echo "warning: unused import" >&2', {
    cwd: dir,
  });
  const large = await run.runCommand(
    `yes 'test 0042 passed: parser handles nested quotes and escapes in 3 ms' | head -c ${LARGE_BYTES}`,
    { cwd: dir },
  );
  const readIds = [
    (await readFileRecorded(files, { artifacts }, run, 'small.ts')).callId,
    (await readFileRecorded(files, { artifacts }, run, 'large.log')).callId,
  ];
  await run.finish();
  const records = (await readRunLog(store.logPath(run.runId), run.runId)).records;
  const finished = (callId: string | undefined): CallFinishedRecord => {
    const r = records.find((x): x is CallFinishedRecord => x.type === 'call_finished' && x.callId === callId);
    if (!r) throw new Error(`the template's read ${callId} was not recorded`);
    return r;
  };
  const token = small.callId.split('-')[0]!;
  return {
    small: small.record,
    large: large.record,
    smallRead: finished(readIds[0]),
    largeRead: finished(readIds[1]),
    runId: run.runId,
    token,
    layout,
  };
}

/** A template record re-addressed to another run, call and time (JSON text substitution keeps every other byte). */
function retarget<T extends RunRecord>(
  r: T,
  fromRun: string,
  fromToken: string,
  runId: string,
  token: string,
  at: string,
): T {
  const text = JSON.stringify(r).split(fromRun).join(runId).split(`${fromToken}-`).join(`${token}-`);
  const v = JSON.parse(text) as Record<string, unknown>;
  for (const k of ['startedAt', 'finishedAt', 'at']) if (k in v) v[k] = at;
  return v as unknown as T;
}

/**
 * Seeds `n` runs of `tenant` under `dir` (the storage layout's root: `logs/`, `blobs/`,
 * `artifacts/`); returns a sample of handles (small and large) and the count of files
 * created. Exported for bench/inspector.bench.ts, which seeds a real workbench's storage.
 */
export async function seed(
  dir: string,
  n: number,
  tenant = TENANT,
): Promise<{ handles: string[]; files: number; calls: number; seconds: number }> {
  const t0 = performance.now();
  const tpl = await template(path.join(dir, 'template'));
  const layout = layoutOf(dir);
  const logs = path.join(layout.logsDir, tenant);
  mkdirSync(logs, { recursive: true });
  mkdirSync(layout.artifactsDir, { recursive: true });
  const catalog = await Catalog.open(logs, tenant, { maintenance: false });
  const tplBlobs = path.join(tpl.layout.blobsDir, TENANT, tpl.runId);
  const largeSlot = `${tpl.large.callId}.stdout`;
  const now = Date.now();
  // 1% of the runs are past the 30-day age limit; the rest span the last 29 days.
  const old = Math.max(1, Math.floor(n / 100));
  const handles: string[] = [];
  let calls = 0;
  let pending: RunSnapshot[] = [];
  const profile = (
    JSON.parse(readFileSync(path.join(tpl.layout.logsDir, TENANT, `${tpl.runId}.jsonl`), 'utf8').split('\n')[0]!) as {
      profileHash: string;
    }
  ).profileHash;
  for (let i = 0; i < n; i++) {
    const startedMs =
      i < old ? now - 40 * DAY + i * 1000 : now - 29 * DAY + Math.floor(((i - old) / (n - old)) * 29 * DAY);
    const at = new Date(startedMs).toISOString();
    const token = i.toString(16).padStart(10, '0');
    const runId = `run-${at.replace(/[-:]/g, '').replace(/\.\d+Z$/, '')}-${token}`;
    const records: RunRecord[] = [
      { type: 'run_started', runId, tenant, startedAt: at, profileHash: profile, label: `task ${i}` },
    ];
    const nCalls = i % 3 === 0 ? 2 : 1;
    for (let c = 0; c < nCalls; c++) {
      const k = calls++;
      // One call in ten the large command, one in four a read (one read in eight large), else the small command.
      const large = k % 10 === 9;
      const src = large ? tpl.large : k % 4 === 0 ? (k % 32 === 0 ? tpl.largeRead : tpl.smallRead) : tpl.small;
      const fin = retarget(src, tpl.runId, tpl.token, runId, token, at);
      const callId = `${token}-${c + 1}`;
      // Handles minted as the recorder mints them (opaque: they name no run).
      const fixed = {
        ...fin,
        callId,
        resultHandle: fin.resultHandle ? mintResultHandle() : undefined,
        attachments: fin.attachments.map((a) => ({ ...a, handle: mintAttachmentHandle() })),
      };
      if (!fixed.resultHandle) delete (fixed as { resultHandle?: string }).resultHandle;
      records.push(
        { type: 'call_started', runId, callId, tool: fin.tool, arguments: fin.arguments, startedAt: at },
        fixed as CallFinishedRecord,
      );
      if (large) {
        const blobDir = path.join(layout.blobsDir, tenant, runId);
        mkdirSync(blobDir, { recursive: true });
        for (const suffix of ['', MANIFEST_SUFFIX])
          linkSync(path.join(tplBlobs, `${largeSlot}${suffix}`), path.join(blobDir, `${callId}.stdout${suffix}`));
        if (handles.length < 400 && i % 7 === 0) handles.push(handleOf(fixed));
      } else if (handles.length < 400 && i % 5 === 0 && (fixed.resultHandle || fixed.attachments.length > 0))
        handles.push(handleOf(fixed));
    }
    records.push({ type: 'run_finished', runId, finishedAt: at, status: 'completed' });
    // The log, then the rows the recorder would have written for it.
    const bytes = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const file = path.join(logs, `${runId}.jsonl`);
    const fd = openSync(file, 'wx');
    writeSync(fd, bytes);
    const st = fstatSync(fd);
    closeSync(fd);
    pending.push(snapshotOf(runId, tenant, parseRunLog(bytes, runId), { size: st.size, mtimeMs: st.mtimeMs }));
    if (pending.length >= 2000) {
      catalog.indexSnapshots(pending);
      pending = [];
    }
  }
  catalog.indexSnapshots(pending);
  // The reads' artifacts (content-addressed: every clone names the template's), linked under the seeded tenant.
  const tplArtifacts = path.join(tpl.layout.blobsDir, TENANT, ARTIFACTS_SEGMENT);
  const artifactsDir = path.join(layout.blobsDir, tenant, ARTIFACTS_SEGMENT);
  mkdirSync(artifactsDir, { recursive: true });
  for (const name of readdirSync(tplArtifacts)) linkSync(path.join(tplArtifacts, name), path.join(artifactsDir, name));
  // Marked built, as a store that indexed every log leaves it.
  await catalog.reconcile();
  catalog.close();
  rmSync(path.join(dir, 'template'), { recursive: true, force: true });
  const files = Number(
    execFileSync('sh', ['-c', `find "${dir}" | wc -l`])
      .toString()
      .trim(),
  );
  return { handles, files, calls, seconds: (performance.now() - t0) / 1000 };
}

/** A seeded call's handle to read back: a command's stdout, else the result's (a large read). */
function handleOf(fin: { resultHandle?: string; attachments: readonly { slot: string; handle?: string }[] }): string {
  return (fin.attachments.find((a) => a.slot === 'stdout')?.handle ?? fin.resultHandle)!;
}

/** Largest delay of a 100 ms ping while `fn` runs. */
async function withStallMonitor<T>(fn: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    worst = Math.max(worst, t - last - 100);
    last = t;
  }, 100);
  try {
    const value = await fn();
    const t = performance.now();
    worst = Math.max(worst, t - last - 100);
    return { value, stallMs: Math.max(0, worst) };
  } finally {
    clearInterval(timer);
  }
}

async function ms(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** The measuring process: opens the seeded storage as a fresh front end would. */
async function probe(dir: string, handles: string[]): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage.rss();
  let rssPeak = rss0;
  const rssTimer = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 20);
  const layout = layoutOf(dir);
  const out: Record<string, number> = {};
  // The floor: the largest ping delay of this process doing nothing for two seconds (what the machine's load alone costs).
  out.idleStallMs = (await withStallMonitor(() => new Promise((resolve) => setTimeout(resolve, 2000)))).stallMs;
  let store!: RunStore;
  const first = await withStallMonitor(async () => {
    const t = performance.now();
    const blobs = await FsBlobStore.open(layout.blobsDir);
    // As openEvidenceStores: the artifact store is keys of the same blob store, nothing to learn at open.
    const artifacts = new ArtifactStore({ blobs, tenant: TENANT, legacyRoot: layout.artifactsDir });
    store = await RunStore.open({ logsDir: layout.logsDir, tenant: TENANT, blobs, artifacts });
    out.openMs = performance.now() - t;
    const r = await store.readToolOutput({ handle: handles[0]!, limit: 5 });
    if (!['compiled', 'passed', 'quick brown fox'].some((t) => r.content.includes(t)))
      throw new Error('first answer has the wrong bytes');
    out.firstAnswerMs = performance.now() - t;
    await store.catalogSettled();
    out.settledMs = performance.now() - t;
  });
  out.startStallMs = first.stallMs;
  const hits: number[] = [];
  for (const h of handles.slice(1, 42)) hits.push(await ms(() => store.readToolOutput({ handle: h, limit: 5 })));
  out.hitMs = median(hits);
  // A miss of the minted form (the unfinished runs checked against their logs, then looked up again) and of the
  // older form (`res_<token>-<n>`: its token looked up among the runs).
  const miss = (handle: string): Promise<number> =>
    ms(() =>
      store.readToolOutput({ handle }).then(
        () => {
          throw new Error('a miss hit');
        },
        () => undefined,
      ),
    );
  const misses: number[] = [];
  for (let i = 0; i < 21; i++) misses.push(await miss(mintAttachmentHandle()));
  out.missMs = median(misses);
  const olderMisses: number[] = [];
  for (let i = 0; i < 21; i++) olderMisses.push(await miss(`res_ffffffffff-${i}`));
  out.olderMissMs = median(olderMisses);
  out.pageFirstMs = await ms(() => store.queryCalls({ offset: 0, limit: 100 }));
  out.pageAgainMs = await ms(() => store.queryCalls({ offset: 0, limit: 100 }));
  out.pageFilteredMs = await ms(() => store.queryCalls({ offset: 0, limit: 100, outcome: 'failed', order: 'largest' }));
  out.runPickerMs = await ms(() => store.queryRuns({ text: 'task 4', limit: 50 }));
  // A reveal of the oldest call (docs/contracts.md §3.4, "Reveal"): its row under the list's query, one pass, no sort.
  const oldest = (await store.queryCalls({ offset: 0, limit: 1, order: 'oldest' })).rows[0]!;
  const indexMs = async (q: CallFilter): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < 11; i++) times.push(await ms(() => store.callIndex(q, oldest.runId, oldest.callId)));
    return median(times);
  };
  const total = (await store.queryCalls({ offset: 0, limit: 1 })).total;
  if ((await store.callIndex({}, oldest.runId, oldest.callId)) !== total - 1)
    throw new Error('the oldest call is not last in the newest-first list');
  out.callIndexMs = await indexMs({});
  out.callIndexLargestMs = await indexMs({ order: 'largest' });
  out.callIndexFilteredMs = await indexMs({ order: 'largest', outcome: 'ok', text: 'task' });
  // What Clear All pays before its first page (docs/contracts.md §2.7): the catalog against the logs folder.
  const reconcile = await withStallMonitor(() => ms(() => store.reconcileWithLogs()));
  out.reconcileMs = reconcile.value;
  out.reconcileStallMs = reconcile.stallMs;
  const list1 = await withStallMonitor(() => ms(() => store.listRuns()));
  out.listRunsFirstMs = list1.value;
  out.listRunsStallMs = list1.stallMs;
  out.listRunsAgainMs = await ms(() => store.listRuns());
  gc();
  out.heapGrowthMB = (process.memoryUsage().heapUsed - heap0) / 1048576;
  const retention = await withStallMonitor(async () => {
    const t = performance.now();
    let cursor: string | undefined;
    let deleted = 0;
    do {
      const r = await store.prune({
        maxAgeMs: 30 * DAY,
        maxBytes: Number.MAX_SAFE_INTEGER,
        sliceRuns: 200,
        ...(cursor !== undefined ? { cursor } : {}),
      });
      deleted += r.deletedRuns.length;
      cursor = r.more ? r.cursor : undefined;
      if (cursor) await new Promise((resolve) => setTimeout(resolve, 0));
    } while (cursor);
    return { deleted, ms: performance.now() - t };
  });
  out.retentionMs = retention.value.ms;
  out.retentionDeleted = retention.value.deleted;
  out.retentionStallMs = retention.stallMs;
  clearInterval(rssTimer);
  out.rssPeakGrowthMB = (rssPeak - rss0) / 1048576;
  out.catalogMB =
    ['', '-wal'].reduce(
      (n, x) =>
        n + (statSync(path.join(layout.logsDir, TENANT, `${CATALOG_FILE}${x}`), { throwIfNoEntry: false })?.size ?? 0),
      0,
    ) / 1048576;
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** Before the catalog: opening read and parsed every run log (RunStore.readRun for each). */
async function parseEveryLog(dir: string): Promise<number> {
  const logs = path.join(layoutOf(dir).logsDir, TENANT);
  const t = performance.now();
  for (const name of readdirSync(logs))
    if (name.endsWith('.jsonl')) await readRunLog(path.join(logs, name), name.slice(0, -6));
  return performance.now() - t;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--probe') {
    await probe(process.argv[3]!, JSON.parse(process.argv[4]!) as string[]);
    return;
  }
  const sizes = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
  console.log(
    'open = RunStore.open + artifact re-registration (core path of activation and of an MCP server start), in a new Node process',
  );
  for (const n of sizes) {
    const reuse = process.env.BENCH_SCALE_REUSE;
    const { dir, cleanup } = reuse ? { dir: reuse, cleanup: () => undefined } : scratchDir(`scale-${n}`);
    try {
      // BENCH_SCALE_REUSE=<dir>: probe a storage seeded before with BENCH_SCALE_KEEP (iterating on one size).
      const s = reuse
        ? (JSON.parse(readFileSync(path.join(dir, 'seed.json'), 'utf8')) as Awaited<ReturnType<typeof seed>>)
        : await seed(dir, n);
      if (process.env.BENCH_SCALE_KEEP && !reuse) writeFileSync(path.join(dir, 'seed.json'), JSON.stringify(s));
      if (process.env.BENCH_SCALE_SEED_ONLY) {
        console.log(`seeded ${n} runs in ${dir}`);
        continue;
      }
      console.log(
        `\n--- ${n.toLocaleString('en')} runs, ${s.calls.toLocaleString('en')} calls (seeded in ${s.seconds.toFixed(1)} s)`,
      );
      const probeIn = (): Record<string, number> => {
        const child = spawnSync(
          process.execPath,
          ['--expose-gc', '--import', 'tsx', __filename, '--probe', dir, JSON.stringify(s.handles)],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        if (child.status !== 0) throw new Error(`probe failed: ${child.stderr}`);
        return JSON.parse(child.stdout.trim().split('\n').pop()!) as Record<string, number>;
      };
      const f = (x: number | undefined, d = 1): string => (x ?? NaN).toFixed(d);
      const r = probeIn();
      report('open to first tool answer, usual case (ms)', f(r.firstAnswerMs), '< 1000');
      report('  of which open and artifact re-registration (ms)', f(r.openMs));
      report('  background check of the catalog done after (ms)', f(r.settledMs));
      report('largest event-loop stall, open to first answer (ms)', f(r.startStallMs), '< 100');
      report('  floor: largest stall of an idle loop, same process, 2 s (ms)', f(r.idleStallMs));
      report('handle hit, median of 41 (ms)', f(r.hitMs, 2), '< 10');
      report('handle miss, median of 21 (ms)', f(r.missMs, 2), '< 10');
      report(
        '  a miss of a handle of the older form (res_<token>-<n>), median of 21 (ms)',
        f(r.olderMissMs, 2),
        '< 10',
      );
      report('queryCalls first page of 100, first / again (ms)', `${f(r.pageFirstMs)} / ${f(r.pageAgainMs)}`, '< 300');
      report('queryCalls failed-only, largest first (ms)', f(r.pageFilteredMs));
      report('queryRuns picker search (ms)', f(r.runPickerMs));
      report('callIndex of the oldest call (a reveal), median of 11 (ms)', f(r.callIndexMs), '< 50');
      report(
        '  largest first / largest + ok + text "task" (ms)',
        `${f(r.callIndexLargestMs)} / ${f(r.callIndexFilteredMs)}`,
        '< 50',
      );
      report("reconcileWithLogs (Clear All's first step: the logs folder against the catalog) (ms)", f(r.reconcileMs));
      report('  largest stall during it (ms)', f(r.reconcileStallMs), '< 100');
      report(
        "listRuns (every run, each log stat'ed) first / again (ms)",
        `${f(r.listRunsFirstMs)} / ${f(r.listRunsAgainMs)}`,
      );
      report('  largest stall during listRuns (ms)', f(r.listRunsStallMs));
      report(`retention over every run in slices of 200 (ms), ${r.retentionDeleted} deleted`, f(r.retentionMs));
      report('  largest stall during retention (ms)', f(r.retentionStallMs), '< 100');
      report('heap growth after open and queries (MB)', f(r.heapGrowthMB), '< 100');
      report('peak RSS growth (MB)', f(r.rssPeakGrowthMB));
      report('catalog database and WAL (MB)', f(r.catalogMB));
      report(
        'files and folders in storage',
        `${s.files.toLocaleString('en')} (${(s.files / s.calls).toFixed(2)} per call)`,
      );
      if (n <= 10_000 && !process.env.BENCH_SCALE_KEEP) {
        report('baseline: read and parse every run log (old open) (ms)', f(await parseEveryLog(dir)));
        for (const x of ['', '-wal', '-shm'])
          rmSync(path.join(layoutOf(dir).logsDir, TENANT, `${CATALOG_FILE}${x}`), { force: true });
        const t = performance.now();
        const rebuilt = await RunStore.open({ logsDir: layoutOf(dir).logsDir, tenant: TENANT });
        const opened = performance.now() - t;
        // The rebuild's timer and quick_check worker do not keep a process alive on their own (a command line exits
        // without waiting for them): this one waits.
        const alive = setInterval(() => undefined, 1000);
        await rebuilt.catalogSettled();
        clearInterval(alive);
        report(
          'catalog database lost: open / rebuilt from the logs in the background (ms)',
          `${f(opened)} / ${f(performance.now() - t)}`,
        );
      }
    } finally {
      if (!process.env.BENCH_SCALE_KEEP) cleanup();
    }
  }
}

// Run as a benchmark, not when another bench imports `seed`.
if (require.main === module)
  void main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
