/**
 * Evidence engine benchmark. Three figures, each against a
 * baseline or a target measured in this same run:
 *  1. `put` of a 256 MiB result vs `sha256sum` + `cp` of the same bytes (target >= 0.5).
 *  2. A 4 KiB verified range read from a 1 MiB and a 256 MiB artifact: medians within 2x,
 *     and the 256 MiB read >= 100x faster than re-hashing the whole file per read.
 *  3. `putStream` of a lazily generated 1 GiB stream: peak RSS growth < 64 MiB.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ArtifactStore } from '../src/core/artifacts/artifacts.js';
import { FsBlobStore } from '../src/core/blobs/fsBlobStore.js';
import { median, peakRssGrowth, report, scratchDir, timeRuns } from './util.js';

const MiB = 1024 * 1024;
const RUNS = 3;

/** Deterministic, incompressible-looking bytes (xorshift), generated a mebibyte at a time. */
function fillPseudoRandom(out: Uint8Array, seed: number): void {
  let x = seed | 1;
  const words = new Uint32Array(out.buffer, out.byteOffset, Math.floor(out.byteLength / 4));
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
}

/** An artifact store over a filesystem blob store at `dir` (tenant `bench`), as the front ends open one. */
async function artifactsAt(dir: string): Promise<ArtifactStore> {
  return new ArtifactStore({ blobs: await FsBlobStore.open(dir, { sweep: false }), tenant: 'bench' });
}

function fmtMs(ms: number): string {
  return `${ms.toFixed(ms < 10 ? 3 : 0)} ms`;
}

async function benchPutStream(dir: string): Promise<void> {
  const store = await artifactsAt(dir);
  let ref: Awaited<ReturnType<ArtifactStore['putStream']>> | undefined;
  async function* oneGiB(): AsyncGenerator<Uint8Array> {
    const piece = new Uint8Array(MiB);
    for (let i = 0; i < 1024; i++) {
      // putStream writes each 1 MiB piece before asking for the next, so one buffer is reused.
      fillPseudoRandom(piece, 0x9e3779b9 ^ i);
      yield piece;
    }
  }
  const started = process.hrtime.bigint();
  const growth = await peakRssGrowth(async () => {
    ref = await store.putStream(oneGiB());
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  report(
    'putStream 1 GiB: peak RSS growth',
    `${(growth / MiB).toFixed(1)} MiB (${(1024 / seconds).toFixed(0)} MiB/s)`,
    '< 64 MiB',
  );
  if (ref?.byteCount !== 1024 * MiB) throw new Error('putStream stored the wrong size');
  await store.delete(ref.artifactId);
}

async function benchPut(dir: string, big: Uint8Array): Promise<void> {
  const src = path.join(dir, 'source.bin');
  const copy = path.join(dir, 'copy.bin');
  await fsp.writeFile(src, big);
  const durable = await artifactsAt(path.join(dir, 'durable'));
  const baseline: number[] = [];
  const ours: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    baseline.push(
      ...(await timeRuns(1, () => {
        const hash = spawnSync('sha256sum', [src], { encoding: 'utf8' });
        const cp = spawnSync('cp', [src, copy]);
        if (hash.status !== 0 || cp.status !== 0) throw new Error('baseline command failed');
      })),
    );
    await fsp.rm(copy, { force: true });
    let id = '';
    ours.push(
      ...(await timeRuns(1, async () => {
        id = (await durable.put(big)).artifactId;
      })),
    );
    await durable.delete(id);
  }
  const b = median(baseline);
  const o = median(ours);
  report('baseline sha256sum + cp, 256 MiB (median)', `${fmtMs(b)} (${(256 / (b / 1000)).toFixed(0)} MiB/s)`);
  report('put 256 MiB, durable (fdatasync), median', `${fmtMs(o)} (${(256 / (o / 1000)).toFixed(0)} MiB/s)`);
  report('put throughput / baseline throughput (durable)', `${(b / o).toFixed(2)}`, '>= 0.5');
  await fsp.rm(src, { force: true });
}

/** Median time of one 4 KiB verified read at spread-out offsets, over `reads` reads. */
async function rangeReadMedian(store: ArtifactStore, id: string, size: number, reads: number): Promise<number> {
  const span = 4096;
  const times: number[] = [];
  for (let i = 0; i < reads; i++) {
    // Offsets step by a prime so reads land in many different chunks, not one cached one.
    const start = (i * 7_919_243) % (size - span);
    const t = process.hrtime.bigint();
    const bytes = await store.readRange(id, start, start + span);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (bytes.length !== span) throw new Error('short read');
  }
  return median(times);
}

/** The naive reading of the contract: hash the whole file, then return the range. */
async function naiveRead(file: string, expected: string, start: number, end: number): Promise<Uint8Array> {
  const hash = createHash('sha256');
  for await (const piece of createReadStream(file, { highWaterMark: MiB })) hash.update(piece as Buffer);
  if (hash.digest('hex') !== expected) throw new Error('digest mismatch');
  const fh = await fsp.open(file, 'r');
  try {
    const out = Buffer.alloc(end - start);
    await fh.read(out, 0, out.length, start);
    return out;
  } finally {
    await fh.close();
  }
}

async function benchRanges(dir: string, big: Uint8Array): Promise<void> {
  const store = await artifactsAt(dir);
  const small = await store.put(big.subarray(0, MiB));
  const large = await store.put(big);
  // Warm up both (first read loads and checks the manifest).
  await rangeReadMedian(store, small.artifactId, MiB, 20);
  await rangeReadMedian(store, large.artifactId, 256 * MiB, 20);
  const smallMs: number[] = [];
  const largeMs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    smallMs.push(await rangeReadMedian(store, small.artifactId, MiB, 300));
    largeMs.push(await rangeReadMedian(store, large.artifactId, 256 * MiB, 300));
  }
  const naive = await timeRuns(RUNS, () =>
    naiveRead(path.join(dir, 'bench', 'artifacts', large.sha256), large.sha256, 100 * MiB, 100 * MiB + 4096),
  );
  const s = median(smallMs);
  const l = median(largeMs);
  const nv = median(naive);
  report('4 KiB verified read from 1 MiB artifact (median)', fmtMs(s));
  report('4 KiB verified read from 256 MiB artifact (median)', fmtMs(l));
  report('256 MiB read / 1 MiB read', `${(l / s).toFixed(2)}x`, '<= 2x');
  report('naive whole-file re-hash per read, 256 MiB (median)', fmtMs(nv));
  report('naive / verified range read (256 MiB)', `${(nv / l).toFixed(0)}x`, '>= 100x');
  await store.delete(small.artifactId);
  await store.delete(large.artifactId);
}

async function main(): Promise<void> {
  const { dir, cleanup } = scratchDir('evidence');
  try {
    await fsp.mkdir(path.join(dir, 'stream'));
    await benchPutStream(path.join(dir, 'stream'));
    const big = new Uint8Array(256 * MiB);
    for (let off = 0; off < big.length; off += MiB) fillPseudoRandom(big.subarray(off, off + MiB), off / MiB + 1);
    await fsp.mkdir(path.join(dir, 'durable'));
    await benchPut(dir, big);
    await fsp.mkdir(path.join(dir, 'ranges'));
    await benchRanges(path.join(dir, 'ranges'), big);
  } finally {
    cleanup();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
