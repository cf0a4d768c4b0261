import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { EvidenceError } from '../../../../src/core/errors.js';
import { SearchDeadlineError } from '../../../../src/core/runs/search/patternSearch.js';
import { searchAllOutputs } from '../../../../src/core/runs/reading/searchAll.js';
import { EvidenceToolTable } from '../../../../src/core/tools/table.js';
import type { ToolCallContext } from '../../../../src/core/tools/toolDef.js';
import type { RunStore } from '../../../../src/core/runs/store/runStore.js';
import { numberedLines, openStore, rejectsWith, scratch } from './helpers.js';

describe('searchAllOutputs: one pattern over every kept output, newest first', () => {
  let dir: string;
  let cleanup: () => void;
  let store: RunStore;
  const logText = numberedLines(2000, (i) => (i === 1234 ? ' ERROR disk full' : ' ok'));
  const binary = Buffer.concat([
    Buffer.from([0xff, 0xfe, 0x00]),
    Buffer.from('xxERROR:bin'),
    Buffer.from([0x00, 0x0a, 0x01]),
  ]);
  let logHandle = '';
  let stdoutHandle = '';
  let binHandle = '';
  before(async function () {
    this.timeout(30_000);
    ({ dir, cleanup } = scratch('search-all'));
    store = await openStore(dir, {
      blobs: await FsBlobStore.open(path.join(dir, 'blobs')),
      limits: { largeResultBytes: 16, previewBytes: 8 },
    });
    const a = await store.startRun();
    logHandle = (await a.recordResult('import_file', {}, logText)).handle!;
    await a.finish('completed');
    const b = await store.startRun();
    const cmd = await b.runCommand("printf 'ok\\nERROR one\\nok\\nERROR two\\n'", { cwd: dir });
    stdoutHandle = cmd.record.attachments.find((x) => x.name === 'stdout')!.handle;
    await b.finish('completed');
    const c = await store.startRun();
    binHandle = (await c.recordResult('dump', {}, binary)).handle!;
    await c.finish('completed');
  });
  after(() => cleanup());

  it('counts every match, returns newest first with handle, line, byte offset and the line shown', async () => {
    const calls: [number, number][] = [];
    const r = await searchAllOutputs(
      store,
      { pattern: 'ERROR' },
      { onProgress: (done, total) => calls.push([done, total]) },
    );
    assert.deepEqual([r.total_matches, r.outputs_matched, r.returned, r.truncated], [4, 3, 4, false]);
    assert.deepEqual(
      r.matches.map((m) => [m.handle, m.line_number, m.byte_offset, m.text]),
      [
        [binHandle, 1, 5, '\\xff\\xfe\\x00xxERROR:bin\\x00'],
        [stdoutHandle, 2, 3, 'ERROR one'],
        [stdoutHandle, 4, 16, 'ERROR two'],
        [logHandle, 1235, logText.indexOf('ERROR'), 'line 1234 ERROR disk full'],
      ],
    );
    assert.deepEqual(calls, [
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it('filters by tool and run, pages with limit while the total stays honest', async () => {
    const byTool = await searchAllOutputs(store, { pattern: 'ERROR', tool: 'import_file' });
    assert.deepEqual([byTool.total_matches, byTool.matches.map((m) => m.handle)], [1, [logHandle]]);
    const one = await searchAllOutputs(store, { pattern: 'ERROR', limit: 1 });
    assert.deepEqual([one.total_matches, one.returned, one.truncated, one.matches[0]!.handle], [4, 1, true, binHandle]);
    const none = await searchAllOutputs(store, { pattern: 'WARNING' });
    assert.deepEqual([none.total_matches, none.outputs_searched, none.matches], [0, 3, []]);
  });

  it('refuses a bad pattern or limit with one sentence, and stops when cancelled', async () => {
    await rejectsWith(
      searchAllOutputs(store, { pattern: '(' }),
      'invalidArgument',
      'pattern is not a valid regular expression: Unterminated group',
    );
    await rejectsWith(
      searchAllOutputs(store, { pattern: 'x', limit: 101 }),
      'invalidArgument',
      'limit must be an integer from 1 to 100',
    );
    const abort = new AbortController();
    abort.abort();
    await rejectsWith(
      searchAllOutputs(store, { pattern: 'x' }, { signal: abort.signal }),
      'invalidArgument',
      'pattern search cancelled',
    );
  });

  it('one time limit covers the whole search: when it passes, the answer covers the newest calls searched so far and says so', async () => {
    // The second output search meets the deadline (as the reader says it: SearchDeadlineError).
    let n = 0;
    const cutAtSecond = {
      searchTimeoutMs: 60_000,
      queryCalls: store.queryCalls.bind(store),
      readToolOutput: async (...a: Parameters<RunStore['readToolOutput']>) => {
        assert.ok(
          a[2]?.deadline !== undefined && a[2].deadline > Date.now(),
          "each output search gets the whole search's deadline",
        );
        if (++n === 2) throw new SearchDeadlineError(60_000, 10, 20);
        return store.readToolOutput(...a);
      },
    };
    const r = await searchAllOutputs(cutAtSecond, { pattern: 'ERROR' });
    assert.deepEqual([r.complete, r.time_limit_ms, r.calls_searched, r.calls_total], [false, 60_000, 1, 3]);
    // Totals and matches are exactly those of the newest call (a complete search's prefix):
    // the call cut by the limit (stdout's, the second newest) adds nothing.
    const all = await searchAllOutputs(store, { pattern: 'ERROR', limit: 100 });
    assert.equal(all.complete, undefined, 'a search that finished says nothing of a limit');
    assert.deepEqual(
      [r.total_matches, r.outputs_searched, r.matches.map((m) => [m.handle, m.line_number])],
      [1, 1, [[binHandle, 1]]],
    );
    assert.deepEqual(all.matches[0]!.handle, binHandle);
    // Another error of one output is no time limit: that output is skipped, the rest searched.
    let m = 0;
    const oneGone = {
      ...cutAtSecond,
      readToolOutput: async (...a: Parameters<RunStore['readToolOutput']>) => {
        if (++m === 1) throw new EvidenceError('missing', 'stored bytes are missing');
        return store.readToolOutput(...a);
      },
    };
    const skipped = await searchAllOutputs(oneGone, { pattern: 'ERROR' });
    assert.deepEqual([skipped.complete, skipped.total_matches, skipped.outputs_searched], [undefined, 3, 2]);
  });

  it('searches a few outputs at once (their file reads overlap) and still answers in order, newest first', async () => {
    let inFlight = 0;
    let most = 0;
    const overlapping = {
      searchTimeoutMs: 60_000,
      queryCalls: store.queryCalls.bind(store),
      readToolOutput: async (...a: Parameters<RunStore['readToolOutput']>) => {
        inFlight++;
        most = Math.max(most, inFlight);
        // Older outputs answer sooner: a search that took results as they came would reorder them.
        const order = [binHandle, stdoutHandle, logHandle].indexOf(a[0].handle);
        await new Promise((r) => setTimeout(r, 120 - 40 * Math.max(0, order)));
        try {
          return await store.readToolOutput(...a);
        } finally {
          inFlight--;
        }
      },
    };
    const r = await searchAllOutputs(overlapping, { pattern: 'ERROR' });
    const plain = await searchAllOutputs(store, { pattern: 'ERROR' });
    assert.ok(most >= 2 && most <= 4, `at most ${most} searches at once`);
    assert.deepEqual(r, plain);
  });

  it('the deadline reaches the reader: a search past it through the run store stops with SearchDeadlineError, and a whole search past its limit answers partially', async () => {
    const big = await store.startRun();
    // 8 MB of lines a slow pattern backtracks on: far more than 1 ms of work.
    const h = (await big.recordResult('big', {}, `${'a'.repeat(63)}\n`.repeat(125_000))).handle!;
    await big.finish('completed');
    await assert.rejects(
      store.readToolOutput({ handle: h, pattern: 'a.*a.*b' }, undefined, { deadline: Date.now() + 1 }),
      (e: unknown) => e instanceof SearchDeadlineError,
    );
    const r = await searchAllOutputs(store, { pattern: 'a.*a.*b' }, { timeoutMs: 1 });
    assert.deepEqual([r.complete, r.time_limit_ms, r.calls_searched, r.total_matches], [false, 1, 0, 0]);
    assert.equal(r.calls_total, 4);
  });

  it('evidence_search (the table entry): the same answer as JSON under 8 KiB, fewer matches when they would not fit, the total unchanged', async () => {
    const tool = EvidenceToolTable.evidence_search;
    assert.deepEqual(
      [tool.check({ pattern: 'x', limit: 5 }), tool.check({ pattern: 'x', extra: 1 }).ok],
      [{ ok: true, value: { pattern: 'x', limit: 5 } }, false],
    );
    const ctx = {
      runs: store,
      signal: new AbortController().signal,
      log: () => assert.fail('no failure'),
    } as unknown as ToolCallContext;
    const noRun = (): never => assert.fail('a search opens no run');
    const answer = await tool.perform!(ctx, { pattern: 'ERROR' }, noRun);
    assert.equal(answer.status, 'completed');
    assert.deepEqual(
      JSON.parse(answer.text),
      JSON.parse(JSON.stringify(await searchAllOutputs(store, { pattern: 'ERROR' }))),
    );
    // 100 matches of 2,000-character lines cannot fit: fewer are returned, the total stays 2000.
    const wide = await store.startRun();
    await wide.recordResult('wide', {}, `${'W'.repeat(1990)} HIT\n`.repeat(2000));
    await wide.finish('completed');
    const fitted = await tool.perform!(ctx, { pattern: 'HIT', limit: 100 }, noRun);
    const r = JSON.parse(fitted.text) as {
      total_matches: number;
      returned: number;
      truncated: boolean;
      matches: unknown[];
    };
    assert.ok(Buffer.byteLength(fitted.text) < 8192, `${Buffer.byteLength(fitted.text)} bytes`);
    assert.deepEqual(
      [r.total_matches, r.truncated, r.matches.length === r.returned, r.returned >= 1 && r.returned < 100],
      [2000, true, true, true],
    );
    const bad = await tool.perform!(ctx, { pattern: '(' }, noRun);
    assert.deepEqual(
      [bad.text, bad.status],
      ['error: pattern is not a valid regular expression: Unterminated group', 'failed'],
    );
  });
});
