/**
 * Storage at scale, measured from outside: what every process pays before its
 * first answer on a heavy user's storage, against the same steps on an empty store in the
 * same run.
 *
 * The template is recorded for real through the built MCP server (`dist/cli.js mcp`): a
 * small `run_command`, one with 2.3 MB of stdout, a small `evidence_readFile` and a large
 * one (an artifact). Sizes (`BENCH_STORAGE_SIZES`, default 1000,10000,100000) are seeded
 * from clones of those records (new ids and times, every other byte the same): one run in
 * three has two calls, one call in ten is the large command (its blob a hard link of the
 * template's, so the disk stays small), one in four an `evidence_readFile`. Logs are
 * written directly and the catalog database filled through its own row code
 * (`Catalog.indexSnapshots`, one transaction per 2,000 runs): what a recorder leaves.
 *
 * Steps, each in new processes (medians of `BENCH_STORAGE_REPEATS`, default 5):
 *   - MCP server: spawn `dist/cli.js mcp` → `initialize` answered;
 *   - `dist/cli.js capture -- echo hi`: wall time and peak RSS (/usr/bin/time);
 *   - in the core (a fresh process): the run store alone and the stores as `capture` opens
 *     them, with their RSS; handle hit and miss, the old form's and a minted one's (medians of 41 and 21); the inspector's first
 *     page (`callReports` of 100 with facets) and again.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as path from 'node:path';
import { openSession } from '../src/cli/session.js';
import { MANIFEST_SUFFIX } from '../src/core/blobs/verifiedBlobs.js';
import { Catalog } from '../src/core/runs/catalog/catalog.js';
import { mintAttachmentHandle, mintResultHandle } from '../src/core/runs/log/handles.js';
import { snapshotOf, type RunSnapshot } from '../src/core/runs/catalog/rows.js';
import { RunStore } from '../src/core/runs/store/runStore.js';
import { parseRunLog } from '../src/core/runs/log/runLog.js';
import type { CallFinishedRecord, RunRecord } from '../src/core/runs/types.js';
import { openStorage } from '../src/node/openStorage.js';
import { median, report, scratchDir } from './util.js';

const REPO = path.resolve(__dirname, '..');
const CLI = path.join(REPO, 'dist', 'cli.js');

const LARGE_BYTES = 2_300_000;
const REPEATS = Number(process.env.BENCH_STORAGE_REPEATS ?? 5);

/** Speaks JSON-RPC lines to a spawned MCP server. */
function mcp(
  storage: string,
  ws: string,
  cli = CLI,
): {
  send: (m: unknown) => void;
  reply: (id: number) => Promise<Record<string, unknown>>;
  kill: () => void;
  started: number;
} {
  const started = performance.now();
  const proc = spawn(process.execPath, [cli, 'mcp', '--storage', storage, '--workspace', ws], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  proc.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const m = JSON.parse(out.slice(0, nl)) as Record<string, unknown>;
      out = out.slice(nl + 1);
      if (typeof m.id === 'number') waiting.get(m.id)?.(m);
    }
  });
  return {
    started,
    send: (m) => proc.stdin.write(`${JSON.stringify(m)}\n`),
    reply: (id) => new Promise((resolve) => waiting.set(id, resolve)),
    kill: () => {
      proc.kill('SIGKILL');
    },
  };
}

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'storage-bench', version: '1' } },
};

