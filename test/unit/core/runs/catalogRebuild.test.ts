import * as assert from 'node:assert/strict';
import {
  appendFileSync,
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseRunLog } from '../../../../src/core/runs/log/runLog.js';
import type { RunStore } from '../../../../src/core/runs/store/runStore.js';
import type { CallPage, CallSummary, RunSummary } from '../../../../src/core/runs/types.js';
import { catalogBytes, catalogPath, rowCounts, withCatalog } from './catalogFiles.js';
import { openStore, scratch } from './helpers.js';

const SMALL = { limits: { largeResultBytes: 4, previewBytes: 4 } };

type Op =
  | { k: 'run'; calls: number; finish: boolean; pinned: boolean; tool: number; big: boolean }
  | { k: 'pin'; i: number; p: boolean }
  | { k: 'del'; i: number }
  | { k: 'lost' }
  | { k: 'ext'; i: number }
  | { k: 'other'; calls: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      k: fc.constant('run' as const),
      calls: fc.nat(3),
      finish: fc.boolean(),
      pinned: fc.boolean(),
      tool: fc.nat(2),
      big: fc.boolean(),
    }),
  },
  fc.record({ k: fc.constant('pin' as const), i: fc.nat(), p: fc.boolean() }),
  fc.record({ k: fc.constant('del' as const), i: fc.nat() }),
  fc.record({ k: fc.constant('lost' as const) }),
  fc.record({ k: fc.constant('ext' as const), i: fc.nat() }),
  fc.record({ k: fc.constant('other' as const), calls: fc.nat(2) }),
);

/**
 * What the logs say, computed here without the catalog's code: each run's label, pin,
 * status, calls and size, and each finished call's tool and status.
 */
function fromTheLogs(folder: string): { runs: unknown[]; calls: unknown[] } {
  const runs: unknown[] = [];
  const calls: unknown[] = [];
  for (const name of readdirSync(folder)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()) {
    const runId = name.slice(0, -6);
    const bytes = readFileSync(path.join(folder, name));
    const { records } = parseRunLog(bytes, runId);
    const started = records[0];
    // A log that is not this tenant's run (here: a line appended to a deleted run's path) lists nothing.
    if (started?.type !== 'run_started' || started.tenant !== 'tenant-a') continue;
    let pinned = started.pinned ?? false;
    let status = 'running';
    const finished = new Map<string, { tool: string; status: string }>();
    for (const r of records) {
      if (r.type === 'run_pinned') pinned = r.pinned;
      if (r.type === 'run_finished') status = r.status;
      if (r.type === 'call_finished') finished.set(r.callId, { tool: r.tool, status: r.status });
    }
    runs.push({ runId, label: started.label, pinned, status, callCount: finished.size, totalBytes: bytes.length });
    for (const [callId, c] of finished) calls.push({ runId, callId, ...c });
  }
  return { runs, calls };
}

/** The same facts as the store lists them. */
function asListed(a: { oldest: { rows: readonly CallSummary[] }; runs: readonly RunSummary[] }): {
  runs: unknown[];
  calls: unknown[];
} {
  const byId = <T extends { runId: string; callId?: string }>(x: T[]): T[] =>
    x.sort((p, q) => (p.runId + (p.callId ?? '') < q.runId + (q.callId ?? '') ? -1 : 1));
  return {
    runs: byId(
      a.runs.map((r) => ({
        runId: r.runId,
        label: r.label,
        pinned: r.pinned,
        status: r.status,
        callCount: r.callCount,
        totalBytes: r.totalBytes,
      })),
    ),
    calls: byId(
      a.oldest.rows
        .filter((c) => c.status !== 'running')
        .map((c) => ({ runId: c.runId, callId: c.callId, tool: c.tool, status: c.status })),
    ),
  };
}

