/**
 * Cost of live capture progress (docs/contracts.md §3.4, "Live"): a command printing
 * 500,000,000 bytes captured with a 4 MiB cap (so the pipe and the counting dominate,
 * not the disk), with nobody listening and with a listener (the inspector's case:
 * a tail copy every 250 ms). Medians of 3, ratio listener / no listener in the same run.
 */
import * as path from 'node:path';
import { FsBlobStore, RunStore } from '../src/core/index.js';
import { median, report, scratchDir, timeRuns } from './util.js';

const MiB = 1024 * 1024;
const command = 'head -c 500000000 /dev/zero';

async function main(): Promise<void> {
  const { dir, cleanup } = scratchDir('capture-progress');
  try {
    const store = await RunStore.open({
      logsDir: path.join(dir, 'logs'),
      tenant: 'bench',
      blobs: await FsBlobStore.open(path.join(dir, 'blobs')),
      captureCapBytes: 4 * MiB,
    });
    const run = await store.startRun();
    const quiet = await timeRuns(3, () => run.runCommand(command, { cwd: dir }));
    let reports = 0;
    const sub = store.onDidCaptureProgress((e) => {
      reports++;
      if (e.tail.length > 2048) throw new Error('tail too long');
    });
    const listened = await timeRuns(3, () => run.runCommand(command, { cwd: dir }));
    sub.dispose();
    await run.finish();
    report('capture of 500,000,000 bytes, nobody listening (median of 3)', `${median(quiet).toFixed(0)} ms`);
    report(
      'capture of 500,000,000 bytes, a progress listener (median of 3)',
      `${median(listened).toFixed(0)} ms, ${reports} reports over 3 runs`,
    );
    report('ratio listener / no listener', (median(listened) / median(quiet)).toFixed(3), '<= 1.05');
  } finally {
    cleanup();
  }
}

void main();
