import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { FsBlobStore } from '../../../src/core/blobs/fsBlobStore.js';
import { EvidenceError } from '../../../src/core/errors.js';
import { searchDeadlineMessage } from '../../../src/core/runs/patternSearch.js';
import { searchAllOutputs } from '../../../src/core/runs/searchAll.js';
import { EvidenceToolTable } from '../../../src/core/tools/table.js';
import type { ToolCallContext } from '../../../src/core/tools/toolDef.js';
import type { RunStore } from '../../../src/core/runs/runStore.js';
import { numberedLines, openStore, rejectsWith, scratch } from './helpers.js';

describe('searchAllOutputs: one pattern over every kept output, newest first', () => {
  let dir: string; let cleanup: () => void; let store: RunStore;
  const logText = numberedLines(2000, (i) => (i === 1234 ? ' ERROR disk full' : ' ok'));
  const binary = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from('xxERROR:bin'), Buffer.from([0x00, 0x0a, 0x01])]);
  let logHandle = ''; let stdoutHandle = ''; let binHandle = '';
  before(async function () {
    this.timeout(30_000);
    ({ dir, cleanup } = scratch('search-all'));
    store = await openStore(dir, { blobs: await FsBlobStore.open(path.join(dir, 'blobs')), limits: { largeResultBytes: 16, previewBytes: 8 } });
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
    const r = await searchAllOutputs(store, { pattern: 'ERROR' }, { onProgress: (done, total) => calls.push([done, total]) });
    assert.deepEqual([r.total_matches, r.outputs_matched, r.returned, r.truncated], [4, 3, 4, false]);
    assert.deepEqual(r.matches.map((m) => [m.handle, m.line_number, m.byte_offset, m.text]), [
      [binHandle, 1, 5, '\\xff\\xfe\\x00xxERROR:bin\\x00'],
      [stdoutHandle, 2, 3, 'ERROR one'],
      [stdoutHandle, 4, 16, 'ERROR two'],
      [logHandle, 1235, logText.indexOf('ERROR'), 'line 1234 ERROR disk full'],
    ]);
    assert.deepEqual(calls, [[1, 3], [2, 3], [3, 3]]);
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
    await rejectsWith(searchAllOutputs(store, { pattern: '(' }), 'invalidArgument', 'pattern is not a valid regular expression: Unterminated group');
    await rejectsWith(searchAllOutputs(store, { pattern: 'x', limit: 101 }), 'invalidArgument', 'limit must be an integer from 1 to 100');
    const abort = new AbortController();
    abort.abort();
    await rejectsWith(searchAllOutputs(store, { pattern: 'x' }, { signal: abort.signal }), 'invalidArgument', 'pattern search cancelled');
  });

  it('one time limit covers the whole search: when it passes, the answer covers the newest calls searched so far and says so', async () => {
    // Each output search is made to take 100 ms more (and, like the reader, to stop at the
    // deadline it is given); a 250 ms limit lets the newest calls through, not all three.
    const slow = {
      searchTimeoutMs: 250,
      queryCalls: store.queryCalls.bind(store),
      readToolOutput: async (...a: Parameters<RunStore['readToolOutput']>) => {
        await new Promise((r) => setTimeout(r, 100));
        if (Date.now() >= a[2]!.deadline!) throw new EvidenceError('invalidArgument', searchDeadlineMessage(250, 0, 1));
        return store.readToolOutput(...a);
      },
    };
    const r = await searchAllOutputs(slow, { pattern: 'ERROR' });
    assert.equal(r.complete, false);
    assert.equal(r.time_limit_ms, 250);
    assert.equal(r.calls_total, 3);
    assert.ok(r.calls_searched! >= 1 && r.calls_searched! < 3, `calls searched: ${r.calls_searched}`);
    // Totals and matches are exactly those of the newest calls_searched calls (a complete search's prefix).
    const all = await searchAllOutputs(store, { pattern: 'ERROR', limit: 100 });
    assert.equal(all.complete, undefined, 'a search that finished says nothing of a limit');
    const newest = (await store.queryCalls({ offset: 0, limit: r.calls_searched!, order: 'newest' })).rows.map((c) => c.runId);
    const expected = all.matches.filter((m) => newest.includes(m.runId));
    assert.deepEqual([r.total_matches, r.matches.map((m) => [m.handle, m.line_number])], [expected.length, expected.map((m) => [m.handle, m.line_number])]);
    // The deadline ends a search inside an output too: that call then adds nothing.
    const inside = { ...slow, searchTimeoutMs: 60_000, readToolOutput: async (...a: Parameters<RunStore['readToolOutput']>) => {
      assert.ok(a[2]?.deadline !== undefined && a[2].deadline > Date.now(), 'each output search gets the whole search\'s deadline');
      if (a[0].handle === stdoutHandle) throw new EvidenceError('invalidArgument', searchDeadlineMessage(60_000, 10, 20));
      return store.readToolOutput(...a);
    } };
    const cut = await searchAllOutputs(inside, { pattern: 'ERROR' });
    const order = (await store.queryCalls({ offset: 0, limit: 10, order: 'newest' })).rows.map((c) => c.runId);
    const stdoutRun = (await store.openHandle(stdoutHandle)).runId;
    assert.deepEqual([cut.complete, cut.calls_searched, cut.calls_total], [false, order.indexOf(stdoutRun), 3]);
    assert.ok(!cut.matches.some((m) => m.handle === stdoutHandle || m.handle === logHandle));
  });
  it('evidence_search (the table entry): the same answer as JSON under 8 KiB, fewer matches when they would not fit, the total unchanged', async () => {
    const tool = EvidenceToolTable.evidence_search;
    assert.deepEqual([tool.check({ pattern: 'x', limit: 5 }), tool.check({ pattern: 'x', extra: 1 }).ok], [{ ok: true, value: { pattern: 'x', limit: 5 } }, false]);
    const ctx = { runs: store, signal: new AbortController().signal, log: () => assert.fail('no failure') } as unknown as ToolCallContext;
    const noRun = (): never => assert.fail('a search opens no run');
    const answer = await tool.perform!(ctx, { pattern: 'ERROR' }, noRun);
    assert.equal(answer.status, 'completed');
    assert.deepEqual(JSON.parse(answer.text), JSON.parse(JSON.stringify(await searchAllOutputs(store, { pattern: 'ERROR' }))));
    // 100 matches of 2,000-character lines cannot fit: fewer are returned, the total stays 2000.
    const wide = await store.startRun();
    await wide.recordResult('wide', {}, `${'W'.repeat(1990)} HIT\n`.repeat(2000));
    await wide.finish('completed');
    const fitted = await tool.perform!(ctx, { pattern: 'HIT', limit: 100 }, noRun);
    const r = JSON.parse(fitted.text) as { total_matches: number; returned: number; truncated: boolean; matches: unknown[] };
    assert.ok(Buffer.byteLength(fitted.text) < 8192, `${Buffer.byteLength(fitted.text)} bytes`);
    assert.deepEqual([r.total_matches, r.truncated, r.matches.length === r.returned, r.returned >= 1 && r.returned < 100], [2000, true, true, true]);
    const bad = await tool.perform!(ctx, { pattern: '(' }, noRun);
    assert.deepEqual([bad.text, bad.status], ['error: pattern is not a valid regular expression: Unterminated group', 'failed']);
  });

});
