/**
 * Team evidence end to end (docs/contracts.md §7) against a real S3-compatible server on loopback (s3rver): two
 * "machines" (two homes and storage folders) share one bucket through the command line and the MCP server. Machine A
 * captures a failing build with `--publish`; machine B lists it, finds the error line by pattern and its agent reads
 * it by handle over MCP; changed, cut and missing objects are refused; a publish that fails midway lists nothing and
 * the next one completes it; two publishers of one output store it once.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { runCli } from '../../../../src/cli/main.js';
import type { CliIo } from '../../../../src/cli/io.js';
import { openSession } from '../../../../src/cli/session.js';
import { CombinedRuns, ErrorText } from '../../../../src/core/index.js';
import { teamLocation } from '../../../../src/core/team/teamLocation.js';
import { TeamStore } from '../../../../src/core/team/teamStore.js';
import { createEvidenceMcpServer } from '../../../../src/mcp/server.js';
import { startFaultProxy, startS3Server, type S3Server } from '../blobs/s3Fixture.js';

/** An io that collects what a command printed. */
function collect(env: NodeJS.ProcessEnv): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    cwd: os.tmpdir(),
    env,
    async out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
    async tee() {},
    async readStdin() {
      return '';
    },
    onInterrupt() {},
    offInterrupt() {},
  };
  return io;
}

const REPO = path.resolve(__dirname, '..', '..', '..', '..');
/** tsx's loader by path, for the command line run as a process of its own. */
const TSX = pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/**
 * A loopback proxy to the S3 server that forwards every request but holds the first PUT of a run's log unanswered
 * (never forwarded), and says when it has it: the moment to kill a publisher that has stored everything else.
 */