/** Everything a front end asks the catalog, as plain data. */
async function answers(
  dir: string,
  store: RunStore,
  handles: readonly string[],
): Promise<{ oldest: CallPage; runs: RunSummary[] } & Record<string, unknown>> {
  const read = async (h: string): Promise<string> =>
    store.readToolOutput({ handle: h }).then(
      (r) => r.content,
      (e: { code?: string }) => `refused: ${e.code}`,
    );
  // Pages check their runs against the logs first (a changed log is re-indexed): every run is on this one.
  const oldest = await store.queryCalls({ offset: 0, limit: 1000, order: 'oldest' });
  const runs = await store.queryRuns({ limit: 1000 });
  // Totals count the catalog's own files too: rebuilt catalogs differ in size, the runs' bytes must not.
  const totals = await store.totals();
  const own = catalogBytes(dir);
  return {
    oldest,
    runs,
    newest: await store.queryCalls({ offset: 1, limit: 3 }),
    largest: await store.queryCalls({ offset: 0, limit: 1000, order: 'largest' }),
    tool: await store.queryCalls({ offset: 0, limit: 1000, tool: 'tool1' }),
    failed: await store.queryCalls({ offset: 0, limit: 1000, outcome: 'failed' }),
    skipped: await store.queryRuns({ offset: 2, limit: 2 }),
    totals: { runs: totals.runs, bytes: totals.bytes - own },
    handles: await Promise.all(handles.map(read)),
  };
}

