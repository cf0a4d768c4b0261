/**
 * A running command reports how far its capture has come (docs/contracts.md §3.4,
 * "Live"): bytes so far and the last bytes of each stream, at a bounded rate, before the
 * call finishes, without changing the recorded bytes. Real shell, real RunStore.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore, RunStore, type CaptureProgressEvent } from '../../../../src/core/index.js';
import { captureProgressMs, captureTailBytes } from '../../../../src/core/runs/recording/commandCall.js';

describe('capture progress of a running command', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'progress-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports bytes so far and the exact tail while it runs, at most every 250 ms per stream, leaving the recorded bytes whole', async function () {
    this.timeout(60_000);
    const store = await RunStore.open({
      logsDir: path.join(dir, 'logs'),
      tenant: 't',
      blobs: await FsBlobStore.open(path.join(dir, 'blobs')),
    });
    const events: (CaptureProgressEvent & { at: number; finished: boolean })[] = [];
    let finished = false;
    store.onDidRecord((e) => {
      if (e.record.type === 'call_finished') finished = true;
    });
    const sub = store.onDidCaptureProgress((e) => events.push({ ...e, at: Date.now(), finished }));
    // 30 lines of 100 bytes, one every 50 ms: about 1.5 s of output.
    const script =
      "let i=0;const t=setInterval(()=>{process.stdout.write(String(i).padStart(4,'0')+'x'.repeat(95)+'\\n');if(++i===30)clearInterval(t)},50)";
    const run = await store.startRun({ label: 'live' });
    const out = await run.runCommand(`node -e "${script}"`, { cwd: dir, timeoutMs: 30_000 });
    await run.finish();
    sub.dispose();
    const expected = Array.from({ length: 30 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(95)}\n`).join('');
    const stdout = out.record.attachments.find((a) => a.name === 'stdout')!;
    assert.equal(stdout.sizeBytes, 3000);
    assert.equal(stdout.sha256, createHash('sha256').update(expected).digest('hex'));
    const so = events.filter((e) => e.stream === 'stdout');
    assert.ok(so.length >= 3, `only ${so.length} progress reports`);
    assert.ok(
      so.every((e) => !e.finished),
      'a report came after the call finished',
    );
    for (const [i, e] of so.entries()) {
      // Bytes grow; the tail is exactly the last bytes read so far.
      if (i > 0) {
        assert.ok(e.bytes > so[i - 1]!.bytes);
        assert.ok(e.at - so[i - 1]!.at >= captureProgressMs - 5, `reports ${e.at - so[i - 1]!.at} ms apart`);
      }
      const seen = expected.slice(0, e.bytes);
      assert.equal(Buffer.from(e.tail).toString('latin1'), seen.slice(Math.max(0, e.bytes - captureTailBytes)));
      assert.equal(e.runId, run.runId);
      assert.equal(e.callId, out.callId);
    }
    assert.ok(so[0]!.bytes < 3000, 'the first report came before all output was written');
  });
});
