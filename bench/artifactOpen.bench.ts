/**
 * Process open with `evidence_readFile` artifacts at scale (one store for bytes).
 *
 * Before artifacts moved into the blob store every process (MCP server, `cli capture`/`read`, the editor) re-learned at
 * open which artifacts its tenant may read: `reregisterArtifacts` paged through every
 * `evidence_readFile` call of the tenant in the catalog and stat-ed each artifact's file.
 * Now an artifact is a key of the tenant in the blob store and nothing is learned at open.
 *
 * Seeds `BENCH_OPEN_RUNS` runs (default 100,000) through the run store's own API (so the
 * seed does not depend on the catalog's engine), one call each; one call in four an
 * `evidence_readFile` result recorded by naming its artifact (250 distinct ones of 20 KB,
 * shared by content), the others small command-like results kept inline. Then, each in a
 * NEW Node process (`BENCH_OPEN_REPEATS` times, default 5; medians):
 *   - empty:  `openEvidenceStores` over an empty storage, then the first answer;
 *   - after:  `openEvidenceStores` over the seeded storage, then the first answer;
 *   - before: the same, plus the re-registration pass as it was (copied below from the
 *     tools layer that had it, against the same catalog), before the answer.
 * The first answer is a `.tool-artifacts` range read of one artifact and a handle read of
 * another run's artifact call. Printed: open and first-answer medians, and the ratios.
 */
import { spawnSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { layoutOfFolder } from '../src/core/storageLayout.js';
import { openEvidenceStores, type EvidenceStores } from '../src/core/stores.js';
import type { CallSummary } from '../src/core/runs/types.js';
import { median, report, scratchDir } from './util.js';

const RUNS = Number(process.env.BENCH_OPEN_RUNS ?? 100_000);
const REPEATS = Number(process.env.BENCH_OPEN_REPEATS ?? 5);
const DISTINCT_ARTIFACTS = 250;
const ARTIFACT_BYTES = 20_000;
const READ_FILE = 'evidence_readFile';

const SETTINGS = {
  backend: 'filesystem' as const,
  largeResultBytes: 16_384,
  previewBytes: 2_048,
  captureCapBytes: 0,
  preservation: 'best_effort' as const,
};

async function open(storage: string, maintenance = false): Promise<EvidenceStores> {
  return openEvidenceStores(layoutOfFolder(storage, false), SETTINGS, {
    tools: ['evidence_readFile', 'evidence_runCommand'],
    reader: {},
    warn: () => undefined,
    maintenance,
  });
}

/** The text of distinct artifact `i`: 20 KB of numbered lines. */
function artifactText(i: number): string {
  const line = `artifact ${String(i).padStart(4, '0')} line of a file an agent read whole\n`;
  return line.repeat(Math.ceil(ARTIFACT_BYTES / line.length)).slice(0, ARTIFACT_BYTES);
}

/** Seeds `RUNS` runs; returns an artifact id and a handle of an `evidence_readFile` call to answer with. */
async function seed(storage: string): Promise<{ artifactId: string; handle: string }> {
  const stores = await open(storage, true);
  const refs = [];
  for (let i = 0; i < DISTINCT_ARTIFACTS; i++) {
    const ref = await stores.artifacts.put(artifactText(i));
    refs.push({
      ref,
      ...(await stores.artifacts.manifestFor(ref.artifactId)),
      bytes: new TextEncoder().encode(artifactText(i)),
    });
  }
  let handle = '';
  const t0 = performance.now();
  for (let r = 0; r < RUNS; r++) {
    const run = await stores.runs.startRun({ label: `seeded ${r}` });
    if (r % 4 === 0) {
      const a = refs[(r / 4) % DISTINCT_ARTIFACTS]!;
      const out = await run.recordArtifact(
        READ_FILE,
        { path: `src/file${r % 997}.ts` },
        { artifactId: a.ref.artifactId, manifest: a.manifest, manifestDigest: a.manifestDigest, bytes: a.bytes },
      );
      if (r === 4 * 17) handle = out.handle!;
    } else {
      await run.recordResult(
        'evidence_runCommand',
        { command: `npm test -- --grep case${r}` },
        `$ npm test\n${r % 7} passing\nok\n`,
      );
    }
    await run.finish();
    if (r > 0 && r % 10_000 === 0)
      process.stderr.write(`seeded ${r} runs in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  await stores.runs.catalogSettled();
  stores.blobs?.dispose?.();
  return { artifactId: refs[17 % DISTINCT_ARTIFACTS]!.ref.artifactId, handle };
}

/** The pass the blob-store move removed, as it was: every successful `evidence_readFile` call from the catalog, a stat of its artifact each. */
async function reregisterAsBefore(stores: EvidenceStores, artifactFile: (id: string) => string): Promise<number> {
  const known = new Map<string, { byteCount: number; manifestDigest: string | undefined }>();
  const PAGE = 1000;
  for (let offset = 0; ; offset += PAGE) {
    const page = await stores.runs.queryCalls({ offset, limit: PAGE, tool: READ_FILE, outcome: 'ok', order: 'oldest' });
    for (const call of page.rows as CallSummary[]) {
      const id = call.tool === READ_FILE && call.status === 'ok' && call.sha256 ? `artifact-${call.sha256}` : undefined;
      if (id === undefined || known.has(id)) continue;
      if (
        !(await fsp.stat(artifactFile(id)).then(
          (s) => s.isFile(),
          () => false,
        ))
      )
        continue;
      known.set(id, { byteCount: call.resultBytes, manifestDigest: call.manifestDigest });
    }
    if (offset + PAGE >= page.total) return known.size;
  }
}

/** One measuring process: open, (the old pass), the first answer; prints JSON. */
async function probe(storage: string, mode: string, artifactId: string, handle: string): Promise<void> {
  const t = performance.now();
  const stores = await open(storage);
  let registered = 0;
  if (mode === 'before') {
    const layout = layoutOfFolder(storage, false);
    registered = await reregisterAsBefore(stores, (id) =>
      path.join(layout.blobsDir, layout.tenant, 'artifacts', id.slice('artifact-'.length)),
    );
  }
  const openMs = performance.now() - t;
  if (artifactId) {
    const bytes = await stores.artifacts.readRange(artifactId, 100, 200);
    if (bytes.length !== 100) throw new Error('short range read');
    const read = await stores.runs.readToolOutput({ handle, limit: 2 });
    if (!read.content.includes('artifact ')) throw new Error('the handle read the wrong bytes');
  }
  const answerMs = performance.now() - t;
  process.stdout.write(
    `${JSON.stringify({ openMs, answerMs, registered, rssMb: process.memoryUsage.rss() / 2 ** 20 })}\n`,
  );
  stores.blobs?.dispose?.();
}

function measure(
  storage: string,
  mode: string,
  artifactId: string,
  handle: string,
): { openMs: number; answerMs: number; registered: number; rssMb: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, 'probe', storage, mode, artifactId, handle], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`probe ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
    openMs: number;
    answerMs: number;
    registered: number;
    rssMb: number;
  };
}

async function main(): Promise<void> {
  const { dir, cleanup } = scratchDir('artifact-open');
  try {
    const empty = path.join(dir, 'empty');
    const seeded = path.join(dir, 'seeded');
    await fsp.mkdir(empty);
    await fsp.mkdir(seeded);
    const t0 = performance.now();
    const { artifactId, handle } = await seed(seeded);
    report(
      `seeded ${RUNS} runs (one call in four evidence_readFile)`,
      `${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    // Warm the page cache once for each, so every mode reads the same warm files.
    measure(seeded, 'before', artifactId, handle);
    measure(seeded, 'after', artifactId, handle);
    const runs: Record<string, ReturnType<typeof measure>[]> = { empty: [], after: [], before: [] };
    for (let i = 0; i < REPEATS; i++) {
      runs.empty!.push(measure(empty, 'empty', '', ''));
      runs.after!.push(measure(seeded, 'after', artifactId, handle));
      runs.before!.push(measure(seeded, 'before', artifactId, handle));
    }
    const m = (mode: string, k: 'openMs' | 'answerMs' | 'rssMb'): number => median(runs[mode]!.map((x) => x[k]));
    for (const mode of ['empty', 'after', 'before']) {
      report(`${mode}: open, median of ${REPEATS} processes`, `${m(mode, 'openMs').toFixed(0)} ms`);
      report(
        `${mode}: open to first answer (range + handle read), median`,
        `${m(mode, 'answerMs').toFixed(0)} ms, RSS ${m(mode, 'rssMb').toFixed(0)} MB`,
      );
    }
    report('artifacts re-registered by the old pass', String(runs.before![0]!.registered));
    report('first answer: before / after', `${(m('before', 'answerMs') / m('after', 'answerMs')).toFixed(1)}x`);
    report('first answer: after - empty', `${(m('after', 'answerMs') - m('empty', 'answerMs')).toFixed(0)} ms`);
  } finally {
    cleanup();
  }
}

if (process.argv[2] === 'probe') {
  void probe(process.argv[3]!, process.argv[4]!, process.argv[5]!, process.argv[6]!).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  void main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