describe('catalog database: what it answers is what a rebuild from the logs answers (docs/architecture.md §6)', () => {
  it('after any sequence of runs, calls, pins, deletes, lost catalog writes, logs changed behind its back and another writer', async function () {
    this.timeout(300_000);
    {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
          const { dir, cleanup } = scratch('catalog-prop');
          try {
            const store = await openStore(dir, SMALL);
            const other = await openStore(dir, SMALL);
            const runs: { id: string; finished: boolean }[] = [];
            const handles: string[] = [];
            let n = 0;
            const record = async (
              s: RunStore,
              calls: number,
              tool: number,
              big: boolean,
              label: string,
              pinned: boolean,
              finish: boolean,
              failed: boolean,
            ): Promise<void> => {
              const r = await s.startRun({ label, pinned });
              for (let c = 0; c < calls; c++) {
                const text = big ? `${'x'.repeat(40 + n)}\n${n}` : `r${n}`;
                n++;
                const out = await r.recordResult(`tool${(tool + c) % 3}`, { c }, text);
                if (out.handle) handles.push(out.handle);
              }
              if (finish) await r.finish(failed ? 'failed' : 'completed');
              runs.push({ id: r.runId, finished: finish });
            };
            for (const o of ops) {
              switch (o.k) {
                case 'run':
                  await record(store, o.calls, o.tool, o.big, `run ${runs.length}`, o.pinned, o.finish, o.tool === 2);
                  break;
                case 'other':
                  await record(other, o.calls, 1, false, `other ${runs.length}`, false, true, false);
                  break;
                case 'pin':
                  if (runs.length) await store.setPinned(runs[o.i % runs.length]!.id, o.p).catch(() => undefined);
                  break;
                case 'del':
                  if (runs.length) await store.deleteRun(runs[o.i % runs.length]!.id).catch(() => undefined);
                  break;
                // A writer that died between its log and its catalog: the last run's newest call row lost.
                // (The database writes a call's row and its run's log size in one transaction: both are lost together.)
                case 'lost':
                  if (runs.length) {
                    const id = runs.at(-1)!.id;
                    withCatalog(dir, (db) => {
                      const last = db
                        .prepare('SELECT call_id FROM calls WHERE run_id = ? ORDER BY n DESC LIMIT 1')
                        .get(id) as { call_id: string } | undefined;
                      if (!last) return;
                      for (const t of ['calls', 'handles'])
                        db.prepare(`DELETE FROM ${t} WHERE run_id = ? AND call_id = ?`).run(id, last.call_id);
                      db.prepare('UPDATE runs SET log_size = log_size - 1 WHERE run_id = ?').run(id);
                    });
                  }
                  break;
                case 'ext': {
                  // A finished run's log changed behind the catalog's back (a record the catalog never saw).
                  const done = runs.filter((r) => r.finished);
                  const r = done[o.i % Math.max(1, done.length)];
                  if (r)
                    appendFileSync(
                      store.logPath(r.id),
                      `${JSON.stringify({ type: 'run_pinned', runId: r.id, pinned: true, at: new Date().toISOString() })}\n`,
                      { flag: 'a' },
                    );
                  break;
                }
              }
            }
            await store.catalogSettled();
            // A lost row leaves the run's row behind its log: a full check finds it (listRuns checks every log).
            await store.listRuns();
            const live = await answers(dir, store, handles);
            await store.catalogSettled();
            const reopened = await openStore(dir, SMALL);
            await reopened.catalogSettled();
            const fromFile = await answers(dir, reopened, handles);
            // The logs are the truth: the same answers from a catalog rebuilt from them alone.
            for (const s of [store, other, reopened]) s.close();
            for (const suffix of ['', '-wal', '-shm']) rmSync(`${catalogPath(dir)}${suffix}`, { force: true });
            const rebuilt = await openStore(dir, SMALL);
            await rebuilt.catalogSettled();
            const fromLogs = await answers(dir, rebuilt, handles);
            rebuilt.close();
            assert.deepEqual(fromFile, fromLogs);
            assert.deepEqual(live, fromLogs);
            // And what they list is what the logs say (checked without the catalog's code).
            assert.deepEqual(asListed(fromLogs), fromTheLogs(path.join(dir, 'logs', 'tenant-a')));
          } finally {
            cleanup();
          }
        }),
        { numRuns: 30 },
      );
    }
  });

  it('a handle miss of a built catalog is a lookup: it never lists the logs folder, however the folder changed', async () => {
    const { dir, cleanup } = scratch('catalog-miss');
    try {
      const a = await openStore(dir, SMALL);
      const r = await a.startRun({ label: 'known' });
      const known = await r.recordResult('t', {}, 'known result');
      await r.finish();
      const b = await openStore(dir, SMALL);
      await b.catalogSettled();
      // The start-up check listed the folder once.
      assert.deepEqual([b.catalogStats().listings, b.catalogStats().built], [1, true]);
      for (let i = 0; i < 20; i++) {
        // Another process writes a run meanwhile (the folder changes before every miss).
        const w = await a.startRun({ label: `other ${i}` });
        await w.finish();
        await assert.rejects(b.readToolOutput({ handle: `res_ffffffffff-${i}` }), /access denied/);
        // A well-formed handle of a known run whose call does not exist: that one run's log is read again, no listing.
        await assert.rejects(b.readToolOutput({ handle: `${known.handle!}9` }), /access denied/);
      }
      assert.equal(b.catalogStats().listings, 1);
      assert.equal((await b.readToolOutput({ handle: known.handle! })).content, 'known result');
    } finally {
      cleanup();
    }
  });

  it('keeps a recorded time that is not in toISOString form exactly as recorded, and re-indexes a log rewritten shorter once', async () => {
    const { dir, cleanup } = scratch('catalog-times');
    try {
      const a = await openStore(dir, SMALL);
      const r = await a.startRun({ label: 'times' });
      await r.recordResult('t', {}, 'x');
      await r.finish();
      // The same instants written another way (no milliseconds, an offset): valid ISO 8601 that toISOString does not give back.
      const log = a.logPath(r.runId);
      const text = readFileSync(log, 'utf8')
        .replace(/"startedAt":"[^"]+"/, '"startedAt":"2026-01-01T00:00:00Z"')
        .replace(
          /"finishedAt":"([^"]+)"(?=[^\n]*"status":"completed"\}\n$)/,
          '"finishedAt":"2026-01-01T01:00:00+01:00"',
        );
      writeFileSync(log, text);
      const b = await openStore(dir, SMALL);
      const [listed] = await b.queryRuns({ limit: 1 });
      assert.equal(listed!.startedAt, '2026-01-01T00:00:00Z');
      assert.equal(listed!.finishedAt, '2026-01-01T01:00:00+01:00');
      // The log got shorter: its snapshot replaced the row once (one ignored as "older" would be redone on every check).
      await b.catalogSettled();
      const reindexed = b.catalogStats().reindexed;
      await b.queryRuns({ limit: 1 });
      await b.queryCalls({ offset: 0, limit: 10 });
      assert.equal(b.catalogStats().reindexed, reindexed);
      const c = await openStore(dir, SMALL);
      assert.deepEqual(await c.queryRuns({ limit: 1 }), [listed]);
    } finally {
      cleanup();
    }
  });
});

/** Everything a tenant's catalog lets a front end find, exactly: pages, runs, handles with their bytes and sizes. */
async function everything(store: RunStore, handles: readonly { handle: string; text: string }[]): Promise<unknown> {
  const pages = [];
  for (const order of ['newest', 'oldest', 'largest'] as const)
    pages.push(await store.queryCalls({ offset: 0, limit: 1000, order }));
  const reads = [];
  for (const h of handles) {
    const r = await store.readToolOutput({ handle: h.handle });
    assert.equal(r.content, h.text, h.handle);
    reads.push([h.handle, r.total_size_bytes]);
  }
  return { pages, runs: await store.queryRuns({ limit: 1000 }), reads, totals: (await store.totals()).runs };
}

