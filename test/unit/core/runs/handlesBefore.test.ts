/**
 * Records and catalogs written before opaque handles (docs/contracts.md §2.2, docs/architecture.md §6).
 *
 * `fixtures/schema2/` is a tenant folder the previous code wrote (commit db5a131, before this change): one
 * run log whose result has the derived handle `res_<callId>` and whose command has `out_<callId>_<slot>`,
 * and the schema 2 catalog that code left beside it (its handles derived from the call id at indexing).
 */
import * as assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { catalogPath, rowCounts, withCatalog } from './catalogFiles.js';
import { openStore, rejectsWith, scratch, sha } from './helpers.js';

const FIXTURE = path.join(__dirname, 'fixtures', 'schema2');
const RUN = 'run-20261202T112112-20c5336645';
const DENIED = 'access denied: unknown or expired handle';
const SMALL = { limits: { largeResultBytes: 4, previewBytes: 4 } };
/** What the previous code recorded, and its bytes. */
const OLD = [
  { handle: 'res_20c5336645-1', bytes: 'a result recorded with a derived handle\n' },
  { handle: 'out_20c5336645-2_stdout', bytes: 'old out\n' },
  { handle: 'out_20c5336645-2_stderr', bytes: 'old err\n' },
  { handle: 'out_20c5336645-2_value', bytes: '{"aborted":false,"code":0,"signal":null,"timedOut":false}' },
];

/** The copied fixture's catalog, read before any store opens it (the fixture itself is never opened: SQLite would add files beside it). */
function catalogAsCopied(dir: string): { version: number; handles: string[] } {
  return withCatalog(dir, (db) => ({
    version: (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
    handles: db
      .prepare('SELECT handle FROM handles ORDER BY handle')
      .all()
      .map((r) => String(r.handle)),
  }));
}

describe('handles written before opaque handles keep resolving; a schema 2 catalog migrates without loss', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = scratch('handles-before'));
    cpSync(FIXTURE, path.join(dir, 'logs', 'tenant-a'), { recursive: true });
  });
  afterEach(() => cleanup());

  it('the fixture is what the previous code left: a log and a schema 2 catalog, the derived handles indexed', () => {
    assert.deepEqual(readdirSync(FIXTURE).sort(), ['.catalog.sqlite', `${RUN}.jsonl`]);
    assert.deepEqual(catalogAsCopied(dir), {
      version: 2,
      handles: [...OLD.map((o) => o.handle), 'res_20c5336645-2'].sort(),
    });
  });

  it('a long-lived store moves the schema 2 catalog aside, rebuilds it from the logs and reads every old handle to its exact bytes', async () => {
    const store = await openStore(dir, SMALL);
    await store.catalogSettled();
    const stats = store.catalogStats();
    assert.deepEqual(
      [stats.rebuilt, stats.movedAside, stats.built, stats.runs, stats.calls],
      [true, 'schema version 2, not 4', true, 1, 2],
    );
    assert.equal(existsSync(`${catalogPath(dir)}.damaged`), true);
    assert.equal(
      withCatalog(dir, (db) => (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version),
      4,
    );
    for (const o of OLD) {
      const src = await store.openHandle(o.handle);
      assert.equal(Buffer.from(await src.readRange(0, src.byteCount)).toString('utf8'), o.bytes, o.handle);
      assert.equal(src.sha256, sha(o.bytes), o.handle);
      assert.equal(src.runId, RUN);
    }
    assert.equal((await store.readToolOutput({ handle: 'out_20c5336645-2_stdout' })).content, 'old out');
    // Nothing lost: the run, its label, its two calls and every handle of them, as listed before.
    const runs = await store.listRuns();
    assert.deepEqual(
      runs.map((r) => [r.runId, r.label, r.status, r.callCount]),
      [[RUN, 'written before opaque handles', 'completed', 2]],
    );
    const page = await store.queryCalls({ offset: 0, limit: 10, order: 'oldest' });
    assert.deepEqual(
      page.rows.map((c) => [c.callId, c.tool, c.handle, c.attachments.map((a) => [a.name, a.handle])]),
      [
        ['20c5336645-1', 't', 'res_20c5336645-1', []],
        [
          '20c5336645-2',
          'run_command',
          'res_20c5336645-2',
          [
            ['stdout', 'out_20c5336645-2_stdout'],
            ['stderr', 'out_20c5336645-2_stderr'],
            ['value', 'out_20c5336645-2_value'],
          ],
        ],
      ],
    );
    // Calls recorded now mint opaque handles beside the old ones; both kinds resolve.
    const run = await store.startRun();
    const fresh = await run.recordResult('t', {}, 'recorded after the change');
    const cmd = await run.runCommand("printf 'new out\\n'", { cwd: dir });
    await run.finish();
    assert.match(fresh.handle!, /^res_[a-z2-7]{26}$/);
    for (const a of cmd.record.attachments) assert.match(a.handle, /^out_[a-z2-7]{26}$/);
    assert.equal((await store.readToolOutput({ handle: fresh.handle! })).content, 'recorded after the change');
    assert.equal((await store.readToolOutput({ handle: cmd.record.attachments[0]!.handle })).content, 'new out');
    assert.equal(
      (await store.readToolOutput({ handle: OLD[0]!.handle })).content,
      'a result recorded with a derived handle',
    );
    assert.deepEqual(rowCounts(dir), { runs: 2, calls: 4, handles: 5 + 1 + 4 });
    // The log of the old run is as it was written.
    assert.deepEqual(
      readFileSync(path.join(dir, 'logs', 'tenant-a', `${RUN}.jsonl`)),
      readFileSync(path.join(FIXTURE, `${RUN}.jsonl`)),
    );
  });

  it('a short-lived process (a command line right after the upgrade) reads an old handle at once: its miss builds the new catalog', async () => {
    const store = await openStore(dir, { ...SMALL, maintenance: false });
    assert.equal(
      (await store.readToolOutput({ handle: 'res_20c5336645-1' })).content,
      'a result recorded with a derived handle',
    );
    assert.equal(store.catalogStats().built, true);
    assert.equal((await store.readToolOutput({ handle: 'out_20c5336645-2_stderr' })).content, 'old err');
    // Never minted, in the old form or the new one: the same sentence.
    for (const handle of ['res_20c5336645-3', 'out_20c5336645-2_f1', 'res_ffffffffff-1', `res_${'a'.repeat(26)}`]) {
      await rejectsWith(store.readToolOutput({ handle }), 'accessDenied', DENIED);
    }
  });

  it("an old handle whose call line the catalog lacks is found in its run's log: the old form names its run by the run's token", async () => {
    const a = await openStore(dir, SMALL);
    await a.catalogSettled();
    // Drop the call's rows (a write lost between log and catalog); the run's row still carries the log's size and mtime.
    withCatalog(dir, (db) => {
      assert.equal(db.prepare("DELETE FROM calls WHERE call_id = '20c5336645-1'").run().changes, 1);
      assert.equal(db.prepare("DELETE FROM handles WHERE call_id = '20c5336645-1'").run().changes, 1);
    });
    const b = await openStore(dir, { ...SMALL, maintenance: false });
    assert.equal(
      (await b.readToolOutput({ handle: 'res_20c5336645-1' })).content,
      'a result recorded with a derived handle',
    );
    assert.equal(b.catalogStats().reindexed, 1);
    await rejectsWith(b.readToolOutput({ handle: 'res_20c5336645-99' }), 'accessDenied', DENIED);
  });
});
