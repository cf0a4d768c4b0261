import * as assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { Catalog } from '../../../src/core/runs/catalog.js';
import { CATALOG_FILE } from '../../../src/core/runs/catalogFormat.js';
import { sortPairs } from '../../../src/core/runs/catalogIndex.js';
import { parseRunLog } from '../../../src/core/runs/runLog.js';
import type { RunStore } from '../../../src/core/runs/runStore.js';
import type { CallPage, CallSummary, RunSummary } from '../../../src/core/runs/types.js';
import { openStore, scratch } from './helpers.js';

const SMALL = { limits: { largeResultBytes: 4, previewBytes: 4 } };

type Op =
  | { k: 'run'; calls: number; finish: boolean; pinned: boolean; tool: number; big: boolean }
  | { k: 'pin'; i: number; p: boolean }
  | { k: 'del'; i: number }
  | { k: 'torn' }
  | { k: 'ext'; i: number }
  | { k: 'other'; calls: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ k: fc.constant('run' as const), calls: fc.nat(3), finish: fc.boolean(), pinned: fc.boolean(), tool: fc.nat(2), big: fc.boolean() }) },
  fc.record({ k: fc.constant('pin' as const), i: fc.nat(), p: fc.boolean() }),
  fc.record({ k: fc.constant('del' as const), i: fc.nat() }),
  fc.record({ k: fc.constant('torn' as const) }),
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
  for (const name of readdirSync(folder).filter((n) => n.endsWith('.jsonl')).sort()) {
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
function asListed(a: { oldest: { rows: readonly CallSummary[] }; runs: readonly RunSummary[] }): { runs: unknown[]; calls: unknown[] } {
  const byId = <T extends { runId: string; callId?: string }>(x: T[]): T[] => x.sort((p, q) => (p.runId + (p.callId ?? '') < q.runId + (q.callId ?? '') ? -1 : 1));
  return {
    runs: byId(a.runs.map((r) => ({ runId: r.runId, label: r.label, pinned: r.pinned, status: r.status, callCount: r.callCount, totalBytes: r.totalBytes }))),
    calls: byId(a.oldest.rows.filter((c) => c.status !== 'running').map((c) => ({ runId: c.runId, callId: c.callId, tool: c.tool, status: c.status }))),
  };
}

/** Everything a front end asks the catalog, as plain data. */
async function answers(store: RunStore, handles: readonly string[]): Promise<{ oldest: CallPage; runs: RunSummary[] } & Record<string, unknown>> {
  const read = async (h: string): Promise<string> => store.readToolOutput({ handle: h }).then((r) => r.content, (e: { code?: string }) => `refused: ${e.code}`);
  // Pages check their runs against the logs first (a changed log is re-indexed): every run is on this one.
  const oldest = await store.queryCalls({ offset: 0, limit: 1000, order: 'oldest' });
  const runs = await store.queryRuns({ limit: 1000 });
  // Totals come from memory; the catalog file counts in them (read in the same turn): rebuilt catalogs differ in size, the runs' bytes must not.
  const totals = await store.totals();
  const catalogBytes = store.catalogStats().fileBytes;
  return {
    oldest,
    runs,
    newest: await store.queryCalls({ offset: 1, limit: 3 }),
    largest: await store.queryCalls({ offset: 0, limit: 1000, order: 'largest' }),
    tool: await store.queryCalls({ offset: 0, limit: 1000, tool: 'tool1' }),
    failed: await store.queryCalls({ offset: 0, limit: 1000, outcome: 'failed' }),
    skipped: await store.queryRuns({ offset: 2, limit: 2 }),
    totals: { runs: totals.runs, bytes: totals.bytes - catalogBytes },
    handles: await Promise.all(handles.map(read)),
  };
}

describe('catalog columns: the in-memory index answers what a rebuild from the logs answers (docs/architecture.md §6)', () => {
  it('after any sequence of runs, calls, pins, deletes, torn catalog lines, logs changed behind its back and another writer', async function () {
    this.timeout(300_000);
    const lag = Catalog.checkpointLagBytes;
    try {
      await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), fc.boolean(), async (ops, checkpoints) => {
        // Checkpoints after every append, or never: loading one must not change an answer either.
        Catalog.checkpointLagBytes = checkpoints ? 1 : Number.MAX_SAFE_INTEGER;
        const { dir, cleanup } = scratch('catalog-prop');
        try {
          const store = await openStore(dir, SMALL);
          const other = await openStore(dir, SMALL);
          const catalogFile = path.join(dir, 'logs', 'tenant-a', CATALOG_FILE);
          const runs: { id: string; finished: boolean }[] = [];
          const handles: string[] = [];
          let n = 0;
          const record = async (s: RunStore, calls: number, tool: number, big: boolean, label: string, pinned: boolean, finish: boolean, failed: boolean): Promise<void> => {
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
              case 'run': await record(store, o.calls, o.tool, o.big, `run ${runs.length}`, o.pinned, o.finish, o.tool === 2); break;
              case 'other': await record(other, o.calls, 1, false, `other ${runs.length}`, false, true, false); break;
              case 'pin': if (runs.length) await store.setPinned(runs[o.i % runs.length]!.id, o.p).catch(() => undefined); break;
              case 'del': if (runs.length) await store.deleteRun(runs[o.i % runs.length]!.id).catch(() => undefined); break;
              // A writer that died mid-line: a torn line the next one starts after.
              case 'torn': appendFileSync(catalogFile, '\n{"k":"cf","r":"run-torn'); break;
              case 'ext': {
                // A finished run's log changed behind the catalog's back (a record the catalog never saw).
                const done = runs.filter((r) => r.finished);
                const r = done[o.i % Math.max(1, done.length)];
                if (r) appendFileSync(store.logPath(r.id), `${JSON.stringify({ type: 'run_pinned', runId: r.id, pinned: true, at: new Date().toISOString() })}\n`, { flag: 'a' });
                break;
              }
            }
          }
          await store.catalogSettled();
          const live = await answers(store, handles);
          await store.catalogSettled();
          const reopened = await openStore(dir, SMALL);
          await reopened.catalogSettled();
          const fromFile = await answers(reopened, handles);
          // The logs are the truth: the same answers from a catalog rebuilt from them alone.
          rmSync(catalogFile);
          rmSync(`${catalogFile}.ckpt`, { force: true });
          const rebuilt = await openStore(dir, SMALL);
          await rebuilt.catalogSettled();
          const fromLogs = await answers(rebuilt, handles);
          assert.deepEqual(fromFile, fromLogs);
          assert.deepEqual(live, fromLogs);
          // And what they list is what the logs say (checked without the catalog's code).
          assert.deepEqual(asListed(fromLogs), fromTheLogs(path.join(dir, 'logs', 'tenant-a')));
        } finally {
          cleanup();
        }
      }), { numRuns: 30 });
    } finally {
      Catalog.checkpointLagBytes = lag;
    }
  });

  it('a handle miss lists the logs folder only when the folder changed since its last listing', async () => {
    const { dir, cleanup } = scratch('catalog-miss');
    try {
      const a = await openStore(dir, SMALL);
      const r = await a.startRun({ label: 'known' });
      await r.recordResult('t', {}, 'known result');
      await r.finish();
      const b = await openStore(dir, SMALL);
      await b.catalogSettled();
      const listed = b.catalogStats().listings;
      assert.equal(listed, 1);
      // Misses of well-formed handles of unknown runs: a stat of the folder each, no listing (the folder is old enough).
      const folder = path.join(dir, 'logs', 'tenant-a');
      const { utimesSync } = await import('node:fs');
      const past = new Date(Date.now() - 60_000);
      utimesSync(folder, past, past);
      const c = await openStore(dir, SMALL);
      await c.catalogSettled();
      const base = c.catalogStats().listings;
      for (let i = 0; i < 20; i++) await assert.rejects(c.readToolOutput({ handle: `res_ffffffffff-${i}` }), /access denied/);
      assert.equal(c.catalogStats().listings, base);
      // A run written behind the catalog's back (its lines lost): the folder changed, the miss lists it once and resolves.
      const w = await openStore(dir, SMALL);
      const hidden = await w.startRun({ label: 'hidden' });
      const out = await hidden.recordResult('t', {}, 'hidden result');
      await hidden.finish();
      const catalogFile = path.join(folder, CATALOG_FILE);
      writeFileSync(catalogFile, readFileSync(catalogFile, 'utf8').split('\n').filter((l) => !l.includes(hidden.runId)).join('\n'));
      const d = await openStore(dir, SMALL);
      await d.catalogSettled();
      utimesSync(folder, past, past);
      // d listed at open (and found the run); a store that listed before the run existed is the case to check: c.
      const before = c.catalogStats().listings;
      assert.equal((await c.readToolOutput({ handle: out.handle! })).content, 'hidden result');
      assert.ok(c.catalogStats().listings <= before + 1);
    } finally {
      cleanup();
    }
  });

  it('keeps times as numbers, yet lists a recorded time that is not in toISOString form exactly as recorded (also through a checkpoint)', async () => {
    const { dir, cleanup } = scratch('catalog-times');
    const lag = Catalog.checkpointLagBytes;
    try {
      const a = await openStore(dir, SMALL);
      const r = await a.startRun({ label: 'times' });
      await r.recordResult('t', {}, 'x');
      await r.finish();
      // The same instants written another way (no milliseconds, an offset): valid ISO 8601 that toISOString does not give back.
      const log = a.logPath(r.runId);
      const text = readFileSync(log, 'utf8').replace(/"startedAt":"[^"]+"/, '"startedAt":"2026-01-01T00:00:00Z"').replace(/"finishedAt":"([^"]+)"(?=[^\n]*"status":"completed"\}\n$)/, '"finishedAt":"2026-01-01T01:00:00+01:00"');
      writeFileSync(log, text);
      Catalog.checkpointLagBytes = 1;
      const b = await openStore(dir, SMALL);
      const [listed] = await b.queryRuns({ limit: 1 });
      assert.equal(listed!.startedAt, '2026-01-01T00:00:00Z');
      assert.equal(listed!.finishedAt, '2026-01-01T01:00:00+01:00');
      // The log got shorter: its snap replaced the row once (a snap ignored as "older" would be appended on every check).
      await b.catalogSettled();
      const size = b.catalogStats().fileBytes;
      await b.queryRuns({ limit: 1 });
      await b.queryCalls({ offset: 0, limit: 10 });
      assert.equal(b.catalogStats().fileBytes, size);
      assert.ok(existsSync(path.join(dir, 'logs', 'tenant-a', `${CATALOG_FILE}.ckpt`)));
      Catalog.checkpointLagBytes = Number.MAX_SAFE_INTEGER;
      const c = await openStore(dir, SMALL);
      assert.deepEqual(await c.queryRuns({ limit: 1 }), [listed]);
    } finally {
      Catalog.checkpointLagBytes = lag;
      cleanup();
    }
  });

  it('sortPairs sorts by key, ties in their given order, as a comparator sort does', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })), { maxLength: 500 }), async (pairs) => {
      const got = await sortPairs(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
      const want = pairs.map((p, i) => [...p, i] as const).sort((a, b) => a[0] - b[0] || a[2] - b[2]);
      assert.deepEqual([...got.keys], want.map((p) => p[0]));
      assert.deepEqual([...got.vals], want.map((p) => p[1]));
    }), { numRuns: 200 });
    // Past one slice step (several steps, a pause between them): the same order as a comparator sort.
    const big = Array.from({ length: 100_000 }, (_, i) => [(i * 2654435761) >>> 0 & 0xffffff, i] as const);
    const got = await sortPairs(big.map((p) => p[0]), big.map((p) => p[1]));
    const want = [...big].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.deepEqual([...got.vals], want.map((p) => p[1]));
  });
});