async function holdRunLogPut(
  target: string,
): Promise<{ endpoint: string; held: Promise<void>; close(): Promise<void> }> {
  const t = new URL(target);
  let holding = false;
  let onHeld!: () => void;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  const server = http.createServer((req, res) => {
    if (!holding && req.method === 'PUT' && req.url?.includes('/runs/')) {
      holding = true;
      req.resume();
      onHeld();
      return;
    }
    const up = http.request({
      host: t.hostname,
      port: t.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    });
    up.on('response', (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One machine: its own home and storage folder. */
interface Machine {
  readonly storage: string;
  readonly work: string;
  env(over?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  cli(args: string[], over?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** The line the failing build prints once, deep inside its log. */
const ERROR_LINE = 'src/app.ts(41234,7): error TS2322: Type "string" is not assignable to type "number".';
/** A build log of about 3.7 MB with one error line at line 41,234, then exit 2. */
const BUILD =
  `awk 'BEGIN { for (i = 1; i <= 60000; i++) { if (i == 41234) print "${ERROR_LINE.replace(/"/g, '\\"')}"; ` +
  `else print "compiling module", i, "of 60000 ........................................ ok" } }'; exit 2`;
const HANDLE = /out_[a-z2-7]{26}/g;

const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

describe('team evidence: publish to S3, read it on another machine', function () {
  this.timeout(240_000);
  let s3: S3Server;
  let admin: S3Client;
  let root: string;
  const saved: Record<string, string | undefined> = {};

  const machine = (name: string): Machine => {
    const home = path.join(root, name, 'home');
    const storage = path.join(root, name, 'storage');
    const work = path.join(root, name, 'work');
    for (const d of [home, storage, work]) mkdirSync(d, { recursive: true });
    const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      HOME: home,
      BOUNDED_EVIDENCE_STORAGE: storage,
      AWS_ENDPOINT_URL: s3.endpoint,
      AWS_REGION: 'us-east-1',
      ...over,
    });
    return {
      storage,
      work,
      env,
      async cli(args, over) {
        const io = collect(env(over));
        const code = await runCli(args, io, []);
        return { code, stdout: io.stdout, stderr: io.stderr };
      },
    };
  };

  const keys = async (prefix: string): Promise<string[]> => {
    const page = await admin.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
    return (page.Contents ?? []).map((o) => o.Key!).sort();
  };

  before(async () => {
    s3 = await startS3Server('team');
    admin = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    // The SDK's default chain reads credentials from this process's environment, as it would on a CI runner.
    for (const [k, v] of Object.entries(CREDENTIALS)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });

  after(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    admin.destroy();
    await s3.close();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'be-team-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('CI publishes a failing build; a teammate lists it, finds the error line and their agent reads it by handle', async () => {
    const ci = machine('ci');
    const dev = machine('dev');
    const uri = `s3://${s3.bucket}/ci/main`;
    const captured = await ci.cli(['capture', '--publish', uri, '--shell', BUILD]);
    // The build's exit code, whatever the publish did.
    assert.equal(captured.code, 2);
    const runId = /published (run-[A-Za-z0-9-]+) to s3:\/\/team\/ci\/main: 1 blob\(s\) uploaded, 0 already there/.exec(
      captured.stderr,
    )?.[1];
    assert.ok(runId, captured.stderr);
    const handle = captured.stdout.match(HANDLE)![0]!;
    // Blobs and manifests under their digests; the run's log last, under runs/.
    const stored = await keys('ci/main/');
    assert.equal(stored.filter((k) => k.startsWith('ci/main/blobs/')).length, 1);
    assert.equal(stored.filter((k) => k.startsWith('ci/main/manifests/')).length, 1);
    assert.deepEqual(
      stored.filter((k) => k.startsWith('ci/main/runs/')),
      [`ci/main/runs/${runId}.jsonl`],
    );

    const listed = await dev.cli(['list', '--from', uri]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${runId}\\tcompleted\\t`));

    const found = await dev.cli(['search', 'error TS\\d+', '--from', uri]);
    assert.equal(found.code, 0, found.stderr);
    assert.ok(found.stdout.includes(handle), found.stdout);
    assert.ok(found.stdout.includes('"line_number":41234'), found.stdout);

    // The same bytes on both machines: a byte window read on CI's own store and on the teammate's from the bucket.
    const window = ['--bytes', '2600000-2600400'];
    const local = await ci.cli(['read', handle, ...window]);
    const remote = await dev.cli(['read', handle, '--from', uri, ...window]);
    assert.equal(remote.code, 0, remote.stderr);
    assert.equal(remote.stdout, local.stdout);
    // Verify re-hashes every byte from the bucket; with the store configured, no --from is needed.
    const verified = await dev.cli(['verify', handle], { BOUNDED_EVIDENCE_TEAM_STORES: `ci=${uri}` });
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.equal(verified.stdout, (await ci.cli(['verify', handle])).stdout);
    assert.match(verified.stdout, /^verified out_\w+: \d+ bytes, sha256 [0-9a-f]{64}\n$/);

    // With the store configured, a plain search covers it too.
    const configured = await dev.cli(['search', 'TS2322'], { BOUNDED_EVIDENCE_TEAM_STORES: `ci=${uri}` });
    assert.ok(configured.stdout.includes(handle), configured.stdout + configured.stderr);

    // The teammate's agent: the MCP server reads handles through the team stores the person added.
    const env = { BOUNDED_EVIDENCE_TEAM_STORES: `ci=${uri}`, AWS_ENDPOINT_URL: s3.endpoint };
    for (const k of Object.keys(env)) saved[k] ??= process.env[k];
    Object.assign(process.env, env);
    // One of the teammate's own runs fails too: their search lists it first, then the team store's.
    assert.equal((await dev.cli(['capture', '--shell', 'echo "error TS1005: local"; exit 1'])).code, 1);
    const mcp = await createEvidenceMcpServer({
      storageDir: dev.storage,
      workspaceFolder: dev.work,
      log: () => undefined,
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'agent', version: '1' });
    mcp.serve(a);
    await client.connect(b);
    try {
      const text = async (args: Record<string, unknown>): Promise<string> =>
        ((await client.callTool({ name: 'read_tool_output', arguments: args })).content as { text: string }[])[0]!.text;
      const reply = JSON.parse(await text({ handle, pattern: 'TS2322' })) as {
        total_matches: number;
        matches: { line_number: number; text?: string }[];
        content: string;
      };
      assert.equal(reply.total_matches, 1);
      assert.equal(reply.matches[0]!.line_number, 41234);
      assert.ok(reply.content.includes(ERROR_LINE));
      // evidence_search finds it across this machine's runs and the team store's.
      const search = (await client.callTool({ name: 'evidence_search', arguments: { pattern: 'error TS\\d+' } }))
        .content as { text: string }[];
      const found = JSON.parse(search[0]!.text) as {
        total_matches: number;
        matches: { handle: string; line_number: number }[];
      };
      assert.equal(found.total_matches, 2);
      assert.deepEqual(
        found.matches.map((m) => m.line_number),
        [1, 41234],
      );
      assert.equal(found.matches[1]!.handle, handle);
      // A handle nobody minted: the usual sentence, nothing about the stores asked.
      assert.equal(
        await text({ handle: 'out_aaaaaaaaaaaaaaaaaaaaaaaaaa' }),
        'error: access denied: unknown or expired handle',
      );
    } finally {
      await client.close();
      await mcp.close();
      for (const k of Object.keys(env)) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
        delete saved[k];
      }
    }
  });

  it('a 40 MB failing log: published in parts, its error line found and read on the other machine', async () => {
    const ci = machine('ci');
    const dev = machine('dev');
    const uri = `s3://${s3.bucket}/large`;
    const lines = 640_000;
    const build =
      `awk 'BEGIN { for (i = 1; i <= ${lines}; i++) { if (i == 512345) print "${ERROR_LINE.replace(/"/g, '\\"')}"; ` +
      `else print "compiling module", i, "of ${lines} ....................................... ok" } }'; exit 2`;
    const captured = await ci.cli(['capture', '--publish', uri, '--shell', build]);
    assert.equal(captured.code, 2);
    assert.match(captured.stderr, /: 1 blob\(s\) uploaded, 0 already there, (\d+) bytes\n$/);
    const uploaded = Number(/, (\d+) bytes\n$/.exec(captured.stderr)![1]);
    assert.ok(uploaded > 40_000_000, `${uploaded} bytes uploaded`);
    const handle = captured.stdout.match(HANDLE)![0]!;
    const found = await dev.cli(['search', 'error TS2322', '--from', uri]);
    assert.ok(found.stdout.includes('"line_number":512345'), found.stdout);
    const read = await dev.cli(['read', handle, '--from', uri, '--offset', '512344', '--limit', '1']);
    assert.equal(read.code, 0, read.stdout);
    assert.equal((JSON.parse(read.stdout) as { content: string }).content, ERROR_LINE);
  });

  it('refuses a changed blob, a changed or cut run log, and names the run whose blob is missing', async () => {
    const ci = machine('ci');
    const dev = machine('dev');
    const uri = `s3://${s3.bucket}/tamper`;
    const first = await ci.cli(['capture', '--publish', uri, '--shell', BUILD]);
    const handle = first.stdout.match(HANDLE)![0]!;
    const runId = /published (run-\S+) to/.exec(first.stderr)![1]!;
    const [blobKey] = await keys('tamper/blobs/');
    const original = Buffer.from(
      await (await admin.send(new GetObjectCommand({ Bucket: s3.bucket, Key: blobKey }))).Body!.transformToByteArray(),
    );
    // One byte changed, same size: the chunk's digest no longer matches the manifest.
    const changed = Buffer.from(original);
    changed[2_600_100] = changed[2_600_100]! ^ 1;
    await admin.send(new PutObjectCommand({ Bucket: s3.bucket, Key: blobKey, Body: changed }));
    const read = await dev.cli(['read', handle, '--from', uri, '--bytes', '2600000-2600400']);
    assert.equal(read.code, 1);
    assert.equal(read.stdout, `error: ${ErrorText.digestMismatch}\n`);
    const verified = await dev.cli(['verify', handle, '--from', uri]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^MISMATCH out_/);
    // The same sentence local tampering gets: the CI machine's own blob changed the same way.
    const localBlob = readdirSync(path.join(ci.storage, 'evidence', 'blobs'), { recursive: true, encoding: 'utf8' })
      .map((f) => path.join(ci.storage, 'evidence', 'blobs', f))
      .find((f) => f.endsWith('.stdout'))!;
    writeFileSync(localBlob, changed);
    const local = await ci.cli(['read', handle, '--bytes', '2600000-2600400']);
    assert.equal(local.stdout, read.stdout);
    // Cut short: the size no longer matches.
    await admin.send(new PutObjectCommand({ Bucket: s3.bucket, Key: blobKey, Body: original.subarray(0, 1000) }));
    assert.equal(
      (await dev.cli(['read', handle, '--from', uri, '--pattern', 'TS2322'])).stdout,
      `error: ${ErrorText.digestMismatch}\n`,
    );
    // Gone: an error naming the run, not a crash.
    await admin.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: blobKey }));
    const missing = await dev.cli(['read', handle, '--from', uri, '--pattern', 'TS2322']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, `error: stored bytes of run ${runId} are missing from team store ${uri}\n`);

    // A second run whose published log is changed after the fact: refused and marked, never indexed.
    const second = await ci.cli(['capture', '--publish', uri, '--shell', 'echo small; exit 1']);
    const secondId = /published (run-\S+) to/.exec(second.stderr)![1]!;
    const logKey = `tamper/runs/${secondId}.jsonl`;
    const got = await admin.send(new GetObjectCommand({ Bucket: s3.bucket, Key: logKey }));
    const log = Buffer.from(await got.Body!.transformToByteArray());
    // The refused run is placed by the bucket's time, which has whole seconds (s3rver gives the file's mtime, which
    // lags the clock by a tick): written again until that second is past the first run's, it sorts first.
    const firstSecond = Date.parse(
      runId.slice(4, 19).replace(/(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)/, '$1-$2-$3T$4:$5:$6Z'),
    );
    for (;;) {
      await admin.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: logKey,
          Body: log.subarray(0, log.length - 10),
          Metadata: got.Metadata,
        }),
      );
      const head = await admin.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: logKey }));
      if (head.LastModified!.getTime() > firstSecond) break;
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
    }
    const listed = await dev.cli(['list', '--from', uri]);
    assert.equal(listed.code, 1);
    assert.ok(listed.stdout.includes(`${secondId}\trefused\t${ErrorText.digestMismatch}`), listed.stdout);
    assert.ok(listed.stdout.includes(`${runId}\tcompleted`), listed.stdout);

    // The core's merged list: the refused run is listed, marked and placed by the bucket's time; every read of it is
    // refused with the tampering sentence, never dropped or resolved.
    const secondHandle = /(?:res|out)_[a-z2-7]{26}/.exec(log.toString())![0];
    const mine = await openSession(path.join(dev.storage, 'merged'));
    const team = await TeamStore.open({
      name: 'ci',
      location: teamLocation(uri, { AWS_ENDPOINT_URL: s3.endpoint }),
      teamDir: path.join(dev.storage, 'merged', 'team'),
    });
    try {
      const sync = await team.sync();
      assert.deepEqual(sync.refused, [secondId]);
      const combined = new CombinedRuns(mine.runs, [team]);
      const runs = await combined.queryRuns({ limit: 10 });
      assert.deepEqual(
        runs.map((r) => [r.runId, r.store, r.refused]),
        [
          [secondId, 'ci', 'tampered'],
          [runId, 'ci', undefined],
        ],
      );
      assert.deepEqual(
        (await combined.listRuns()).map((r) => r.runId),
        runs.map((r) => r.runId),
      );
      assert.equal((await combined.queryRuns({ runIds: [secondId], limit: 1 }))[0]?.refused, 'tampered');
      assert.equal((await combined.totals()).teamRuns, 2);
      assert.equal(await combined.isTeamRun(secondId), true);
      const sentence = new RegExp(`^${ErrorText.digestMismatch}$`);
      await assert.rejects(combined.report(secondId), { message: sentence });
      await assert.rejects(combined.readToolOutput({ handle: secondHandle }), { message: sentence });
      await assert.rejects(combined.openHandle(secondHandle), { message: sentence });
      await assert.rejects(combined.deleteRun(secondId), /read-only/);
    } finally {
      team.close();
      mine.runs.close();
    }
  });

  it('a publish that fails midway lists nothing; the next publish completes it, uploading only what is missing', async () => {
    const ci = machine('ci');
    const dev = machine('dev');
    const uri = `s3://${s3.bucket}/midway`;
    const proxy = await startFaultProxy(s3.endpoint);
    try {
      // The blob and its manifest pass; every PUT after them (the run's log, and its retries) fails.
      proxy.failWith500('PUT', 2);
      const failed = await ci.cli(['capture', '--publish', uri, '--shell', BUILD], {
        AWS_ENDPOINT_URL: proxy.endpoint,
      });
      assert.equal(failed.code, 2, "the exit code stays the command's");
      const lines = failed.stderr.trim().split('\n');
      assert.equal(lines.length, 1, failed.stderr);
      const runId = /^bounded-evidence: (run-\S+) was not published to s3:\/\/team\/midway: /.exec(lines[0]!)?.[1];
      assert.ok(runId, failed.stderr);
      assert.equal((await keys('midway/blobs/')).length, 1);
      assert.deepEqual(await keys('midway/runs/'), []);
      assert.equal((await dev.cli(['list', '--from', uri])).stdout, `no runs in ${uri}\n`);
      // Kept here, and published by the next attempt: the blob and manifest already there are not sent again.
      proxy.heal();
      const again = await ci.cli(['publish', runId!, '--to', uri]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /: 0 blob\(s\) uploaded, 1 already there, \d+ bytes\n$/);
      const bytes = Number(/, (\d+) bytes\n$/.exec(again.stdout)![1]);
      assert.ok(bytes < 10_000, `only the run's log was uploaded (${bytes} bytes)`);
      assert.match((await dev.cli(['list', '--from', uri])).stdout, new RegExp(`^${runId}\\tcompleted`));
    } finally {
      await proxy.close();
    }
  });

  it('a publisher killed before the run log lists nothing; the next publish completes it', async () => {
    const ci = machine('ci');
    const dev = machine('dev');
    const uri = `s3://${s3.bucket}/killed`;
    const captured = await ci.cli(['capture', '--shell', BUILD]);
    assert.equal(captured.code, 2);
    const runId = (await ci.cli(['list'])).stdout.split('\t')[0]!;
    const proxy = await holdRunLogPut(s3.endpoint);
    try {
      const child = spawn(
        process.execPath,
        ['--import', TSX, path.join(REPO, 'src', 'cli', 'main.ts'), 'publish', runId, '--to', uri],
        { env: { ...ci.env({ AWS_ENDPOINT_URL: proxy.endpoint }), ...CREDENTIALS }, stdio: 'ignore' },
      );
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_c, sig) => resolve(sig)));
      await proxy.held;
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
    } finally {
      await proxy.close();
    }
    // Its blob and manifest are there; its log is not, so no machine lists it.
    assert.equal((await keys('killed/blobs/')).length, 1);
    assert.deepEqual(await keys('killed/runs/'), []);
    assert.equal((await dev.cli(['list', '--from', uri])).stdout, `no runs in ${uri}\n`);
    const again = await ci.cli(['publish', runId, '--to', uri]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /: 0 blob\(s\) uploaded, 1 already there, \d+ bytes\n$/);
    assert.match((await dev.cli(['list', '--from', uri])).stdout, new RegExp(`^${runId}\\tcompleted`));
  });

  it('two publishers of the same output store it once, and publishing a run twice replaces nothing', async () => {
    const a = machine('a');
    const b = machine('b');
    const uri = `s3://${s3.bucket}/shared`;
    const [ra, rb] = await Promise.all([
      a.cli(['capture', '--publish', uri, '--shell', BUILD]),
      b.cli(['capture', '--publish', uri, '--shell', BUILD]),
    ]);
    assert.equal(ra.code, 2);
    assert.equal(rb.code, 2);
    assert.match(ra.stderr, /published run-/);
    assert.match(rb.stderr, /published run-/);
    assert.equal((await keys('shared/blobs/')).length, 1);
    assert.equal((await keys('shared/manifests/')).length, 1);
    assert.equal((await keys('shared/runs/')).length, 2);
    const runId = /published (run-\S+) to/.exec(ra.stderr)![1]!;
    const before = await admin.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `shared/runs/${runId}.jsonl` }));
    const again = await a.cli(['publish', runId, '--to', uri]);
    assert.equal(again.code, 0);
    assert.equal(again.stdout, `${runId} was already in ${uri} (0 missing blob(s) uploaded, 0 bytes)\n`);
    const after = await admin.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `shared/runs/${runId}.jsonl` }));
    assert.equal(after.ETag, before.ETag);
    // Both runs read on a third machine, each handle from its own run.
    const c = machine('c');
    const listed = await c.cli(['list', '--from', uri]);
    assert.equal(listed.stdout.trim().split('\n').length, 2, listed.stdout);
    for (const r of [ra, rb]) {
      const handle = r.stdout.match(HANDLE)![0]!;
      const read = await c.cli(['read', handle, '--from', uri, '--pattern', 'TS2322']);
      assert.equal(read.code, 0, read.stdout);
      assert.ok(read.stdout.includes('"line_number":41234'));
    }
  });

  it('refuses bad targets before running anything', async () => {
    const ci = machine('ci');
    for (const target of ['s3://', 's3://UPPER/x', 's3://team/../x', 'http://team/x', 'nosuchname']) {
      const r = await ci.cli(['capture', '--publish', target, '--shell', 'echo hi']);
      assert.equal(r.code, 2, target);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.split('\n').length, 2, r.stderr);
    }
    assert.equal((await ci.cli(['list'])).stdout, 'no runs recorded yet\n');
  });
});
