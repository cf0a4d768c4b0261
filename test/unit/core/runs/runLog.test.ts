import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { appendRecord, checkRecord, readRunLog, terminateTornTail } from '../../../../src/core/runs/log/runLog.js';
import type { CallFinishedRecord, RunRecord } from '../../../../src/core/runs/types.js';
import { scratch, sha } from './helpers.js';

const runId = 'run-1';
const started: RunRecord = {
  type: 'run_started',
  runId,
  tenant: 't',
  startedAt: '2026-01-01T00:00:00.000Z',
  profileHash: 'a'.repeat(64),
};
const callStarted: RunRecord = {
  type: 'call_started',
  runId,
  callId: 'abc-1',
  tool: 'x',
  arguments: { q: 1 },
  startedAt: '2026-01-01T00:00:01.000Z',
};
const finished: CallFinishedRecord = {
  type: 'call_finished',
  runId,
  callId: 'abc-1',
  tool: 'x',
  arguments: { q: 1 },
  startedAt: '2026-01-01T00:00:01.000Z',
  finishedAt: '2026-01-01T00:00:02.000Z',
  status: 'ok',
  resultBytes: 2,
  elided: false,
  contentType: 'text/plain; charset=utf-8',
  sha256: sha('hi'),
  stored: 'inline',
  inline: 'hi',
  preview: 'hi',
  lineCount: 1,
  binary: false,
  readable: true,
  attachments: [
    {
      name: 'stdout',
      slot: 'stdout',
      handle: 'out_abc-1_stdout',
      contentType: 'text/plain; charset=utf-8',
      sizeBytes: 2,
      observedBytes: 5,
      truncated: true,
      stored: 'inline',
      inline: 'hi',
      sha256: sha('hi'),
      preview: 'hi',
      lineCount: 1,
      binary: false,
      readable: true,
    },
  ],
};
const runFinished: RunRecord = {
  type: 'run_finished',
  runId,
  finishedAt: '2026-01-01T00:00:03.000Z',
  status: 'completed',
};

