/**
 * The filesystem blob store syncs a blob's bytes before renaming
 * it into place, as artifacts do, and a start-up removes the temporary file a killed
 * writer left behind (docs/contracts.md §2.6).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, promises as fsp, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';

const REPO = path.resolve(__dirname, '..', '..', '..', '..');

function tempsUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith('.tmp')) out.push(path.join(d, e.name));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

describe('filesystem blob store: durability and leftovers', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-fsblob-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fdatasyncs the temporary file before renaming it into place', async () => {
    const store = await FsBlobStore.open(path.join(dir, 'blobs'));
    const probe = await fsp.open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void>; sync: () => Promise<void> };
    await probe.close();
    const events: string[] = [];
    const realDatasync = proto.datasync;
    const realSync = proto.sync;
    const realRename = fsp.rename;
    proto.datasync = function (this: unknown) {
      events.push('datasync');
      return realDatasync.call(this);
    };
    proto.sync = function (this: unknown) {
      events.push('sync');
      return realSync.call(this);
    };
    (fsp as { rename: typeof fsp.rename }).rename = async (a, b) => {
      events.push(`rename ${path.basename(String(b))}`);
      return realRename(a, b);
    };
    try {
      await store.put({ tenant: 't', runId: 'r', callId: 'c1' }, Buffer.from('durable bytes'));
    } finally {
      proto.datasync = realDatasync;
      proto.sync = realSync;
      (fsp as { rename: typeof fsp.rename }).rename = realRename;
    }
    const synced = events.findIndex((e) => e === 'datasync' || e === 'sync');
    const renamed = events.indexOf('rename c1');
    assert.ok(synced >= 0 && renamed > synced, `events: ${events.join(', ')}`);
  });

  it("a writer killed with SIGKILL mid-put leaves a temporary file that the next open removes; a live writer's is kept", async function () {
    this.timeout(60_000);
    const root = path.join(dir, 'blobs');
    // A real writer process: puts an endless stream, and is killed once bytes are on disk.
    const writer = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `
      const { FsBlobStore } = require(${JSON.stringify(path.join(REPO, 'src', 'core', 'blobs', 'fsBlobStore.ts'))});
      (async () => {
        const store = await FsBlobStore.open(${JSON.stringify(root)});
        async function* endless() { for (;;) { yield Buffer.alloc(1 << 20, 120); await new Promise((r) => setTimeout(r, 5)); } }
        await store.put({ tenant: 't', runId: 'r', callId: 'c1' }, endless());
      })();`,
      ],
      { cwd: REPO, stdio: 'ignore' },
    );
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const t = tempsUnder(root);
      if (t.length === 1 && (await fsp.stat(t[0]!)).size > 3 * (1 << 20)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    writer.kill('SIGKILL');
    await new Promise((r) => writer.once('exit', r));
    const left = tempsUnder(root);
    assert.equal(left.length, 1, 'the killed writer left its temporary file');
    // A temporary file of a live writer (this process), just written: kept.
    const live = path.join(root, 't', 'r', `c2~${process.pid}.0123456789ab.tmp`);
    writeFileSync(live, 'in progress');
    // A legacy-named temporary file (no writer recorded) a day old: removed by age.
    const old = path.join(root, 't', 'r', 'c3~0123456789ab.tmp');
    writeFileSync(old, 'old');
    const day = Date.now() / 1000 - 86_400;
    utimesSync(old, day, day);
    const reopened = await FsBlobStore.open(root);
    const removed = await reopened.orphanSweep;
    assert.deepEqual(tempsUnder(root).sort(), [live]);
    assert.equal(removed.files, 2);
    assert.ok(removed.bytes > 3 * (1 << 20), String(removed.bytes));
  });
});
