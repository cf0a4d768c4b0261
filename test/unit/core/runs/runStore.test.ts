import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync, readdirSync, utimesSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { encodeManifest, manifestOf } from '../../../../src/core/integrity/integrity.js';
import { omissionMarker } from '../../../../src/core/runs/recording/decisions.js';
import { RunStore } from '../../../../src/core/runs/store/runStore.js';
import type { RunRecordEvent } from '../../../../src/core/runs/types.js';
import { openStore, rejectsWith, scratch, sha } from './helpers.js';

const DENIED = 'access denied: unknown or expired handle';

describe('RunStore and Run: records, thresholds, storage (docs/contracts.md §2.1, §2.2)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('runstore')));
  afterEach(() => cleanup());

  it('records run_started, call_started, call_finished (every field) and run_finished as JSON Lines', async () => {
    const store = await openStore(dir, { blobs: new MemoryBlobStore(), tools: ['read_file'] });
    const run = await store.startRun({ label: 'demo' });
    assert.match(run.runId, /^run-\d{8}T\d{6}-[0-9a-f]{10}$/);
    const out = await run.recordResult('read_file', { path: 'a.txt' }, 'hello\n');
    await run.finish();
    const lines = readFileSync(path.join(dir, 'logs', 'tenant-a', `${run.runId}.jsonl`), 'utf8').split('\n');
    assert.equal(lines.pop(), '');
    const recs = lines.map((l) => JSON.parse(l));
    assert.deepEqual(
      recs.map((r) => r.type),
      ['run_started', 'call_started', 'call_finished', 'run_finished'],
    );
    assert.deepEqual(Object.keys(recs[0]).sort(), [
      'label',
      'owner',
      'profileHash',
      'runId',
      'startedAt',
      'tenant',
      'type',
    ]);
    assert.deepEqual([recs[0].owner.host, recs[0].owner.pid], [os.hostname(), process.pid]);
    assert.equal(recs[0].profileHash, store.profileHash);
    const f = recs[2];
    assert.deepEqual(
      { ...f, startedAt: 'T', finishedAt: 'T' },
      {
        type: 'call_finished',
        runId: run.runId,
        callId: out.callId,
        tool: 'read_file',
        arguments: { path: 'a.txt' },
        startedAt: 'T',
        finishedAt: 'T',
        status: 'ok',
        resultBytes: 6,
        elided: false,
        contentType: 'text/plain; charset=utf-8',
        sha256: sha('hello\n'),
        stored: 'inline',
        preview: 'hello\n',
        inline: 'hello\n',
        lineCount: 1,
        binary: false,
        readable: true,
        attachments: [],
      },
    );
    assert.deepEqual(out, { callId: out.callId, status: 'ok', modelText: 'hello\n', record: f });
    assert.equal(recs[3].status, 'completed');
  });

  it('elision boundary: exactly largeResultBytes stays whole, one more byte gets a handle and a preview', async () => {
    const store = await openStore(dir, {
      blobs: new MemoryBlobStore(),
      limits: { largeResultBytes: 100, previewBytes: 20 },
    });
    const run = await store.startRun();
    const exact = await run.recordResult('t', {}, 'x'.repeat(100));
    assert.equal(exact.handle, undefined);
    assert.equal(exact.modelText, 'x'.repeat(100));
    assert.equal(exact.record.elided, false);
    const over = await run.recordResult('t', {}, 'y'.repeat(101));
    assert.match(over.handle!, /^res_[a-z2-7]{26}$/);
    assert.equal(over.record.elided, true);
    assert.equal(over.record.stored, 'inline');
    assert.equal(over.record.preview, `${'y'.repeat(10)}${omissionMarker(81)}${'y'.repeat(10)}`);
    assert.deepEqual(over.record.previewRange, { headEnd: 10, tailStart: 91 });
    assert.equal(
      over.modelText,
      [
        `Tool result elided: 101 bytes (1 line, sha256 ${sha('y'.repeat(101))}), handle ${over.handle}.`,
        `Read more: read_tool_output {"handle":"${over.handle}"} with "pattern" (regex), "offset"/"limit" or "bytes"`,
        `Preview:\n${over.record.preview}`,
      ].join('\n'),
    );
    const back = await store.readToolOutput({ handle: over.handle! });
    assert.equal(back.content, 'y'.repeat(101));
  });

  it('offload boundary: exactly the threshold stays inline, one more goes to the blob store; offload forces elision', async () => {
    const blobs = new MemoryBlobStore();
    const store = await openStore(dir, {
      blobs,
      limits: { largeResultBytes: 1_000_000, previewBytes: 64 },
      offloadThresholdBytes: 1000,
    });
    const run = await store.startRun();
    const atThreshold = await run.recordResult('t', {}, 'a'.repeat(1000));
    assert.deepEqual(
      [atThreshold.record.stored, atThreshold.record.elided, atThreshold.handle],
      ['inline', false, undefined],
    );
    const over = await run.recordResult('t', {}, 'b'.repeat(1001));
    assert.deepEqual(
      [over.record.stored, over.record.elided, over.handle, over.record.resultHandle],
      ['blob', true, over.record.resultHandle, over.handle],
    );
    assert.match(over.handle!, /^res_[a-z2-7]{26}$/);
    assert.equal(over.record.inline, undefined);
    const data = Buffer.from('b'.repeat(1001));
    assert.equal(over.record.manifestDigest, sha(encodeManifest(manifestOf(data))));
    assert.deepEqual(
      Buffer.from(blobs.rawObject({ tenant: 'tenant-a', runId: run.runId, callId: over.callId })!),
      data,
    );
  });

  it('structured results are measured and previewed as compact JSON', async () => {
    const store = await openStore(dir, {
      blobs: new MemoryBlobStore(),
      limits: { largeResultBytes: 27, previewBytes: 10 },
    });
    const run = await store.startRun();
    const value = { items: [1, 2, 3], ok: true }; // {"items":[1,2,3],"ok":true} = 27 bytes
    const whole = await run.recordResult('t', {}, value);
    assert.deepEqual(
      [whole.record.resultBytes, whole.record.contentType, whole.modelText, whole.record.elided],
      [27, 'application/json', '{"items":[1,2,3],"ok":true}', false],
    );
    const big = await run.recordResult('t', {}, { ...value, more: 'x' });
    assert.equal(big.record.resultBytes, 38); // {"items":[1,2,3],"ok":true,"more":"x"}
    assert.equal(big.record.preview, `{"ite${omissionMarker(28)}:"x"}`);
  });

  it('stores text byte for byte (CRLF, BOM, lone surrogate as TextEncoder encodes it)', async () => {
    const store = await openStore(dir, {
      blobs: new MemoryBlobStore(),
      limits: { largeResultBytes: 8, previewBytes: 8 },
    });
    const run = await store.startRun();
    const text = '\ufeffa\r\nb\ud800c\n'.repeat(4);
    const out = await run.recordResult('t', {}, text);
    assert.equal(out.record.sha256, sha(new TextEncoder().encode(text)));
    const src = await store.openHandle(out.handle!);
    assert.deepEqual(Buffer.from(await src.readRange(0, src.byteCount)), Buffer.from(new TextEncoder().encode(text)));
  });

  it('binary results are always elided, reported and never rendered', async () => {
    const store = await openStore(dir, { blobs: new MemoryBlobStore() });
    const run = await store.startRun();
    const out = await run.recordResult('t', {}, Uint8Array.from([0xff, 0x00, 0xfe]));
    assert.equal(out.record.binary, true);
    assert.equal(out.record.contentType, 'application/octet-stream');
    assert.equal(out.record.inlineBase64, '/wD+');
    assert.equal(out.record.preview, '');
    assert.ok(out.modelText.includes('Binary content is not shown as text.'));
    const r = await store.readToolOutput({ handle: out.handle! });
    assert.deepEqual([r.binary, r.total_size_bytes, r.content], [true, 3, '']);
  });

  it("a read may ask for a larger content cap (the inspector's block of matches), never a smaller one", async () => {
    const store = await openStore(dir, { blobs: new MemoryBlobStore() });
    const run = await store.startRun();
    // 2,000 matching lines of 30 characters: 62,000 characters of `<n>:<line>` for all of them.
    const text =
      Array.from({ length: 2000 }, (_, i) => `match ${String(i).padStart(6, '0')} ${'x'.repeat(16)}`).join('\n') + '\n';
    const out = await run.recordResult('t', {}, text);
    const plain = await store.readToolOutput({ handle: out.handle!, pattern: '^match', limit: 1000 });
    const wide = await store.readToolOutput({ handle: out.handle!, pattern: '^match', limit: 1000 }, undefined, {
      maxContentChars: 500_000,
    });
    const lower = await store.readToolOutput({ handle: out.handle!, pattern: '^match', limit: 1000 }, undefined, {
      maxContentChars: 100,
    });
    assert.equal(plain.total_matches, 2000);
    assert.ok(plain.returned_lines! < 1000 && plain.content.length <= 10_000, `${plain.returned_lines}`);
    assert.equal(wide.returned_lines, 1000);
    assert.equal(
      wide.content,
      text
        .split('\n')
        .slice(0, 1000)
        .map((l, i) => `${i + 1}:${l}`)
        .join('\n'),
    );
    assert.deepEqual([lower.returned_lines, lower.content], [plain.returned_lines, plain.content]);
  });

  it('no blob store: results still elide; a result needing offload is an explicit failure, not inline', async () => {
    const store = await openStore(dir, {
      limits: { largeResultBytes: 100, previewBytes: 20 },
      offloadThresholdBytes: 1000,
    });
    const run = await store.startRun();
    const elided = await run.recordResult('t', {}, 'e'.repeat(500));
    assert.deepEqual([elided.record.stored, elided.record.elided, elided.status], ['inline', true, 'ok']);
    assert.equal((await store.readToolOutput({ handle: elided.handle! })).content, 'e'.repeat(500));
    const failed = await run.recordResult('t', {}, 'f'.repeat(5000));
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.record.error, {
      code: 'blob_store_required',
      message: 'the result (5000 bytes) needs a blob store and none is configured',
    });
    assert.deepEqual(
      [failed.record.stored, failed.record.readable, failed.record.inline, failed.record.resultBytes],
      ['preview_only', false, undefined, 5000],
    );
    assert.equal(failed.record.sha256, sha('f'.repeat(5000)));
    assert.ok(
      failed.modelText.startsWith(
        `Tool result not kept: 5000 bytes (1 line, sha256 ${sha('f'.repeat(5000))}) need a blob store and none is configured; 4980 bytes were let go.`,
      ),
    );
    await rejectsWith(
      store.readToolOutput({ handle: failed.handle! }),
      'missing',
      'tool output was not kept (no blob store was configured): only its preview was recorded',
    );
  });

  it('the profile hash follows the agent limits and tools, never the storage wiring', async () => {
    const a = await openStore(dir, { blobs: new MemoryBlobStore(), tools: ['x', 'y'], offloadThresholdBytes: 1000 });
    const b = await openStore(dir, {
      blobs: await FsBlobStore.open(path.join(dir, 'blobs')),
      tools: ['y', 'x'],
      offloadThresholdBytes: 99_999,
    });
    const c = await openStore(dir, { tools: ['x', 'y'] });
    const d = await openStore(dir, { tools: ['x', 'y'], limits: { largeResultBytes: 4097 } });
    assert.equal(a.profileHash, b.profileHash);
    assert.equal(a.profileHash, c.profileHash);
    assert.notEqual(a.profileHash, d.profileHash);
  });

  it('rejects invalid options and tenants before touching the disk', async () => {
    await rejectsWith(
      RunStore.open({ logsDir: dir, tenant: '../x' }),
      'invalidArgument',
      'tenant is not a safe path segment',
    );
    await rejectsWith(
      RunStore.open({ logsDir: dir, tenant: 't', limits: { largeResultBytes: 0 } }),
      'invalidArgument',
      'largeResultBytes must be a positive integer',
    );
    await rejectsWith(
      RunStore.open({ logsDir: dir, tenant: 't', reader: { maxLineChars: 20_000 } }),
      'invalidArgument',
      'maxLineChars must exceed the cut marker and not exceed maxContentChars',
    );
    assert.deepEqual(readdirSync(dir), []);
  });

  it('lists runs with status, pin, call count, bytes and torn tails; reports calls with the preview the model saw', async () => {
    const store = await openStore(dir, {
      blobs: new MemoryBlobStore(),
      limits: { largeResultBytes: 10, previewBytes: 4 },
    });
    const r1 = await store.startRun({ label: 'first' });
    const c1 = await r1.recordResult('t', { n: 1 }, '0123456789abc');
    await r1.finish('failed');
    const r2 = await store.startRun({ pinned: true });
    await r2.recordResult('t', {}, 'x');
    const list = await store.listRuns();
    // Newest first.
    assert.deepEqual(
      list.map((r) => [r.runId, r.status, r.pinned, r.callCount, r.label]),
      [
        [r2.runId, 'running', true, 1, undefined],
        [r1.runId, 'failed', false, 1, 'first'],
      ],
    );
    const logBytes = readFileSync(store.logPath(r1.runId)).length;
    assert.equal(list.find((r) => r.runId === r1.runId)!.totalBytes, logBytes);
    const report = await store.report(r1.runId);
    assert.equal(report.length, 1);
    assert.deepEqual(
      { ...report[0], startedAt: 'T', finishedAt: 'T' },
      {
        runId: r1.runId,
        callId: c1.callId,
        tool: 't',
        arguments: { n: 1 },
        status: 'ok',
        error: undefined,
        startedAt: 'T',
        finishedAt: 'T',
        resultBytes: 13,
        elided: true,
        handle: c1.handle,
        preview: `01${omissionMarker(9)}bc`,
        previewRange: { headEnd: 2, tailStart: 11 },
        sha256: sha('0123456789abc'),
        stored: 'inline',
        readable: true,
        contentType: 'text/plain; charset=utf-8',
        lineCount: 1,
        binary: false,
        attachments: [],
      },
    );
    // A crash mid-append: the torn tail is reported, nothing earlier is lost.
    appendFileSync(store.logPath(r1.runId), '{"type":"run_pinned","ru');
    const again = (await store.listRuns()).find((r) => r.runId === r1.runId)!;
    assert.equal(again.tornTail, true);
    assert.equal(again.callCount, 1);
    assert.deepEqual(again.problems, [
      { line: 5, kind: 'torn_tail', detail: 'last line is incomplete (interrupted write)' },
    ]);
    // Pinning a run with a torn tail appends after a newline: the pin is read, the torn line reported.
    await store.setPinned(r1.runId, true);
    const pinned = (await store.listRuns()).find((r) => r.runId === r1.runId)!;
    assert.deepEqual(
      [pinned.pinned, pinned.tornTail, pinned.problems.map((p) => p.kind)],
      [true, false, ['invalid_json']],
    );
  });

  it('an unfinished run not live in this store and idle for long is interrupted; its open call too', async () => {
    const s1 = await openStore(dir);
    const run = await s1.startRun();
    await run.recordResult('t', {}, 'x');
    const s2 = await openStore(dir);
    assert.equal((await s2.listRuns())[0]!.status, 'running'); // touched recently: another window may own it
    const old = new Date(Date.now() - 3600_000);
    utimesSync(s1.logPath(run.runId), old, old);
    assert.equal((await s2.listRuns())[0]!.status, 'interrupted');
  });

  it('notifies listeners of every record it appends', async () => {
    const store = await openStore(dir);
    const events: RunRecordEvent[] = [];
    const sub = store.onDidRecord((e) => events.push(e));
    store.onDidRecord(() => {
      throw new Error('a bad listener');
    });
    const run = await store.startRun();
    await run.recordResult('t', {}, 'x');
    await run.finish();
    sub.dispose();
    await store.setPinned(run.runId, true);
    assert.deepEqual(
      events.map((e) => [e.runId, e.record.type]),
      [
        [run.runId, 'run_started'],
        [run.runId, 'call_started'],
        [run.runId, 'call_finished'],
        [run.runId, 'run_finished'],
      ],
    );
  });

  it('handles minted before a reload still resolve in a new store over the same folders', async () => {
    const blobs = await FsBlobStore.open(path.join(dir, 'blobs'));
    const s1 = await openStore(dir, { blobs, offloadThresholdBytes: 100 });
    const run = await s1.startRun();
    const out = await run.recordResult('t', {}, 'z'.repeat(5000));
    const s2 = await openStore(dir, {
      blobs: await FsBlobStore.open(path.join(dir, 'blobs')),
      offloadThresholdBytes: 100,
    });
    assert.equal(
      (await s2.readToolOutput({ handle: out.handle!, bytes: { start: 4990, end: 5000 } })).content,
      'z'.repeat(10),
    );
  });

  it('deletes and prunes: oldest unpinned first, never pinned or running runs; deleted handles are denied', async () => {
    const blobs = new MemoryBlobStore();
    const store = await openStore(dir, { blobs, offloadThresholdBytes: 100 });
    const runs = [];
    for (let i = 0; i < 4; i++) {
      const r = await store.startRun({ label: `r${i}` });
      const out = await r.recordResult('t', {}, String(i).repeat(10_000));
      if (i < 3) await r.finish();
      runs.push({ r, out });
    }
    await store.setPinned(runs[0]!.r.runId, true);
    await rejectsWith(store.deleteRun(runs[3]!.r.runId), 'invalidArgument', 'run is still in progress');
    await rejectsWith(store.deleteRun('../../etc'), 'invalidArgument', 'unknown run');
    const before = await store.listRuns();
    const size = (id: string): number => before.find((r) => r.runId === id)!.totalBytes;
    // What counts: the runs and the catalog's own files (docs/contracts.md §2.7).
    const total = (await store.totals()).bytes;
    assert.ok(total > before.reduce((n, r) => n + r.totalBytes, 0));
    // Budget allows all but one byte: the oldest unpinned, finished run (r1) goes.
    const res = await store.prune({ maxBytes: total - 1 });
    assert.deepEqual(res, { deletedRuns: [runs[1]!.r.runId], freedBytes: size(runs[1]!.r.runId) });
    await rejectsWith(store.readToolOutput({ handle: runs[1]!.out.handle! }), 'accessDenied', DENIED);
    assert.equal(
      blobs.rawObject({ tenant: 'tenant-a', runId: runs[1]!.r.runId, callId: runs[1]!.out.callId }),
      undefined,
    );
    // Age: everything finished is old at now+1 day, but pinned r0 and running r3 stay.
    const aged = await store.prune({ maxAgeMs: 60_000, now: Date.now() + 86_400_000 });
    assert.deepEqual(aged.deletedRuns, [runs[2]!.r.runId]);
    assert.deepEqual((await store.listRuns()).map((r) => r.runId).sort(), [runs[0]!.r.runId, runs[3]!.r.runId].sort());
    assert.equal((await store.readToolOutput({ handle: runs[0]!.out.handle!, limit: 1 })).total_size_bytes, 10_000);
  });

  it('records a streamed result (recordStream) in bounded pieces', async () => {
    const blobs = new MemoryBlobStore();
    const store = await openStore(dir, { blobs });
    const run = await store.startRun();
    async function* gen(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 48; i++) yield Buffer.alloc(65_536, 97 + (i % 26));
    }
    const out = await run.recordStream('import_file', { path: 'big.bin' }, gen());
    assert.deepEqual(
      [out.record.resultBytes, out.record.stored, out.record.lineCount, out.record.binary],
      [48 * 65_536, 'blob', 1, false],
    );
    const r = await store.readToolOutput({ handle: out.handle!, bytes: { start: 65_530, end: 65_540 } });
    assert.equal(r.content, 'aaaaaabbbb');
  });

  it('refuses calls on a finished run and bad tool names or arguments', async () => {
    const store = await openStore(dir);
    const run = await store.startRun();
    await rejectsWith(run.recordResult('', {}, 'x'), 'invalidArgument', 'tool name must be a non-empty string');
    await rejectsWith(
      run.recordResult('t', [] as unknown as Record<string, unknown>, 'x'),
      'invalidArgument',
      'tool arguments must be an object',
    );
    await run.finish();
    await run.finish();
    await rejectsWith(run.recordResult('t', {}, 'x'), 'invalidArgument', 'run is finished');
    assert.equal((await store.listRuns())[0]!.status, 'completed');
  });
});
