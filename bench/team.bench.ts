/**
 * Team stores (docs/contracts.md §7) against s3rver on loopback: what publishing costs, what a second run sharing an
 * output uploads, and how long another machine takes to index a store of N runs the first time, to catch up with a
 * few new ones, and to show its first page when the store is opened again.
 *
 * Machine A records `BENCH_TEAM_RUNS` runs (default 1000) through the run store (one call each, a 20 KB output kept
 * as a blob in one run in ten, else inline) and publishes them; machine B (another storage folder) opens the store.
 * The baseline in the same run is the local catalog: indexing the same number of logs on machine A from its folder
 * (a rebuild), which is the floor a team index cannot beat (it does that plus the bucket's listing and fetches).
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { openSession, type CliSession } from '../src/cli/session.js';
import { publishRun } from '../src/core/team/publish.js';
import { TeamBucket } from '../src/core/team/teamBucket.js';
import { teamLocation } from '../src/core/team/teamLocation.js';
import { TeamStore } from '../src/core/team/teamStore.js';
import { RunStore } from '../src/core/runs/store/runStore.js';
import { startS3Server } from '../test/unit/core/blobs/s3Fixture.js';
import { report, scratchDir } from './util.js';

const RUNS = Number(process.env.BENCH_TEAM_RUNS ?? 1000);
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

/** Milliseconds `fn` takes, and its value. */
async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const v = await fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, v];
}

/** Records one run with one call; every tenth keeps a 20 KB output as a blob. */
async function recordRun(session: CliSession, i: number, big?: string): Promise<string> {
  const run = await session.runs.startRun({ label: `ci build ${i}`, source: { kind: 'cli' } });
  const text =
    big ??
    (i % 10 === 0
      ? `build ${i}\n${'compiling module ........................................ ok\n'.repeat(340)}error TS2322 in ${i}\n`
      : `build ${i} ok\n`);
  await run.recordResult('evidence_runCommand', { command: `npm test # ${i}` }, text);
  await run.finish('completed');
  return run.runId;
}

async function main(): Promise<void> {
  Object.assign(process.env, CREDENTIALS);
  const s3 = await startS3Server('bench');
  const { dir, cleanup } = scratchDir('team');
  try {
    const location = teamLocation(`s3://${s3.bucket}/ci`, { AWS_ENDPOINT_URL: s3.endpoint });
    const a = await openSession(path.join(dir, 'a'));
    const bucket = new TeamBucket(location);
    const source = { logsDir: a.storage.logsDir, tenant: a.storage.tenant, blobs: a.blobs };
    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) ids.push(await recordRun(a, i));
    const [publishMs] = await timed(async () => {
      for (const id of ids) await publishRun(source, bucket, id);
    });
    report(`publish ${RUNS} runs (one in ten with a 20 KB blob)`, `${(publishMs / RUNS).toFixed(1)} ms a run`);

    // A second run whose 4 MB output is the first's: only its log is uploaded.
    const big = `${'x'.repeat(99)}\n`.repeat(40_000);
    const first = await publishRun(source, bucket, await recordRun(a, -1, big));
    const second = await publishRun(source, bucket, await recordRun(a, -2, big));
    report('bytes uploaded: a run with a 4 MB output', `${first.bytesUploaded}`);
    report('bytes uploaded: a second run sharing that output', `${second.bytesUploaded}`, 'its log only');

    // The floor: the local catalog rebuilt from the same logs on machine A.
    rmSync(path.join(a.storage.logsDir, a.storage.tenant, '.catalog.sqlite'), { force: true });
    for (const f of ['-wal', '-shm'])
      rmSync(path.join(a.storage.logsDir, a.storage.tenant, `.catalog.sqlite${f}`), { force: true });
    const [localMs] = await timed(async () => {
      const runs = await RunStore.open({ logsDir: a.storage.logsDir, tenant: a.storage.tenant, maintenance: false });
      await runs.reconcileWithLogs();
      runs.close();
    });

    const teamDir = path.join(dir, 'b', 'evidence', 'team');
    const open = (): Promise<TeamStore> => TeamStore.open({ name: 'ci', location, teamDir });
    const [firstMs, synced] = await timed(async () => {
      const team = await open();
      const r = await team.sync();
      team.close();
      return r;
    });
    report(`first index of ${synced.added} runs (listing, fetches, catalog)`, `${(firstMs / 1000).toFixed(2)} s`);
    report(`  local catalog rebuilt from ${RUNS + 2} logs (floor)`, `${(localMs / 1000).toFixed(2)} s`);
    const [againMs] = await timed(async () => {
      const team = await open();
      await team.sync();
      team.close();
    });
    report('sync with nothing new (listing only)', `${againMs.toFixed(0)} ms`);
    for (let i = 0; i < 10; i++) await publishRun(source, bucket, await recordRun(a, RUNS + i));
    const [tenMs, ten] = await timed(async () => {
      const team = await open();
      const r = await team.sync();
      team.close();
      return r;
    });
    report(`sync with ${ten.added} new runs`, `${tenMs.toFixed(0)} ms`);
    const [pageMs, page] = await timed(async () => {
      const team = await open();
      const p = await team.firstPage(50);
      team.close();
      return p;
    });
    report(`store opened again: first page of ${page.length}`, `${pageMs.toFixed(0)} ms`, '< 1 s');
    bucket.dispose();
  } finally {
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
