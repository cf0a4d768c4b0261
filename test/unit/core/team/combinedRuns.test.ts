/**
 * This storage's runs and the team stores' listed as one (docs/contracts.md §7.2): pages merged in the list's order
 * from each store's own catalog, exact totals, a call's place in the list, the source filter (`team:NAME`), handles
 * read through, and team runs read-only. Real run stores on disk stand for the team stores' mirrored tenants.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CombinedRuns, FsBlobStore, RunStore } from '../../../../src/core/index.js';
import type { CallSummary } from '../../../../src/core/runs/types.js';
import { cursorOf, type ListedTeamStore } from '../../../../src/core/team/combinedRuns.js';

describe('team runs listed with local runs', () => {
  let dir: string;
  let local: RunStore;
  let ci: RunStore;
  let mate: RunStore;
  let combined: CombinedRuns;
  const handles = new Map<string, string>();

  const open = async (name: string): Promise<RunStore> =>
    RunStore.open({
      logsDir: path.join(dir, name, 'logs'),
      tenant: name,
      blobs: await FsBlobStore.open(path.join(dir, name, 'blobs')),
      limits: { largeResultBytes: 256, previewBytes: 64 },
    });

  const team = (name: string, runs: RunStore): ListedTeamStore => ({
    name,
    runStores: () => [runs],
    refusedList: () => [],
    readToolOutput: (args, scope, options) => runs.readToolOutput(args, scope, options),
    openHandle: async (h) => ({ ...(await runs.openHandle(h)), store: name }),
  });

  /** One run of `calls` calls; each output is bigger than the last so `largest` has an order too. */
  const record = async (store: RunStore, label: string, calls: number, size: number): Promise<void> => {
    const run = await store.startRun({ label, source: { kind: 'cli' } });
    for (let i = 0; i < calls; i++) {
      const out = await run.recordResult('build', { i }, `${label}-${i}\n`.padEnd(size + i * 7, 'x'));
      if (out.handle) handles.set(`${label}-${i}`, out.handle);
      // Distinct start times: the merged order is then the one order of every call.
      await new Promise((r) => setTimeout(r, 3));
    }
    await run.finish();
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-combined-'));
    local = await open('local');
    ci = await open('ci');
    mate = await open('mate');
    await record(local, 'L1', 3, 600);
    await record(ci, 'C1', 4, 900);
    await record(mate, 'M1', 2, 700);
    await record(local, 'L2', 2, 1000);
    await record(ci, 'C2', 3, 650);
    combined = new CombinedRuns(local, [team('ci', ci), team('mate', mate)]);
  });

  after(() => {
    for (const s of [local, ci, mate]) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every call of the three stores in the list's order, from their reports. */
  const everyCall = async (order: 'newest' | 'largest'): Promise<string[]> => {
    const all: { key: string; startedAt: string; bytes: number }[] = [];
    for (const s of [local, ci, mate])
      for (const r of await s.listRuns())
        for (const c of await s.report(r.runId))
          all.push({ key: `${c.runId}/${c.callId}`, startedAt: c.startedAt, bytes: c.resultBytes });
    all.sort((a, b) =>
      order === 'largest'
        ? b.bytes - a.bytes || (a.startedAt < b.startedAt ? 1 : -1)
        : a.startedAt < b.startedAt
          ? 1
          : -1,
    );
    return all.map((c) => c.key);
  };
  const keys = (rows: readonly { runId: string; callId: string }[]): string[] =>
    rows.map((r) => `${r.runId}/${r.callId}`);

  for (const order of ['newest', 'largest'] as const)
    it(`pages in the ${order} order are slices of one list, with exact totals and each call's index`, async () => {
      const expected = await everyCall(order);
      assert.equal(expected.length, 14);
      for (const limit of [1, 3, 5, 14]) {
        const seen: string[] = [];
        for (let offset = 0; offset < expected.length; offset += limit) {
          const page = await combined.callReports({ order, offset, limit });
          assert.equal(page.total, 14);
          seen.push(...keys(page.calls));
          const rows = await combined.queryCalls({ order, offset, limit });
          assert.deepEqual(keys(rows.rows), keys(page.calls));
        }
        assert.deepEqual(seen, expected, `limit ${limit}`);
      }
      for (const [i, key] of expected.entries()) {
        const [runId, callId] = key.split('/') as [string, string];
        assert.equal(await combined.callIndex({ order }, runId, callId), i, key);
      }
    });

  it('reads on from where the last call page ended: limit rows a store a page, not offset + limit', async () => {
    const asked: { offset: number; limit: number }[] = [];
    const counted = (runs: RunStore): RunStore =>
      Object.assign(Object.create(runs) as RunStore, {
        queryCalls: (q: Parameters<RunStore['queryCalls']>[0]) => {
          asked.push({ offset: q.offset, limit: q.limit });
          return runs.queryCalls(q);
        },
      });
    const fresh = new CombinedRuns(counted(local), [
      { ...team('ci', ci), runStores: () => [counted(ci)] },
      { ...team('mate', mate), runStores: () => [counted(mate)] },
    ]);
    const expected = await everyCall('newest');
    const seen: string[] = [];
    for (let offset = 0; offset < expected.length; offset += 3) {
      asked.length = 0;
      seen.push(...keys((await fresh.queryCalls({ order: 'newest', offset, limit: 3 })).rows));
      assert.ok(
        asked.every((a) => a.limit <= 3),
        JSON.stringify(asked),
      );
    }
    assert.deepEqual(seen, expected);
    // A jump elsewhere reads from the top again, and is still the same slice of the list.
    const jump = await fresh.queryCalls({ order: 'newest', offset: 5, limit: 4 });
    assert.deepEqual(keys(jump.rows), expected.slice(5, 9));
  });

  it("names each team call's and run's store, offers each store as a source, filters by it", async () => {
    const page = await combined.callReports({ order: 'newest', offset: 0, limit: 100, withFacets: true });
    const storeOf = new Map(page.runs.map((r) => [r.label, r.store]));
    assert.deepEqual(Object.fromEntries(storeOf), { C2: 'ci', L2: undefined, M1: 'mate', C1: 'ci', L1: undefined });
    for (const c of page.calls) assert.equal(c.store, storeOf.get(page.runs.find((r) => r.runId === c.runId)!.label));
    assert.deepEqual(page.sources, ['cli', 'team:ci', 'team:mate']);
    assert.deepEqual(page.tools, ['build']);

    const onlyCi = await combined.callReports({ order: 'newest', offset: 0, limit: 100, source: 'team:ci' as never });
    assert.equal(onlyCi.total, 7);
    assert.ok(onlyCi.calls.every((c) => c.store === 'ci'));
    // A run source kind filters this storage's runs: team runs are listed under their store.
    const onlyLocal = await combined.callReports({ order: 'newest', offset: 0, limit: 100, source: 'cli' });
    assert.equal(onlyLocal.total, 5);
    assert.ok(onlyLocal.calls.every((c) => c.store === undefined));
    const c1 = (await ci.listRuns()).find((r) => r.label === 'C1')!;
    assert.equal(await combined.callIndex({ order: 'newest', source: 'cli' }, c1.runId, '1'), undefined);
    const rows: CallSummary[] = (await combined.queryCalls({ offset: 0, limit: 100, runId: c1.runId })).rows.slice();
    assert.equal(rows.length, 4);
    assert.ok(rows.every((r) => r.store === 'ci'));
  });

  it('pages runs by a cursor across several stores: each run once, in order, each page asking limit rows a store', async () => {
    const stores = await Promise.all(['s0', 's1', 's2'].map((n) => open(n)));
    // Equal start times across stores and within one: the ties are where a cursor goes wrong.
    const at = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z'];
    for (const [i, s] of stores.entries())
      for (let n = 0; n < 7; n++) {
        const run = await s.startRun({ label: `s${i}-${n}`, source: { kind: 'cli' } });
        await run.finish();
        // Each store's log of the run, started at a shared time: rewritten, then re-indexed from the logs.
        const file = path.join(dir, `s${i}`, 'logs', `s${i}`, `${run.runId}.jsonl`);
        const log = readFileSync(file, 'utf8').replace(/"startedAt":"[^"]+"/, `"startedAt":"${at[(n + i) % 3]}"`);
        writeFileSync(file, log);
      }
    for (const s of stores) await s.reconcileWithLogs();
    const asked: number[] = [];
    const counting = (name: string, runs: RunStore): ListedTeamStore => {
      const queryRuns: RunStore['queryRuns'] = async (q) => {
        const rows = await runs.queryRuns(q);
        if (q.runIds === undefined) asked.push(q.offset ?? 0, q.limit);
        return rows;
      };
      return { ...team(name, runs), runStores: () => [Object.assign(Object.create(runs) as RunStore, { queryRuns })] };
    };
    const refused = {
      runId: 'run-refused-1',
      tenant: '',
      startedAt: at[1]!,
      status: 'failed' as const,
      pinned: false,
      profileHash: '',
      callCount: 0,
      failedCalls: 0,
      totalBytes: 10,
      outputBytes: 0,
      tornTail: false,
      problems: [],
      store: 't1',
      refused: 'tampered' as const,
    };
    const merged = new CombinedRuns(stores[0]!, [
      { ...counting('t1', stores[1]!), refusedList: () => [refused] },
      counting('t2', stores[2]!),
    ]);
    const everyRun = await merged.listRuns();
    assert.equal(everyRun.length, 22);
    const byRank = (r: { store?: string }): number => (r.store === undefined ? 0 : r.store === 't1' ? 1 : 2);
    for (let i = 1; i < everyRun.length; i++) {
      const [a, b] = [everyRun[i - 1]!, everyRun[i]!];
      assert.ok(a.startedAt > b.startedAt || (a.startedAt === b.startedAt && byRank(a) <= byRank(b)), `${i}`);
    }
    for (const limit of [1, 4, 22]) {
      const seen: string[] = [];
      let page = await merged.queryRuns({ limit });
      while (page.length > 0) {
        seen.push(...page.map((r) => `${r.store ?? ''}/${r.runId}`));
        asked.length = 0;
        page = await merged.queryRuns({ limit, after: cursorOf(page.at(-1)!) });
        // Every store was asked from its cursor, for one page's rows: never offset + limit.
        for (let j = 0; j < asked.length; j += 2) assert.deepEqual([asked[j], asked[j + 1]], [0, limit]);
      }
      assert.deepEqual(
        seen,
        everyRun.map((r) => `${r.store ?? ''}/${r.runId}`),
        `limit ${limit}`,
      );
      assert.equal(seen.filter((k) => k === 't1/run-refused-1').length, 1);
    }
    assert.deepEqual(await merged.totals().then((t) => [t.runs, t.teamRuns]), [7, 15]);
    for (const s of stores) s.close();
  });

  it('reads a team handle through its store, and refuses pin and delete of a team run', async () => {
    const src = await combined.openHandle(handles.get('C1-2')!);
    assert.equal(src.store, 'ci');
    assert.match(Buffer.from(await src.readRange(0, 5)).toString(), /^C1-2\n/);
    assert.equal(await src.verify(), true);
    const own = await combined.openHandle(handles.get('L2-1')!);
    assert.equal(own.store, undefined);
    await assert.rejects(combined.openHandle('res_00000000000000000000000000000000'), /access denied/);

    const teamRun = (await ci.listRuns())[0]!;
    assert.equal(await combined.isTeamRun(teamRun.runId), true);
    const readOnly = /a team run is read-only here: pin, delete and prune do not apply/;
    await assert.rejects(combined.setPinned(teamRun.runId, true), readOnly);
    await assert.rejects(combined.deleteRun(teamRun.runId), readOnly);
    assert.equal((await ci.listRuns()).length, 2);
    const reported = await combined.report(teamRun.runId);
    assert.ok(reported.length > 0 && reported.every((c) => c.store === 'ci'));
    const picked = await combined.queryRuns({ limit: 2 });
    assert.deepEqual(
      picked.map((r) => [r.label, r.store]),
      [
        ['C2', 'ci'],
        ['L2', undefined],
      ],
    );
  });
});
