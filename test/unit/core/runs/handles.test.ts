import * as assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { ACCESS_DENIED_MESSAGE } from '../../../../src/core/runs/log/handles.js';
import { openStore, rejectsWith, scratch } from './helpers.js';

describe('handles (docs/contracts.md §2.2)', () => {
  describe("resolution only through this tenant's own records", () => {
    let dir: string;
    let cleanup: () => void;
    beforeEach(() => ({ dir, cleanup } = scratch('handles')));
    afterEach(() => cleanup());

    it('mints opaque handles: res_ or out_ and 26 base32 characters of 128 random bits, naming no run, call or slot', async () => {
      const store = await openStore(dir, {
        blobs: new MemoryBlobStore(),
        limits: { largeResultBytes: 4, previewBytes: 4 },
      });
      const run = await store.startRun();
      const r = await run.recordResult('t', {}, 'more than four');
      assert.match(r.callId, /^[0-9a-f]{10}-1$/);
      assert.match(r.handle!, /^res_[a-z2-7]{26}$/);
      const c = await run.runCommand('echo hi', { cwd: dir });
      const handles = c.record.attachments.map((a) => a.handle);
      assert.deepEqual(
        c.record.attachments.map((a) => a.slot),
        ['stdout', 'stderr', 'value'],
      );
      for (const h of handles) assert.match(h, /^out_[a-z2-7]{26}$/);
      const token = run.runId.slice(-10);
      for (const h of [r.handle!, ...handles]) {
        assert.equal(h.includes(token), false, h);
        assert.equal(/stdout|stderr|value/.test(h.slice(4)), false, h);
      }
      // Read back by lookup, each to its own bytes.
      assert.equal((await store.readToolOutput({ handle: r.handle! })).content, 'more than four');
      assert.equal((await store.readToolOutput({ handle: handles[0]! })).content, 'hi');
      assert.equal((await store.readToolOutput({ handle: handles[1]! })).content, '');
      // 2,000 results: 2,000 distinct handles, each of the 32 characters in use at every one of the first 25 places.
      const many: string[] = [];
      for (let i = 0; i < 2000; i++) many.push((await run.recordResult('t', {}, `result ${i}`)).handle!);
      assert.equal(new Set(many).size, 2000);
      for (let k = 4; k < 29; k++) assert.equal(new Set(many.map((h) => h[k])).size, 32, `place ${k}`);
      // The 26th carries the last 3 of the 128 bits.
      assert.equal(new Set(many.map((h) => h[29])).size, 8);
      assert.equal((await store.readToolOutput({ handle: many[1234]! })).content, 'result 1234');
    });

    it('refuses forged, foreign, path-like, huge and empty handles with one sentence that names nothing else', async () => {
      const blobs = new MemoryBlobStore();
      const store = await openStore(dir, { blobs, limits: { largeResultBytes: 4, previewBytes: 4 } });
      const runA = await store.startRun();
      const a = await runA.recordResult('t', {}, 'secret bytes of run A');
      const runB = await store.startRun();
      const b = await runB.recordResult('t', {}, 'bytes of run B');
      const other = await openStore(dir, {
        blobs,
        tenant: 'tenant-b',
        limits: { largeResultBytes: 4, previewBytes: 4 },
      });
      const runC = await other.startRun();
      const c = await runC.recordResult('t', {}, 'bytes of tenant B');
      const forged = [
        'res_0000000000-1',
        `xyz_${a.callId}`,
        `RES_${a.callId}`,
        `out_${a.callId}_stdout`,
        `${a.handle} `,
        `res_${a.callId}_`,
        `../tenant-a/${runA.runId}/${a.callId}`,
        `/etc/passwd`,
        `tenant-a/${runA.runId}/${a.callId}`,
        'res_' + 'a'.repeat(10_000),
        '',
        '__proto__',
        'constructor',
        c.handle!, // another tenant's real handle
        // Near misses of a real minted handle: one character changed, the other kind's prefix, upper case, cut, extended.
        `${a.handle!.slice(0, -1)}${a.handle!.endsWith('a') ? 'e' : 'a'}`,
        a.handle!.replace(/^res_/, 'out_'),
        a.handle!.toUpperCase(),
        a.handle!.slice(0, -1),
        `${a.handle!}a`,
        `res_${'a'.repeat(26)}`,
        `out_${'a'.repeat(26)}`,
      ];
      for (const handle of forged) {
        await assert.rejects(store.readToolOutput({ handle }), (e: Error & { code?: string }) => {
          assert.equal(e.code, 'accessDenied', handle.slice(0, 40));
          assert.equal(e.message, ACCESS_DENIED_MESSAGE);
          return true;
        });
        await rejectsWith(store.openHandle(handle), 'accessDenied', 'access denied: unknown or expired handle');
      }
      // Another run's handle, from a run-scoped reader.
      await rejectsWith(
        runB.readToolOutput({ handle: a.handle! }),
        'accessDenied',
        'access denied: unknown or expired handle',
      );
      await rejectsWith(
        store.readToolOutput({ handle: a.handle! }, { runIds: [runB.runId] }),
        'accessDenied',
        'access denied: unknown or expired handle',
      );
      assert.equal((await runB.readToolOutput({ handle: b.handle! })).content, 'bytes of run B');
      assert.equal((await store.readToolOutput({ handle: a.handle! })).content, 'secret bytes of run A');
      assert.equal((await other.readToolOutput({ handle: c.handle! })).content, 'bytes of tenant B');
      await rejectsWith(
        store.readToolOutput({ handle: 42 } as unknown as { handle: string }),
        'invalidArgument',
        'handle must be a string',
      );
    });

    it('a log line claiming a handle for another call, or a handle claimed twice, resolves to nothing', async () => {
      const store = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      const run = await store.startRun();
      const a = await run.recordResult('t', {}, 'first result');
      await run.finish();
      const log = store.logPath(run.runId);
      const lines = (await import('node:fs'))
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const finished = lines.find((r) => r.type === 'call_finished');
      // Same handle minted again (a tampered log or a collision): ambiguous, so denied.
      appendFileSync(log, JSON.stringify({ ...finished, inline: 'forged content', sha256: 'f'.repeat(64) }) + '\n');
      const fresh = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      await rejectsWith(
        fresh.readToolOutput({ handle: a.handle! }),
        'accessDenied',
        'access denied: unknown or expired handle',
      );
      // Another call's record claiming the same minted handle: a handle claimed twice resolves to neither.
      const run2 = await store.startRun();
      const b = await run2.recordResult('t', {}, 'second result');
      await run2.finish();
      const log2 = store.logPath(run2.runId);
      const second = (await import('node:fs'))
        .readFileSync(log2, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((r) => r.type === 'call_finished');
      const fresh2 = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      assert.equal((await fresh2.readToolOutput({ handle: b.handle! })).content, 'second result');
      appendFileSync(
        log2,
        JSON.stringify({
          ...second,
          callId: `${second.callId.split('-')[0]}-9`,
          inline: 'forged content',
          sha256: 'f'.repeat(64),
        }) + '\n',
      );
      const fresh3 = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      await rejectsWith(
        fresh3.readToolOutput({ handle: b.handle! }),
        'accessDenied',
        'access denied: unknown or expired handle',
      );
      // A record written before opaque handles whose handle does not match its own call id is the wrong shape: it mints nothing.
      appendFileSync(
        log,
        JSON.stringify({ ...finished, callId: 'ffffffffff-9', resultHandle: 'res_ffffffffff-8' }) + '\n',
      );
      const summary = (await fresh.listRuns()).find((x) => x.runId === run.runId)!;
      assert.deepEqual(
        summary.problems.map((p) => p.detail),
        ['call_finished: field resultHandle is missing or invalid'],
      );
    });

    it('a handle whose run retention deleted (expired) is refused with the very sentence of one never minted', async () => {
      const store = await openStore(dir, {
        blobs: new MemoryBlobStore(),
        limits: { largeResultBytes: 4, previewBytes: 4 },
      });
      const old = await store.startRun();
      const gone = await old.recordResult('t', {}, 'kept until retention');
      const cmd = await old.runCommand('echo expired', { cwd: dir });
      await old.finish();
      const kept = await store.startRun();
      const pinned = await kept.recordResult('t', {}, 'a pinned run is kept');
      await kept.finish();
      await store.setPinned(kept.runId, true);
      assert.equal((await store.readToolOutput({ handle: gone.handle! })).content, 'kept until retention');
      const pruned = await store.prune({ maxAgeMs: 1, now: Date.now() + 86_400_000 });
      assert.deepEqual(pruned.deletedRuns, [old.runId]);
      const never = `res_${'b'.repeat(26)}`;
      const refusals: string[] = [];
      for (const handle of [gone.handle!, cmd.record.attachments[0]!.handle, never]) {
        await assert.rejects(store.readToolOutput({ handle }), (e: Error & { code?: string }) => {
          refusals.push(`${e.code}: ${e.message}`);
          return true;
        });
        await rejectsWith(store.openHandle(handle), 'accessDenied', ACCESS_DENIED_MESSAGE);
      }
      assert.deepEqual(refusals, Array(3).fill('accessDenied: access denied: unknown or expired handle'));
      assert.equal((await store.readToolOutput({ handle: pinned.handle! })).content, 'a pinned run is kept');
    });

    it('a log whose first record belongs to another tenant mints nothing here', async () => {
      const store = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      const run = await store.startRun();
      const a = await run.recordResult('t', {}, 'first result');
      const fs = await import('node:fs');
      const log = store.logPath(run.runId);
      const text = fs.readFileSync(log, 'utf8').replace('"tenant":"tenant-a"', '"tenant":"tenant-z"');
      fs.writeFileSync(log, text);
      const fresh = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      await rejectsWith(
        fresh.readToolOutput({ handle: a.handle! }),
        'accessDenied',
        'access denied: unknown or expired handle',
      );
      assert.deepEqual(await fresh.listRuns(), []);
    });
  });
});