describe('a lost or damaged catalog database is rebuilt from the logs with nothing lost (docs/architecture.md §6, "Repair")', () => {
  let dir: string;
  let cleanup: () => void;
  let handles: { handle: string; text: string }[];
  let before: unknown;
  let counts: ReturnType<typeof rowCounts>;
  beforeEach(async () => {
    ({ dir, cleanup } = scratch('catalog-repair'));
    const store = await openStore(dir, SMALL);
    handles = [];
    for (let i = 0; i < 40; i++) {
      const r = await store.startRun({ label: `run ${i}`, pinned: i % 7 === 0 });
      for (let c = 0; c < 3; c++) {
        const text = `run ${i} call ${c} ${'x'.repeat(i * 10 + c)}`;
        handles.push({
          handle: (await r.recordResult(`tool${c}`, { c }, text, { isError: i % 5 === 0 && c === 1 })).handle!,
          text,
        });
      }
      if (i !== 39) await r.finish(i % 9 === 0 ? 'failed' : 'completed');
    }
    before = await everything(store, handles);
    counts = rowCounts(dir);
    assert.deepEqual(counts, { runs: 40, calls: 120, handles: 120 });
    store.close();
  });
  afterEach(() => cleanup());

  const rebuiltSame = async (why: RegExp | undefined): Promise<void> => {
    const store = await openStore(dir, SMALL);
    const stats = store.catalogStats();
    assert.equal(stats.rebuilt, true);
    if (why) assert.match(stats.movedAside ?? '', why);
    else assert.equal(stats.movedAside, undefined);
    await store.catalogSettled();
    assert.deepEqual(rowCounts(dir), counts);
    assert.deepEqual(await everything(store, handles), before);
    assert.equal(store.catalogStats().built, true);
    store.close();
  };

  it('deleted (with its WAL)', async () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${catalogPath(dir)}${suffix}`, { force: true });
    await rebuiltSame(undefined);
  });

  it('garbage bytes in place of the file', async () => {
    for (const suffix of ['-wal', '-shm']) rmSync(`${catalogPath(dir)}${suffix}`, { force: true });
    const size = statSync(catalogPath(dir)).size;
    writeFileSync(catalogPath(dir), Buffer.alloc(size, 0x5a));
    await rebuiltSame(/not a SQLite file/);
    assert.equal(statSync(`${catalogPath(dir)}.damaged`).size, size);
  });

  it('truncated (half its pages, and not at a page boundary)', async () => {
    withCatalog(dir, (db) => db.exec('PRAGMA wal_checkpoint(TRUNCATE)'));
    const size = statSync(catalogPath(dir)).size;
    truncateSync(catalogPath(dir), Math.floor(size / 2) + 100);
    await rebuiltSame(/truncated/);
    truncateSync(catalogPath(dir), Math.floor(size / 2) - (Math.floor(size / 2) % 4096));
    await rebuiltSame(/truncated/);
  });

  it('pages overwritten inside (a header that checks, tables that do not): found by quick_check after the open', async () => {
    withCatalog(dir, (db) => db.exec('PRAGMA wal_checkpoint(TRUNCATE)'));
    const size = statSync(catalogPath(dir)).size;
    const fd = openSync(catalogPath(dir), 'r+');
    // Every page but the first (the schema) overwritten with noise.
    for (let at = 4096; at < size; at += 4096) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, at);
    closeSync(fd);
    await rebuiltSame(/quick_check|malformed|corrupt/i);
  });

  it('a closed store never opens its catalog again, though another process replaced the file', async () => {
    const closed = await openStore(dir, SMALL);
    await closed.catalogSettled();
    closed.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${catalogPath(dir)}${suffix}`, { force: true });
    const other = await openStore(dir, SMALL);
    await other.catalogSettled();
    // The closed store's identity check is due: its clock moved on, not the test's.
    const now = Date.now;
    Date.now = () => now() + 60_000;
    try {
      await assert.rejects(closed.queryRuns({ limit: 1 }), /not open/);
    } finally {
      Date.now = now;
    }
    await closed.catalogSettled();
    other.close();
    // A connection it reopened would still hold the new file.
    const held = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(catalogPath(dir));
      } catch {
        return false;
      }
    });
    assert.deepEqual(held, []);
  });

  it('of another schema version', async () => {
    withCatalog(dir, (db) => db.exec('PRAGMA user_version = 99'));
    await rebuiltSame(/schema version 99/);
  });
});
