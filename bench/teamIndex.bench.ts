/**
 * A team store's local index at 1,000 and 10,000 runs (docs/contracts.md §7.2), against s3rver on loopback: the first
 * index of the store on a new machine, its first page, the same store opened again, and a refresh that brings 10 new
 * runs. Each size is measured `BENCH_TEAM_REPEATS` times (default 3) from an empty index and the median printed.
 *
 * The bucket is filled in its own layout, not by publishing 10,000 runs one by one: ten runs are recorded and
 * published (so their blobs and manifests are there), and each further run is one of their logs with a fresh run
 * id, fresh handles and its times moved on, put with its sha256 as a publisher puts it. The baseline in the same run
 * is the local catalog rebuilt from the same logs on disk: the floor a team index cannot beat.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { openSession, type CliSession } from '../src/cli/session.js';
import { sha256Hex } from '../src/core/integrity/sha256.js';
import { RunStore } from '../src/core/runs/store/runStore.js';
import { publishRun } from '../src/core/team/publish.js';
import { TeamBucket } from '../src/core/team/teamBucket.js';
import { teamLocation } from '../src/core/team/teamLocation.js';
import { TeamStore } from '../src/core/team/teamStore.js';
import { startS3Server } from '../test/unit/core/blobs/s3Fixture.js';
import { median, report, scratchDir } from './util.js';

const SIZES = (process.env.BENCH_TEAM_SIZES ?? '1000,10000').split(',').map(Number);
const REPEATS = Number(process.env.BENCH_TEAM_REPEATS ?? 3);
const PUTS_IN_FLIGHT = 32;
const PAGE = 50;
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const HANDLE = /(?:res|out)_[a-z2-7]{26}/g;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const v = await fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, v];
}

function freshHandle(prefix: string): string {
  const b = randomBytes(26);
  let s = '';
  for (const x of b) s += BASE32[x & 31];
  return `${prefix}_${s}`;
}

/**
 * Every kind the product records: a command per run (every tenth keeps a 20 KB output as a blob), a file read in
 * every third, and every fourth run an agent's, recorded by its hook.
 */
async function recordRun(session: CliSession, i: number): Promise<string> {
  const source =
    i % 4 === 3 ? { kind: 'hook' as const, agent: 'claude', sessionId: `s${i}` } : { kind: 'cli' as const };
  const run = await session.runs.startRun({ label: `ci build ${i}`, source });
  const text =
    i % 10 === 0
      ? `build ${i}\n${'compiling module ........................................ ok\n'.repeat(340)}error TS2322\n`
      : `build ${i} ok\n`;
  await run.recordResult('evidence_runCommand', { command: `npm test # ${i}` }, text);
  if (i % 3 === 1)
    await run.recordResult('evidence_readFile', { path: `src/module${i}.ts` }, `export const n = ${i};\n`);
  await run.finish('completed');
  return run.runId;
}

/** Template `t`'s log as run number `n`: its id, handles and times its own; same length, so offsets hold. */
function cloneLog(
  template: { runId: string; text: string },
  n: number,
  idStem: string,
): { runId: string; log: Buffer } {
  const runId = `${idStem}${n.toString(16).padStart(template.runId.length - idStem.length, '0')}`;
  const text = template.text
    .replaceAll(template.runId, runId)
    .replace(HANDLE, (h) => freshHandle(h.slice(0, 3)))
    .replace(TIME, (t) => new Date(Date.parse(t) + n * 1000).toISOString());
  return { runId, log: Buffer.from(text) };
}

