import * as assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { ACCESS_DENIED_MESSAGE, assertToolNameAllowed, READ_TOOL_OUTPUT, ToolRegistry } from '../../../../src/core/runs/handles.js';
import { openStore, rejectsWith, scratch } from './helpers.js';

describe('handles and the reserved reader name (docs/contracts.md §2.2)', () => {
  it('read_tool_output is reserved: no other tool may take it', () => {
    const reg = new ToolRegistry();
    assert.throws(() => reg.register(READ_TOOL_OUTPUT), /tool name read_tool_output is reserved/);
    assert.throws(() => assertToolNameAllowed('read_tool_output'), /tool name read_tool_output is reserved/);
    assert.throws(() => assertToolNameAllowed(''), /tool name must be a non-empty string/);
    const sub = reg.register('run_command');
    assert.throws(() => reg.register('run_command'), /tool name run_command is already registered/);
    reg.registerReader();
    assert.throws(() => reg.registerReader(), /tool name read_tool_output is already registered/);
    assert.deepEqual(reg.list(), ['read_tool_output', 'run_command']);
    sub.dispose();
    assert.equal(reg.has('run_command'), false);
    assert.doesNotThrow(() => assertToolNameAllowed('Read_Tool_Output'));
  });

  describe('resolution only through this tenant\'s own records', () => {
    let dir: string; let cleanup: () => void;
    beforeEach(() => ({ dir, cleanup } = scratch('handles')));
    afterEach(() => cleanup());

    it('mints res_<callId> and out_<callId>_<slot>', async () => {
      const store = await openStore(dir, { blobs: new MemoryBlobStore(), limits: { largeResultBytes: 4, previewBytes: 4 } });
      const run = await store.startRun();
      const r = await run.recordResult('t', {}, 'more than four');
      assert.match(r.callId, /^[0-9a-f]{10}-1$/);
      assert.equal(r.handle, `res_${r.callId}`);
      const c = await run.runCommand('echo hi', { cwd: dir });
      assert.deepEqual(c.record.attachments.map((a) => a.handle), [`out_${c.callId}_stdout`, `out_${c.callId}_stderr`, `out_${c.callId}_value`]);
    });

    it('refuses forged, foreign, path-like, huge and empty handles with one sentence that names nothing else', async () => {
      const blobs = new MemoryBlobStore();
      const store = await openStore(dir, { blobs, limits: { largeResultBytes: 4, previewBytes: 4 } });
      const runA = await store.startRun();
      const a = await runA.recordResult('t', {}, 'secret bytes of run A');
      const runB = await store.startRun();
      const b = await runB.recordResult('t', {}, 'bytes of run B');
      const other = await openStore(dir, { blobs, tenant: 'tenant-b', limits: { largeResultBytes: 4, previewBytes: 4 } });
      const runC = await other.startRun();
      const c = await runC.recordResult('t', {}, 'bytes of tenant B');
      const forged = [
        'res_0000000000-1', `xyz_${a.callId}`, `RES_${a.callId}`, `out_${a.callId}_stdout`, `${a.handle} `, `res_${a.callId}_`,
        `../tenant-a/${runA.runId}/${a.callId}`, `/etc/passwd`, `tenant-a/${runA.runId}/${a.callId}`, 'res_' + 'a'.repeat(10_000), '', '__proto__', 'constructor',
        c.handle!, // another tenant's real handle
      ];
      for (const handle of forged) {
        await assert.rejects(store.readToolOutput({ handle }), (e: Error & { code?: string }) => {
          assert.equal(e.code, 'accessDenied', handle.slice(0, 40));
          assert.equal(e.message, ACCESS_DENIED_MESSAGE);
          return true;
        });
        await rejectsWith(store.openHandle(handle), 'accessDenied', 'access denied: unknown handle');
      }
      // Another run's handle, from a run-scoped reader.
      await rejectsWith(runB.readToolOutput({ handle: a.handle! }), 'accessDenied', 'access denied: unknown handle');
      await rejectsWith(store.readToolOutput({ handle: a.handle! }, { runIds: [runB.runId] }), 'accessDenied', 'access denied: unknown handle');
      assert.equal((await runB.readToolOutput({ handle: b.handle! })).content, 'bytes of run B');
      assert.equal((await store.readToolOutput({ handle: a.handle! })).content, 'secret bytes of run A');
      assert.equal((await other.readToolOutput({ handle: c.handle! })).content, 'bytes of tenant B');
      await rejectsWith(store.readToolOutput({ handle: 42 } as unknown as { handle: string }), 'invalidArgument', 'handle must be a string');
    });

    it('a log line claiming a handle for another call, or a handle claimed twice, resolves to nothing', async () => {
      const store = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      const run = await store.startRun();
      const a = await run.recordResult('t', {}, 'first result');
      await run.finish();
      const log = store.logPath(run.runId);
      const lines = (await import('node:fs')).readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const finished = lines.find((r) => r.type === 'call_finished');
      // Same handle minted again (a tampered log or a collision): ambiguous, so denied.
      appendFileSync(log, JSON.stringify({ ...finished, inline: 'forged content', sha256: 'f'.repeat(64) }) + '\n');
      const fresh = await openStore(dir, { limits: { largeResultBytes: 4, previewBytes: 4 } });
      await rejectsWith(fresh.readToolOutput({ handle: a.handle! }), 'accessDenied', 'access denied: unknown handle');
      // A record whose handle does not match its own call id is the wrong shape: it mints nothing.
      appendFileSync(log, JSON.stringify({ ...finished, callId: 'ffffffffff-9', resultHandle: a.handle }) + '\n');
      const summary = (await fresh.listRuns())[0]!;
      assert.deepEqual(summary.problems.map((p) => p.detail), ['call_finished: field resultHandle is missing or invalid']);
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
      await rejectsWith(fresh.readToolOutput({ handle: a.handle! }), 'accessDenied', 'access denied: unknown handle');
      assert.deepEqual(await fresh.listRuns(), []);
    });
  });
});
