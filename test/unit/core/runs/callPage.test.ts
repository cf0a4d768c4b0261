import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunStore } from '../../../../src/core/runs/store/runStore.js';
import type { CallReport } from '../../../../src/core/runs/types.js';
import { openStore, scratch } from './helpers.js';

const SMALL = { limits: { largeResultBytes: 16, previewBytes: 8 } };

/** Every call of the store as `report` gives them, keyed `run/call`. */
async function reported(store: RunStore): Promise<Map<string, CallReport>> {
  const out = new Map<string, CallReport>();
  for (const r of await store.listRuns())
    for (const c of await store.report(r.runId)) out.set(`${c.runId}/${c.callId}`, c);
  return out;
}

describe('call pages with records (callPage.ts)', function () {
  this.timeout(60_000);
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('callpage')));
  afterEach(() => cleanup());

  it('gives each listed call exactly as report() does, in the page order, with its runs', async () => {
    const store = await openStore(dir, SMALL);
    const a = await store.startRun({ label: 'build', source: { kind: 'cli' } });
    await a.recordResult('compile', { file: 'a.c', flags: ['-O2'] }, 'compiled '.repeat(10));
    await a.recordResult('compile', { file: 'b.c' }, 'boom', { isError: true });
    await a.runCommand('printf out; printf err >&2; exit 3', { cwd: dir });
    await a.finish();
    const b = await store.startRun({ label: 'test' });
    await b.recordResult('lint', {}, new Uint8Array([0, 1, 2, 255, 254]));
    await b.recordResult('lint', { x: 1 }, { structured: true, n: 2 });
    const all = await reported(store);

    for (const order of ['newest', 'oldest', 'largest'] as const) {
      const ids = (await store.queryCalls({ offset: 0, limit: 100, order })).rows.map((r) => `${r.runId}/${r.callId}`);
      const page = await store.callReports({ offset: 0, limit: 100, order });
      assert.equal(page.total, 5);
      assert.deepEqual(
        page.calls.map((c) => `${c.runId}/${c.callId}`),
        ids,
        order,
      );
      for (const c of page.calls) assert.deepStrictEqual(c, all.get(`${c.runId}/${c.callId}`));
      assert.equal(page.logReads, 5, 'one read per finished call');
    }
    // Pages and filters are the catalog's; the runs are those of the page's calls.
    const p2 = await store.callReports({ offset: 1, limit: 2, order: 'oldest', runId: a.runId });
    assert.deepEqual([p2.total, p2.offset, p2.calls.map((c) => c.tool)], [3, 1, ['compile', 'run_command']]);
    assert.deepEqual(
      p2.runs.map((r) => [r.runId, r.label, r.callCount, r.source?.kind]),
      [[a.runId, 'build', 3, 'cli']],
    );
    const cmd = p2.calls[1]!;
    assert.deepEqual(cmd.attachments.map((x) => [x.name, x.sizeBytes, x.inline]).slice(0, 2), [
      ['stdout', 3, 'out'],
      ['stderr', 3, 'err'],
    ]);
    assert.equal(JSON.parse(cmd.attachments[2]!.inline!).code, 3);
    const failed = await store.callReports({ offset: 0, limit: 10, outcome: 'failed' });
    // The command that exited 3 failed although recorded ok; the tool error failed too.
    assert.deepEqual(
      failed.calls.map((c) => [c.tool, c.status, c.error?.code]),
      [
        ['run_command', 'ok', undefined],
        ['compile', 'error', c2code(all, a.runId)],
      ],
    );
    const facets = await store.callReports({ offset: 0, limit: 10, withFacets: true });
    assert.deepEqual(
      [facets.tools, facets.sources],
      [
        ['compile', 'lint', 'run_command'],
        ['cli', 'tool'],
      ],
    );
    assert.equal((await store.callReports({ offset: 0, limit: 10 })).tools, undefined);
  });

  it('reads O(page): one log record per listed call, whatever the number of runs', async () => {
    const store = await openStore(dir, SMALL);
    for (let i = 0; i < 300; i++) {
      const run = await store.startRun({ label: `run ${i}` });
      await run.recordResult(i % 2 ? 'read' : 'grep', { i }, `output of call ${i} `.repeat((i % 5) + 1));
      await run.recordResult('read', { i, second: true }, `second ${i}`);
      await run.finish();
    }
    let reports = 0;
    const report = store.report.bind(store);
    store.report = async (runId: string) => {
      reports++;
      return report(runId);
    };
    const page = await store.callReports({ offset: 250, limit: 25 });
    assert.equal(page.total, 600);
    assert.equal(page.calls.length, 25);
    assert.equal(page.logReads, 25);
    assert.equal(reports, 0, 'no run log is read whole');
    assert.equal(page.runs.length, 13);
    // Exact rows: the same calls from report().
    store.report = report;
    const all = await reported(store);
    for (const c of page.calls) assert.deepStrictEqual(c, all.get(`${c.runId}/${c.callId}`));
    const ids = (await store.queryCalls({ offset: 250, limit: 25 })).rows.map((r) => r.callId);
    assert.deepEqual(
      page.calls.map((c) => c.callId),
      ids,
    );
  });

  it('takes an unfinished call, and a record not where the catalog says, from the run log', async () => {
    const store = await openStore(dir, SMALL);
    const done = await store.startRun();
    await done.recordResult('echo', { n: 1 }, 'one');
    await done.finish();
    const live = await store.startRun({ label: 'live' });
    // Order, not time: the command runs until the test has seen it running.
    const go = path.join(dir, 'go');
    const slow = live.runCommand(`until [ -e ${go} ]; do sleep 0.01; done; printf late`, { cwd: dir });
    // Wait until the catalog lists the running call.
    for (
      const end = Date.now() + 30_000;
      (await store.queryCalls({ offset: 0, limit: 5, outcome: 'running' })).total === 0 && Date.now() < end;
    )
      await new Promise((r) => setTimeout(r, 20));
    const running = await store.callReports({ offset: 0, limit: 5 });
    assert.deepEqual(
      running.calls.map((c) => [c.tool, c.status]),
      [
        ['run_command', 'running'],
        ['echo', 'ok'],
      ],
    );
    assert.equal(running.logReads, 2, 'the finished call read at its offset, the live run read whole once');
    writeFileSync(go, '');
    await slow;
    const after = await store.callReports({ offset: 0, limit: 5 });
    const all = await reported(store);
    assert.deepEqual(
      after.calls.map((c) => [c.tool, c.status]),
      [
        ['run_command', 'ok'],
        ['echo', 'ok'],
      ],
    );
    for (const c of after.calls) assert.deepStrictEqual(c, all.get(`${c.runId}/${c.callId}`));

    // A catalog offset that no longer points at the call's record: the run's log decides.
    const page = await store.queryCalls({ offset: 1, limit: 1 });
    const moved = {
      ...page,
      rows: page.rows.map((r) => ({ ...r, logRecord: { offset: 0, length: r.logRecord!.length } })),
    };
    const { reportPage } = await import('../../../../src/core/runs/reading/callPage.js');
    const fixed = await reportPage(moved, {
      logPath: (id) => store.logPath(id),
      report: (id) => store.report(id),
      run: () => undefined,
    });
    assert.deepStrictEqual(fixed.calls[0], all.get(`${page.rows[0]!.runId}/${page.rows[0]!.callId}`));
    assert.equal(fixed.logReads, 2);
  });
});

function c2code(all: Map<string, CallReport>, runId: string): string | undefined {
  return [...all.values()].find((c) => c.runId === runId && c.status === 'error')?.error?.code;
}