async function main(): Promise<void> {
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey });
  const s3 = await startS3Server('bench');
  const { dir, cleanup } = scratchDir('team-index');
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: KEYS });
  try {
    const a = await openSession(path.join(dir, 'a'));
    const source = { logsDir: a.storage.logsDir, tenant: a.storage.tenant, blobs: a.blobs };
    const templateIds: string[] = [];
    for (let i = 0; i < 10; i++) templateIds.push(await recordRun(a, i));
    const templates = templateIds.map((runId) => ({
      runId,
      text: readFileSync(path.join(a.storage.logsDir, a.storage.tenant, `${runId}.jsonl`), 'utf8'),
    }));
    const idStem = templateIds[0]!.slice(0, templateIds[0]!.lastIndexOf('-') + 1);

    for (const size of SIZES) {
      const prefix = `size${size}`;
      const location = teamLocation(`s3://${s3.bucket}/${prefix}`, { AWS_ENDPOINT_URL: s3.endpoint });
      const bucket = new TeamBucket(location);
      for (const id of templateIds) await publishRun(source, bucket, id);
      // The same logs on disk for the floor: a local catalog rebuilt from them.
      const floorDir = path.join(dir, `floor-${size}`, 'logs', a.storage.tenant);
      mkdirSync(floorDir, { recursive: true });
      for (const t of templates) writeFileSync(path.join(floorDir, `${t.runId}.jsonl`), t.text);
      let next = 0;
      /** Puts the next `count` runs into the bucket, `PUTS_IN_FLIGHT` at a time. */
      const put = async (count: number): Promise<number> => {
        const start = Date.now();
        const upto = next + count;
        const worker = async (): Promise<void> => {
          while (next < upto) {
            const n = next++;
            const { runId, log } = cloneLog(templates[n % 10]!, n + 100, idStem);
            writeFileSync(path.join(floorDir, `${runId}.jsonl`), log);
            await client.send(
              new PutObjectCommand({
                Bucket: s3.bucket,
                Key: `${prefix}/runs/${runId}.jsonl`,
                Body: log,
                ContentType: 'application/x-ndjson',
                Metadata: { sha256: sha256Hex(log) },
              }),
            );
          }
        };
        await Promise.all(Array.from({ length: PUTS_IN_FLIGHT }, worker));
        return Date.now() - start;
      };
      const putMs = await put(size - templateIds.length);
      report(`${size} runs: bucket filled (${PUTS_IN_FLIGHT} PUTs in flight)`, `${(putMs / 1000).toFixed(1)} s`);

      const [floorMs] = await timed(async () => {
        const runs = await RunStore.open({
          logsDir: path.dirname(floorDir),
          tenant: a.storage.tenant,
          maintenance: false,
        });
        await runs.reconcileWithLogs();
        runs.close();
      });

      const first: number[] = [];
      const page: number[] = [];
      const reopened: number[] = [];
      const nothing: number[] = [];
      const ten: number[] = [];
      let indexed = 0;
      for (let r = 0; r < REPEATS; r++) {
        const teamDir = path.join(dir, `b-${size}-${r}`, 'team');
        const open = (): Promise<TeamStore> => TeamStore.open({ name: 'ci', location, teamDir });
        const team = await open();
        const [syncMs, synced] = await timed(() => team.sync());
        indexed = synced.added;
        first.push(syncMs);
        const [pageMs, rows] = await timed(() => team.firstPage(PAGE));
        if (rows.length !== PAGE) throw new Error(`first page held ${rows.length} runs`);
        page.push(pageMs);
        team.close();
        const [againMs] = await timed(async () => {
          const t = await open();
          await t.firstPage(PAGE);
          t.close();
        });
        reopened.push(againMs);
        const t2 = await open();
        const [nothingMs, none] = await timed(() => t2.sync());
        if (none.added !== 0) throw new Error('a sync with nothing new added runs');
        nothing.push(nothingMs);
        await put(10);
        const [tenMs, tenNew] = await timed(() => t2.sync());
        if (tenNew.added !== 10) throw new Error(`the refresh added ${tenNew.added} runs`);
        ten.push(tenMs);
        t2.close();
        rmSync(teamDir, { recursive: true, force: true });
      }
      const med = (xs: number[]): number => median(xs);
      report(
        `${size} runs: first index of ${indexed} runs, median of ${REPEATS}`,
        `${(med(first) / 1000).toFixed(2)} s`,
        size >= 10_000 ? '< 60 s' : undefined,
      );
      report(`  local catalog rebuilt from ${size} logs (floor)`, `${(floorMs / 1000).toFixed(2)} s`);
      report(`  ratio first index / floor`, `${(med(first) / floorMs).toFixed(1)}×`);
      report(`${size} runs: first page of ${PAGE} after the index, median`, `${med(page).toFixed(0)} ms`, '< 1 s');
      report(`${size} runs: store opened again, first page, median`, `${med(reopened).toFixed(0)} ms`, '< 1 s');
      report(`${size} runs: refresh with nothing new (listing), median`, `${med(nothing).toFixed(0)} ms`);
      report(`${size} runs: refresh with 10 new runs, median`, `${med(ten).toFixed(0)} ms`);
      report(`  ratio refresh of 10 / refresh of nothing`, `${(med(ten) / med(nothing)).toFixed(2)}×`);
      bucket.dispose();
    }
  } finally {
    client.destroy();
    cleanup();
    await s3.close();
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