describe('run log (JSON Lines, append-only)', () => {
  let dir: string;
  let cleanup: () => void;
  let file: string;
  beforeEach(() => {
    ({ dir, cleanup } = scratch('runlog'));
    file = path.join(dir, `${runId}.jsonl`);
  });
  afterEach(() => cleanup());

  it('writes one line per record and reads every record back', async () => {
    await appendRecord(file, started, 'wx');
    for (const r of [callStarted, finished, runFinished]) await appendRecord(file, r);
    const text = readFileSync(file, 'utf8');
    assert.equal(text, [started, callStarted, finished, runFinished].map((r) => JSON.stringify(r) + '\n').join(''));
    const log = await readRunLog(file, runId);
    assert.deepEqual(log.records, [started, callStarted, finished, runFinished]);
    assert.deepEqual(log.problems, []);
    assert.equal(log.tornTail, false);
    assert.equal(log.sizeBytes, Buffer.byteLength(text));
  });

  it('never overwrites an existing run log when creating one', async () => {
    await appendRecord(file, started, 'wx');
    await assert.rejects(appendRecord(file, started, 'wx'), /EEXIST/);
  });

  it('keeps every one of 200 concurrent appends as its own line', async () => {
    await appendRecord(file, started, 'wx');
    await Promise.all(Array.from({ length: 200 }, (_, i) => appendRecord(file, { ...callStarted, callId: `c-${i}` })));
    const log = await readRunLog(file, runId);
    assert.equal(log.records.length, 201);
    assert.deepEqual(log.problems, []);
    assert.deepEqual(new Set(log.records.slice(1).map((r) => (r as { callId: string }).callId)).size, 200);
  });

  it('ignores and reports a torn last line; no earlier record is lost', async () => {
    await appendRecord(file, started, 'wx');
    await appendRecord(file, callStarted);
    appendFileSync(file, JSON.stringify(finished).slice(0, 57));
    const log = await readRunLog(file, runId);
    assert.deepEqual(log.records, [started, callStarted]);
    assert.equal(log.tornTail, true);
    assert.deepEqual(log.problems, [
      { line: 3, kind: 'torn_tail', detail: 'last line is incomplete (interrupted write)' },
    ]);
  });

  it('after a torn tail, the next append starts on its own line and the torn bytes read as one bad line', async () => {
    await appendRecord(file, started, 'wx');
    appendFileSync(file, '{"type":"call_sta');
    await terminateTornTail(file);
    await terminateTornTail(file); // idempotent: one newline only
    await appendRecord(file, runFinished);
    const log = await readRunLog(file, runId);
    assert.deepEqual(log.records, [started, runFinished]);
    assert.equal(log.tornTail, false);
    assert.deepEqual(log.problems, [{ line: 2, kind: 'invalid_json', detail: 'line is not JSON' }]);
  });

  it('accepts a complete, valid last record that only lacks its newline', async () => {
    writeFileSync(file, JSON.stringify(started) + '\n' + JSON.stringify(runFinished));
    const log = await readRunLog(file, runId);
    assert.deepEqual(log.records, [started, runFinished]);
    assert.equal(log.tornTail, false);
  });

  it('reports a valid-JSON line of the wrong shape, skips it and keeps reading', async () => {
    const lines = [
      JSON.stringify(started),
      JSON.stringify({ type: 'call_finished', runId }),
      '[1,2,3]',
      '42',
      JSON.stringify({ ...runFinished, runId: 'run-2' }),
      JSON.stringify({ type: 'run_exploded', runId }),
      JSON.stringify({ ...finished, sha256: 'XYZ' }),
      JSON.stringify({ ...finished, resultHandle: 'res_other-9' }),
      JSON.stringify({ ...finished, attachments: [{ ...finished.attachments[0], handle: 'out_zzz-1_stdout' }] }),
      JSON.stringify({ ...finished, attachments: [{ ...finished.attachments[0], observedBytes: 1 }] }),
      JSON.stringify({ ...finished, stored: 'blob', inline: undefined }),
      JSON.stringify({ ...finished, attachments: [finished.attachments[0], finished.attachments[0]] }),
      JSON.stringify(callStarted),
    ];
    writeFileSync(file, lines.join('\n') + '\n');
    const log = await readRunLog(file, runId);
    assert.deepEqual(log.records, [started, callStarted]);
    assert.deepEqual(log.problems, [
      { line: 2, kind: 'wrong_shape', detail: 'call_finished: field callId is missing or invalid' },
      { line: 3, kind: 'wrong_shape', detail: 'record is not an object' },
      { line: 4, kind: 'wrong_shape', detail: 'record is not an object' },
      { line: 5, kind: 'wrong_shape', detail: 'record belongs to another run' },
      { line: 6, kind: 'wrong_shape', detail: 'unknown record type' },
      { line: 7, kind: 'wrong_shape', detail: 'call_finished: field sha256 is missing or invalid' },
      { line: 8, kind: 'wrong_shape', detail: 'call_finished: field resultHandle is missing or invalid' },
      { line: 9, kind: 'wrong_shape', detail: 'call_finished: field attachment handle is missing or invalid' },
      { line: 10, kind: 'wrong_shape', detail: 'call_finished: field attachment observedBytes is missing or invalid' },
      { line: 11, kind: 'wrong_shape', detail: 'call_finished: field manifestDigest is missing or invalid' },
      { line: 12, kind: 'wrong_shape', detail: 'call_finished: attachment slot is repeated' },
    ]);
  });

  it('a record claims a minted handle (res_ or out_ and 26 base32 characters) or the form records before them derived from the call; nothing else, and no handle twice', () => {
    const minted = (p: string, c: string): string => `${p}_${c.repeat(26)}`;
    const withHandles = (result: string | undefined, out: string): Record<string, unknown> => ({
      ...finished,
      elided: result !== undefined,
      ...(result !== undefined ? { resultHandle: result } : {}),
      attachments: [{ ...finished.attachments[0], handle: out }],
    });
    assert.equal(checkRecord(withHandles(minted('res', 'a'), minted('out', '7')), runId), undefined);
    assert.equal(checkRecord(withHandles('res_abc-1', 'out_abc-1_stdout'), runId), undefined);
    assert.equal(checkRecord(withHandles(minted('res', 'a'), 'out_abc-1_stdout'), runId), undefined);
    for (const bad of [
      minted('res', 'A'),
      minted('res', '1'),
      `res_${'a'.repeat(25)}`,
      `res_${'a'.repeat(27)}`,
      minted('out', 'a'),
      'res_abc-2',
      `${minted('res', 'a')}\n`,
    ]) {
      assert.equal(
        checkRecord(withHandles(bad, minted('out', 'b')), runId),
        'call_finished: field resultHandle is missing or invalid',
        JSON.stringify(bad),
      );
    }
    for (const bad of [
      minted('out', '8'),
      `out_${'b'.repeat(25)}`,
      minted('res', 'b'),
      'out_abc-1_stderr',
      'out_abc-2_stdout',
    ]) {
      assert.equal(
        checkRecord(withHandles(undefined, bad), runId),
        'call_finished: field attachment handle is missing or invalid',
        JSON.stringify(bad),
      );
    }
    // One handle for the result and an output, or for two outputs: the record mints neither.
    assert.equal(checkRecord(withHandles('res_abc-1', minted('out', 'c')), runId), undefined);
    const twice = {
      ...finished,
      attachments: [
        { ...finished.attachments[0], handle: minted('out', 'c') },
        { ...finished.attachments[0], slot: 'stderr', name: 'stderr', handle: minted('out', 'c') },
      ],
    };
    assert.equal(checkRecord(twice, runId), 'call_finished: a handle is repeated');
  });

  it('accepts every record type the contract lists, with all call_finished fields', () => {
    for (const r of [
      started,
      callStarted,
      finished,
      runFinished,
      { type: 'run_pinned', runId, pinned: true, at: '2026-01-01T00:00:00.000Z' },
    ]) {
      assert.equal(checkRecord(r, runId), undefined);
    }
    for (const field of [
      'resultBytes',
      'contentType',
      'preview',
      'sha256',
      'stored',
      'attachments',
      'status',
      'tool',
      'arguments',
      'finishedAt',
      'binary',
      'lineCount',
      'readable',
      'elided',
    ]) {
      const broken: Record<string, unknown> = { ...finished };
      delete broken[field];
      assert.equal(checkRecord(broken, runId), `call_finished: field ${field} is missing or invalid`, field);
    }
    for (const field of [
      'name',
      'handle',
      'contentType',
      'sizeBytes',
      'observedBytes',
      'truncated',
      'stored',
      'sha256',
      'readable',
    ]) {
      const a: Record<string, unknown> = { ...finished.attachments[0] };
      delete a[field];
      assert.equal(
        checkRecord({ ...finished, attachments: [a] }, runId),
        `call_finished: field attachment ${field} is missing or invalid`,
        field,
      );
    }
  });
});
