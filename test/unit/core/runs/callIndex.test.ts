import * as assert from 'node:assert/strict';
import type { CallFilter, CallSummary, RunSource } from '../../../../src/core/runs/types.js';
import { openStore, scratch } from './helpers.js';

const SMALL = { limits: { largeResultBytes: 16, previewBytes: 8 } };

/** A call as the test made it: its creation order is the insertion order ties fall back to. */
interface Made {
  readonly seq: number;
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly label: string;
  readonly source: string;
  readonly failed: boolean;
}

describe('a call\'s index in the list (RunStore.callIndex, docs/contracts.md §3.4 "Reveal")', function () {
  this.timeout(60_000);
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('callindex')));
  afterEach(() => cleanup());

  it("is the call's position under each order and filter, as a plain sort of the same rows gives it; hidden calls have none", async () => {
    const store = await openStore(dir, SMALL);
    const made: Made[] = [];
    const sources: RunSource[] = [{ kind: 'cli' }, { kind: 'tool' }, { kind: 'participant' }];
    const tools = ['grep', 'read', 'build'];
    for (let r = 0; r < 12; r++) {
      const source = sources[r % 3]!;
      const label = r % 4 === 0 ? `Nightly ${r}` : `task ${r}`;
      const run = await store.startRun({ label, source });
      for (let k = 0; k < 4 + (r % 4); k++) {
        const tool = tools[(r + k) % 3]!;
        const failed = (r * 7 + k) % 5 === 0;
        // Sizes repeat (ties of size fall back to time, then to the order recorded).
        const out = await run.recordResult(
          tool,
          { r, k },
          'x'.repeat(((r + k) % 4) * 10),
          failed ? { isError: true } : undefined,
        );
        made.push({ seq: made.length, runId: run.runId, callId: out.callId, tool, label, source: source.kind, failed });
      }
      if (r !== 5) await run.finish();
    }
    // What the store lists for each call (its start time and bytes), keyed run/call.
    const listed = new Map<string, CallSummary>();
    for (const c of (await store.queryCalls({ offset: 0, limit: 1000, order: 'oldest' })).rows)
      listed.set(`${c.runId}/${c.callId}`, c);
    assert.equal(listed.size, made.length);
    const started = (m: Made): number => Date.parse(listed.get(`${m.runId}/${m.callId}`)!.startedAt);
    const bytes = (m: Made): number => {
      const c = listed.get(`${m.runId}/${m.callId}`)!;
      return c.resultBytes + c.attachments.reduce((n, a) => n + a.sizeBytes, 0);
    };

    /** The list these filters give, by a plain filter and sort here. */
    const plain = (q: CallFilter): Made[] => {
      const text = q.text?.toLowerCase();
      const rows = made.filter(
        (m) =>
          (q.tool === undefined || m.tool === q.tool) &&
          (q.runId === undefined || m.runId === q.runId) &&
          (q.source === undefined || m.source === q.source) &&
          (q.outcome === undefined || (q.outcome === 'failed') === m.failed) &&
          (text === undefined || [m.tool, m.callId, m.runId, m.label].some((s) => s.toLowerCase().includes(text))),
      );
      const order = q.order ?? 'newest';
      return rows.sort((a, b) =>
        order === 'oldest'
          ? started(a) - started(b) || a.seq - b.seq
          : order === 'newest'
            ? started(b) - started(a) || b.seq - a.seq
            : bytes(b) - bytes(a) || started(b) - started(a) || b.seq - a.seq,
      );
    };

    const someRun = made[20]!.runId;
    const filters: CallFilter[] = [
      {},
      { tool: 'read' },
      { outcome: 'failed' },
      { outcome: 'ok' },
      { source: 'cli' },
      { text: 'NIGHTLY' },
      { runId: someRun },
      { tool: 'grep', outcome: 'ok', source: 'participant' },
      { runId: someRun, tool: 'build' },
      { text: made[7]!.callId },
      { tool: 'no such tool' },
      { runId: 'no-such-run' },
    ];
    let shown = 0;
    let hidden = 0;
    for (const order of ['newest', 'oldest', 'largest'] as const) {
      for (const f of filters) {
        const q: CallFilter = { ...f, order };
        const expected = plain(q);
        // The pages agree with the plain sort (the index is a position in these pages).
        const page = await store.queryCalls({ ...q, offset: 0, limit: 1000 });
        assert.deepEqual(
          page.rows.map((c) => c.callId),
          expected.map((m) => m.callId),
          `pages ${JSON.stringify(q)}`,
        );
        for (const m of made) {
          const at = await store.callIndex(q, m.runId, m.callId);
          const want = expected.indexOf(m);
          assert.equal(at, want < 0 ? undefined : want, `${m.runId}/${m.callId} under ${JSON.stringify(q)}`);
          if (want < 0) {
            hidden++;
            continue;
          }
          shown++;
          // The page at that offset starts with that very call.
          const one = await store.queryCalls({ ...q, offset: want, limit: 1 });
          assert.deepEqual([one.rows[0]!.runId, one.rows[0]!.callId], [m.runId, m.callId]);
        }
      }
    }
    assert.ok(shown > 300 && hidden > 300, `both cases exercised: ${shown} shown, ${hidden} hidden`);
    // A call or run the store does not know has no index.
    assert.equal(await store.callIndex({}, made[0]!.runId, 'zzzz-999'), undefined);
    assert.equal(await store.callIndex({}, 'no-such-run', made[0]!.callId), undefined);
    // A deleted run's calls leave the list, and those after them move up.
    const gone = made[0]!.runId;
    const last = made[made.length - 1]!;
    assert.equal(await store.callIndex({ order: 'oldest' }, last.runId, last.callId), made.length - 1);
    await store.deleteRun(gone);
    assert.equal(await store.callIndex({}, gone, made[0]!.callId), undefined);
    assert.equal(
      await store.callIndex({ order: 'oldest' }, last.runId, last.callId),
      made.length - 1 - made.filter((m) => m.runId === gone).length,
    );
  });

  it('refuses a malformed query with one sentence', async () => {
    const store = await openStore(dir, SMALL);
    await assert.rejects(
      store.callIndex({ order: 'sideways' as 'newest' }, 'a', 'b'),
      /order must be newest, oldest or largest/,
    );
    await assert.rejects(
      store.callIndex({ outcome: 'meh' as 'ok' }, 'a', 'b'),
      /outcome must be ok, failed or running/,
    );
  });
});