/** Records the template calls through a real MCP server; returns its storage and workspace. */
async function template(dir: string): Promise<{ storage: string; ws: string }> {
  const storage = path.join(dir, 'storage');
  const ws = path.join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(path.join(ws, 'small.txt'), 'export const answer = 42;\n');
  writeFileSync(
    path.join(ws, 'large.txt'),
    Array.from({ length: 20_000 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog\n`).join(''),
  );
  const s = mcp(storage, ws);
  s.send(INIT);
  await s.reply(0);
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const calls: [string, Record<string, unknown>][] = [
    ['evidence_runCommand', { command: 'echo "compiled 12 files in 840 ms"; echo "warning: unused import" >&2' }],
    [
      'evidence_runCommand',
      { command: `yes 'test 0042 passed: parser handles nested quotes and escapes in 3 ms' | head -c ${LARGE_BYTES}` },
    ],
    ['evidence_readFile', { path: 'small.txt' }],
    ['evidence_readFile', { path: 'large.txt' }],
  ];
  for (const [i, [name, args]] of calls.entries()) {
    s.send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: args } });
    const r = await s.reply(i + 1);
    if (!r.result) throw new Error(`template call ${name} failed: ${JSON.stringify(r)}`);
  }
  s.kill();
  return { storage, ws };
}

/** The template's four call records in the order made (small/large command, small/large read; a run each) and a run start. */
function templateRecords(logs: string): { started: RunRecord; calls: CallFinishedRecord[] } {
  const records = readdirSync(logs)
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) => parseRunLog(readFileSync(path.join(logs, n)), n.slice(0, -6)).records);
  const calls = records
    .filter((r): r is CallFinishedRecord => r.type === 'call_finished')
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  if (calls.length !== 4) throw new Error(`the template has ${calls.length} calls, not 4`);
  return { started: records.find((r) => r.type === 'run_started')!, calls };
}

/** Seeds `n` runs into a copy of the template storage; returns sample handles and the seconds it took. */
async function seed(
  tpl: { storage: string },
  storage: string,
  n: number,
): Promise<{ handles: string[]; calls: number; seconds: number }> {
  const t0 = performance.now();
  cpSync(tpl.storage, storage, { recursive: true });
  const layout = await openStorage(storage);
  const logs = path.join(layout.logsDir, layout.tenant);
  const t = templateRecords(logs);
  const largeCall = t.calls[1]!;
  const tplBlobs = path.join(layout.blobsDir, layout.tenant, largeCall.runId);
  const catalog = await Catalog.open(logs, layout.tenant, { maintenance: false });
  const now = Date.now();
  const handles: string[] = [];
  let calls = 0;
  let batch: RunSnapshot[] = [];
  for (let i = 0; i < n; i++) {
    const startedMs = now - 300 * 86_400_000 + Math.floor((i / n) * 299 * 86_400_000);
    const at = new Date(startedMs).toISOString();
    const token = (0x1000000000 + i).toString(16).slice(-10);
    const runId = `run-${at.replace(/[-:]/g, '').replace(/\.\d+Z$/, '')}-${token}`;
    const records: RunRecord[] = [
      { ...(t.started as Extract<RunRecord, { type: 'run_started' }>), runId, startedAt: at, label: `task ${i}` },
    ];
    const nCalls = i % 3 === 0 ? 2 : 1;
    for (let c = 0; c < nCalls; c++) {
      const k = calls++;
      // One call in ten the large command, one in four a read (one read in eight large), else the small command.
      const src = k % 10 === 9 ? largeCall : k % 4 === 0 ? t.calls[k % 32 === 0 ? 3 : 2]! : t.calls[0]!;
      const callId = `${token}-${c + 1}`;
      const text = JSON.stringify(src).split(src.runId).join(runId).split(`${src.callId}`).join(callId);
      const clone = JSON.parse(text) as CallFinishedRecord;
      // Each clone mints its own handles, as a recorded call does (an opaque handle names no call: the call id's
      // replacement above does not reach it, and a handle two records claim resolves to neither).
      const fin: CallFinishedRecord = {
        ...clone,
        startedAt: at,
        finishedAt: at,
        ...(clone.resultHandle !== undefined ? { resultHandle: mintResultHandle() } : {}),
        attachments: clone.attachments.map((a) => ({ ...a, handle: mintAttachmentHandle() })),
      };
      records.push(
        { type: 'call_started', runId, callId, tool: fin.tool, arguments: fin.arguments, startedAt: at },
        fin,
      );
      if (src === largeCall) {
        const blobDir = path.join(layout.blobsDir, layout.tenant, runId);
        mkdirSync(blobDir, { recursive: true });
        for (const suffix of ['', MANIFEST_SUFFIX])
          linkSync(
            path.join(tplBlobs, `${largeCall.callId}.stdout${suffix}`),
            path.join(blobDir, `${callId}.stdout${suffix}`),
          );
      }
      if (handles.length < 200 && i % 3 === 0) {
        const h = fin.attachments.find((a) => a.slot === 'stdout')?.handle ?? fin.resultHandle;
        if (h) handles.push(h);
      }
    }
    records.push({ type: 'run_finished', runId, finishedAt: at, status: 'completed' });
    const bytes = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const fd = openSync(path.join(logs, `${runId}.jsonl`), 'wx');
    writeSync(fd, bytes);
    const st = fstatSync(fd);
    closeSync(fd);
    batch.push(snapshotOf(runId, layout.tenant, parseRunLog(bytes, runId), { size: st.size, mtimeMs: st.mtimeMs }));
    if (batch.length >= 2000) {
      catalog.indexSnapshots(batch);
      batch = [];
    }
  }
  catalog.indexSnapshots(batch);
  catalog.close();
  return { handles, calls, seconds: (performance.now() - t0) / 1000 };
}

/** Spawn → `initialize` answered, in ms. */
async function initializeMs(storage: string, ws: string, cli = CLI): Promise<number> {
  const s = mcp(storage, ws, cli);
  s.send(INIT);
  await s.reply(0);
  const ms = performance.now() - s.started;
  s.kill();
  return ms;
}

/** `capture -- echo hi`: wall ms and peak RSS MB. */
function captureRun(storage: string, ws: string, cli = CLI): { ms: number; rssMB: number } {
  const t = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, cli, 'capture', '--storage', storage, '--workspace', ws, '--', 'echo', 'hi'],
    { cwd: ws, encoding: 'utf8' },
  );
  const ms = performance.now() - t;
  if (r.status !== 0 || !r.stdout.includes('hi')) throw new Error(`capture failed: ${r.stderr}`);
  return { ms, rssMB: Number(r.stderr.trim().split('\n').pop()) / 1024 };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** In a fresh process: the core's open, handle hit and miss, the inspector's first page. */
async function probe(storage: string, handles: string[]): Promise<void> {
  const out: Record<string, number> = {};
  const layout = await openStorage(storage);
  const rss0 = process.memoryUsage.rss();
  let alone!: RunStore;
  out.runStoreOpenMs = await timed(async () => {
    alone = await RunStore.open({ logsDir: layout.logsDir, tenant: layout.tenant, maintenance: false });
  });
  await alone.queryCalls({ offset: 0, limit: 1 });
  out.rssRunStoreMB = (process.memoryUsage.rss() - rss0) / 1048576;
  alone.close();
  let session!: Awaited<ReturnType<typeof openSession>>;
  out.sessionOpenMs = await timed(async () => {
    session = await openSession(storage);
  });
  out.rssSessionMB = (process.memoryUsage.rss() - rss0) / 1048576;
  const store = session.runs;
  out.firstHitMs = await timed(() => store.readToolOutput({ handle: handles[0]!, limit: 5 }));
  const hits: number[] = [];
  for (const h of handles.slice(1, 42)) hits.push(await timed(() => store.readToolOutput({ handle: h, limit: 5 })));
  out.hitMs = median(hits);
  const misses: number[] = [];
  const miss = (handle: string): Promise<number> =>
    timed(() =>
      store.readToolOutput({ handle }).then(
        () => {
          throw new Error('a miss hit');
        },
        () => undefined,
      ),
    );
  // The old form (`res_<token>-<n>`: its token looked up among the runs) and the minted one (looked up again after
  // the unfinished runs are checked against their logs).
  for (let i = 0; i < 21; i++) misses.push(await miss(`res_ffffffffff-${i}`));
  out.missMs = median(misses);
  const mintedMisses: number[] = [];
  for (let i = 0; i < 21; i++) mintedMisses.push(await miss(mintResultHandle()));
  out.mintedMissMs = median(mintedMisses);
  out.pageFirstMs = await timed(() => store.callReports({ offset: 0, limit: 100, withFacets: true }));
  out.pageAgainMs = await timed(() => store.callReports({ offset: 0, limit: 100, withFacets: true }));
  out.pageDeepMs = await timed(() => store.callReports({ offset: 50_000, limit: 100 }));
  out.pageFilteredMs = await timed(() =>
    store.callReports({ offset: 0, limit: 100, outcome: 'failed', order: 'largest' }),
  );
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

interface Measured {
  init: number;
  capture: number;
  rss: number;
  core: Record<string, number>;
}

async function measure(storage: string, ws: string, handles: string[]): Promise<Measured> {
  const init: number[] = [],
    cap: number[] = [],
    rss: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    init.push(await initializeMs(storage, ws));
    const c = captureRun(storage, ws);
    cap.push(c.ms);
    rss.push(c.rssMB);
  }
  const cores: Record<string, number>[] = [];
  for (let i = 0; i < 3; i++) {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', __filename, '--probe', storage, JSON.stringify(handles)],
      { encoding: 'utf8', cwd: REPO },
    );
    if (child.status !== 0) throw new Error(`probe failed: ${child.stderr}`);
    cores.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as Record<string, number>);
  }
  const core = Object.fromEntries(Object.keys(cores[0]!).map((k) => [k, median(cores.map((c) => c[k]!))]));
  return { init: median(init), capture: median(cap), rss: median(rss), core };
}

async function main(): Promise<void> {
  if (process.argv[2] === '--probe') {
    await probe(process.argv[3]!, JSON.parse(process.argv[4]!) as string[]);
    return;
  }
  console.log('building dist/ (esbuild)');
  execFileSync(process.execPath, ['esbuild.js'], { cwd: REPO, stdio: 'ignore' });
  const sizes = (process.env.BENCH_STORAGE_SIZES ?? '1000,10000,100000').split(',').map(Number);
  const { dir, cleanup } = scratchDir('storage');
  try {
    const recorded = await template(path.join(dir, 'template'));
    // Seeds copy the template as recorded (the empty store's measurements record captures into it).
    const tpl = { storage: path.join(dir, 'pristine'), ws: recorded.ws };
    cpSync(recorded.storage, tpl.storage, { recursive: true });
    const emptyLayout = await openStorage(recorded.storage);
    const emptyHandles = templateRecords(path.join(emptyLayout.logsDir, emptyLayout.tenant)).calls.flatMap((c) =>
      c.attachments.filter((a) => a.handle).map((a) => a.handle!),
    );
    const base = await measure(
      recorded.storage,
      tpl.ws,
      [...emptyHandles, ...emptyHandles, ...emptyHandles].slice(0, 42),
    );
    const f = (x: number | undefined, d = 0): string => (x ?? NaN).toFixed(d);
    console.log(
      `medians of ${REPEATS} processes (core: of 3); the empty store holds the template's four runs; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    const show = (label: string, m: Measured): void => {
      console.log(`\n--- ${label}`);
      report(
        'MCP server: spawn → initialize answered (ms)',
        `${f(m.init)} (empty ${f(base.init)}, +${f(m.init - base.init)})`,
        '+100',
      );
      report(
        'capture -- echo hi: wall (ms)',
        `${f(m.capture)} (empty ${f(base.capture)}, +${f(m.capture - base.capture)})`,
        '+50',
      );
      report(
        'capture -- echo hi: peak RSS (MB)',
        `${f(m.rss, 1)} (empty ${f(base.rss, 1)}, +${f(m.rss - base.rss, 1)})`,
        '+20',
      );
      report(
        'core: RunStore.open alone (ms)',
        `${f(m.core.runStoreOpenMs, 2)} (empty ${f(base.core.runStoreOpenMs, 2)})`,
      );
      report(
        'core: stores as capture opens them (ms)',
        `${f(m.core.sessionOpenMs, 1)} (empty ${f(base.core.sessionOpenMs, 1)})`,
      );
      report(
        'core: RSS growth, RunStore.open + a page / + stores as capture opens them (MB)',
        `${f(m.core.rssRunStoreMB, 1)} / ${f(m.core.rssSessionMB, 1)} (empty ${f(base.core.rssRunStoreMB, 1)} / ${f(base.core.rssSessionMB, 1)})`,
      );
      report('core: first handle hit after open (ms)', f(m.core.firstHitMs, 2));
      report('core: handle hit, median of 41 (ms)', f(m.core.hitMs, 2), '< 5');
      report('core: handle miss, median of 21 (ms)', f(m.core.missMs, 2), '< 5');
      report('core: handle miss, minted form, median of 21 (ms)', f(m.core.mintedMissMs, 2), '< 5');
      report(
        'inspector first page: callReports 100 + facets (ms)',
        `${f(m.core.pageFirstMs, 1)} (again ${f(m.core.pageAgainMs, 1)})`,
        '< 100',
      );
      report(
        '  page at offset 50,000 / failed largest first (ms)',
        `${f(m.core.pageDeepMs, 1)} / ${f(m.core.pageFilteredMs, 1)}`,
      );
    };
    show('empty store', base);
    for (const n of sizes) {
      const storage = path.join(dir, `s${n}`);
      const s = await seed(tpl, storage, n);
      const size = Number(execFileSync('du', ['-sm', storage]).toString().split('\t')[0]);
      console.log(
        `\nseeded ${n.toLocaleString('en')} runs, ${s.calls.toLocaleString('en')} calls in ${s.seconds.toFixed(1)} s (${size} MB on disk)`,
      );
      show(`${n.toLocaleString('en')} runs`, await measure(storage, tpl.ws, s.handles));
      if (process.env.BENCH_STORAGE_KEEP) console.log(`kept: ${storage} (workspace ${tpl.ws})`);
      else execFileSync('rm', ['-rf', storage]);
    }
  } finally {
    if (!process.env.BENCH_STORAGE_KEEP) cleanup();
  }
}

if (require.main === module)
  void main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