describe("one call by its id (CallQuery.callId: the inspector's whole handle as the text)", function () {
  this.timeout(120_000);
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('callid')));
  afterEach(() => cleanup());

  it('lists exactly that call, and places it at 0, however far down a run of over 1,000 calls it is; with another run or filter, nothing', async () => {
    const store = await openStore(dir, SMALL);
    const run = await store.startRun();
    const ids: string[] = [];
    for (let k = 0; k < 1_003; k++)
      ids.push((await run.recordResult(k % 2 ? 'grep' : 'read', { k }, `out ${k}`)).callId);
    await run.finish();
    const other = await store.startRun();
    await other.recordResult('grep', {}, 'x');
    const first = ids[0]!;
    const page = await store.queryCalls({ offset: 0, limit: 10, runId: run.runId, callId: first });
    assert.deepEqual([page.total, page.rows.map((c) => c.callId)], [1, [first]]);
    assert.equal(await store.callIndex({ runId: run.runId, callId: first }, run.runId, first), 0);
    assert.equal(
      await store.callIndex({ runId: run.runId, callId: first, order: 'largest' }, run.runId, ids[1]!),
      undefined,
    );
    assert.equal(
      (await store.queryCalls({ offset: 0, limit: 10, runId: run.runId, callId: first, tool: 'grep' })).total,
      0,
    );
    assert.equal((await store.queryCalls({ offset: 0, limit: 10, runId: other.runId, callId: first })).total, 0);
    await assert.rejects(
      store.queryCalls({ offset: 0, limit: 10, callId: first }),
      /callId needs the runId it belongs to/,
    );
  });
});

describe("runs by id (RunQuery.runIds: the inspector's live update of the runs it touched)", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('runids')));
  afterEach(() => cleanup());

  it('are the summaries queryRuns gives for them, in the order asked; unknown ids are left out', async () => {
    const store = await openStore(dir, SMALL);
    const made = [];
    for (let r = 0; r < 4; r++) {
      const run = await store.startRun({ label: `run ${r}` });
      await run.recordResult('grep', { r }, `out ${r}`);
      if (r !== 2) await run.finish();
      made.push(run.runId);
    }
    const all = await store.queryRuns({ limit: 10 });
    const byId = new Map(all.map((s) => [s.runId, s]));
    const asked = [made[2]!, 'run-nope', made[0]!];
    assert.deepEqual(await store.queryRuns({ runIds: asked, limit: 3 }), [byId.get(made[2]!), byId.get(made[0]!)]);
    await assert.rejects(store.queryRuns({ runIds: made, limit: 2 }), /runIds must be at most limit run ids/);
  });
});
