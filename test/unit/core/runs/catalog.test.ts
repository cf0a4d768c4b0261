import * as assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { parseRunLog } from '../../../../src/core/runs/log/runLog.js';
import type { RunStore } from '../../../../src/core/runs/store/runStore.js';
import type { CallSummary } from '../../../../src/core/runs/types.js';
import { catalogBytes, catalogPath, rowCounts, withCatalog } from './catalogFiles.js';
import { openStore, rejectsWith, scratch } from './helpers.js';

const run = promisify(execFile);
const DENIED = 'access denied: unknown or expired handle';
const SMALL = { limits: { largeResultBytes: 4, previewBytes: 4 } };
const WRITER = path.join(__dirname, 'fixtures', 'catalogWriter.ts');
const MISS_BEFORE_BUILD = path.join(__dirname, 'fixtures', 'missBeforeBuild.ts');

async function readAll(store: RunStore, handles: readonly { handle: string; text: string }[]): Promise<void> {
  for (const h of handles) assert.equal((await store.readToolOutput({ handle: h.handle })).content, h.text, h.handle);
}

describe('catalog: an index of runs, calls and handles (docs/architecture.md §6)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('catalog')));
  afterEach(() => cleanup());

  it('is written with each record: a new store resolves handles and lists without re-indexing any log', async () => {
    const a = await openStore(dir, SMALL);
    const r = await a.startRun({ label: 'alpha' });
    const out = await r.recordResult('t', {}, 'first result');
    await r.finish();
    const b = await openStore(dir, SMALL);
    await b.catalogSettled();
    assert.equal((await b.readToolOutput({ handle: out.handle! })).content, 'first result');
    assert.deepEqual(
      (await b.queryCalls({ offset: 0, limit: 10 })).rows.map((c) => c.handle),
      [out.handle],
    );
    assert.equal(b.catalogStats().reindexed, 0);
    assert.equal(b.catalogStats().rebuilt, false);
    // Totals (the status bar's) come from the catalog: the listed runs' bytes plus the catalog's own files.
    const listed = await b.listRuns();
    assert.deepEqual(await b.totals(), {
      runs: listed.length,
      bytes: listed.reduce((n, x) => n + x.totalBytes, 0) + catalogBytes(dir),
      calls: listed.reduce((n, x) => n + x.callCount, 0),
    });
    // One run, one call, one handle; the run's row carries its log's size.
    assert.deepEqual(rowCounts(dir), { runs: 1, calls: 1, handles: 1 });
    assert.deepEqual(
      withCatalog(dir, (db) => ({ ...db.prepare('SELECT log_size, status, label FROM runs').get() })),
      {
        log_size: readFileSync(a.logPath(r.runId)).length,
        status: 'completed',
        label: 'alpha',
      },
    );
  });

  it("a handle whose call the catalog lacks (the writer's last index writes lost) is found in its unfinished run's log (the logs are the truth), a forged one is still refused", async () => {
    const a = await openStore(dir, SMALL);
    await a.catalogSettled();
    const r = await a.startRun({ label: 'lost line' });
    const kept = await r.recordResult('t', {}, 'kept in the catalog');
    // The writer's index writes fail from here on (a recording never fails for it): the log has the call and the
    // run's finish, the catalog neither, its row still the log's size before them.
    (a as unknown as { catalog: { recorded: () => Promise<void> } }).catalog.recorded = () => Promise.resolve();
    const lost = await r.recordResult('t', {}, 'its catalog line is lost');
    await r.finish();
    assert.deepEqual(rowCounts(dir), { runs: 1, calls: 1, handles: 1 });
    // A short-lived reader (no start-up check): the minted handle names no run, so the miss checks the unfinished runs.
    const b = await openStore(dir, { ...SMALL, maintenance: false });
    assert.equal((await b.readToolOutput({ handle: kept.handle! })).content, 'kept in the catalog');
    assert.equal((await b.readToolOutput({ handle: lost.handle! })).content, 'its catalog line is lost');
    assert.equal(b.catalogStats().listings, 0);
    assert.deepEqual(
      withCatalog(dir, (db) => ({ ...db.prepare('SELECT status FROM runs').get() })),
      { status: 'completed' },
    );
    await rejectsWith(b.readToolOutput({ handle: `res_${'a'.repeat(26)}` }), 'accessDenied', DENIED);
    await rejectsWith(
      b.readToolOutput({ handle: `${lost.handle!.slice(0, -1)}${lost.handle!.endsWith('a') ? 'e' : 'a'}` }),
      'accessDenied',
      DENIED,
    );
  });

  it('a miss whose run another store re-indexes while this one checks it is answered (the row is looked up again)', async () => {
    const a = await openStore(dir, SMALL);
    await a.catalogSettled();
    const r = await a.startRun();
    (a as unknown as { catalog: { recorded: () => Promise<void> } }).catalog.recorded = () => Promise.resolve();
    const lost = await r.recordResult('t', {}, 'indexed by the other store');
    const b = await openStore(dir, { ...SMALL, maintenance: false });
    const other = await openStore(dir, { ...SMALL, maintenance: false });
    // The interleaving seen under load: b looks the handle up (no row), and while it stats the unfinished runs'
    // logs another store re-indexes the run, so b's own check finds every row fresh and re-indexes nothing.
    type Checks = { verifyUnfinished: () => Promise<boolean> };
    const checks = (b as unknown as { catalog: Checks }).catalog;
    const own = checks.verifyUnfinished.bind(checks);
    checks.verifyUnfinished = async () => {
      assert.equal(await (other as unknown as { catalog: Checks }).catalog.verifyUnfinished(), true);
      return own();
    };
    assert.equal((await b.readToolOutput({ handle: lost.handle! })).content, 'indexed by the other store');
    assert.equal(b.catalogStats().reindexed, 0);
    assert.equal(other.catalogStats().reindexed, 1);
  });

  it('a handle of a run the catalog does not know at all: found by the next check of the logs folder, at once while the catalog is not built', async () => {
    const a = await openStore(dir, SMALL);
    const r = await a.startRun({ label: 'unindexed run' });
    const out = await r.recordResult('t', {}, 'a run with no catalog row');
    await r.finish();
    await a.catalogSettled();
    // Drop every row of that run (a writer killed between its first log line and its transaction).
    withCatalog(dir, (db) => {
      for (const t of ['runs', 'calls', 'handles']) db.prepare(`DELETE FROM ${t} WHERE run_id = ?`).run(r.runId);
    });
    assert.deepEqual(rowCounts(dir), { runs: 0, calls: 0, handles: 0 });
    // A built catalog indexed every run in the same step as its log: a miss costs a lookup, never a listing of the
    // folder, so a short-lived process does not find that run (the one case, docs/architecture.md §6 "Repair")...
    const b = await openStore(dir, { ...SMALL, maintenance: false });
    await rejectsWith(b.readToolOutput({ handle: out.handle! }), 'accessDenied', DENIED);
    assert.equal(b.catalogStats().listings, 0);
    // ...until a long-lived one checks the folder after its open.
    const c = await openStore(dir, SMALL);
    await c.catalogSettled();
    assert.equal((await b.readToolOutput({ handle: out.handle! })).content, 'a run with no catalog row');
    // A catalog whose build never finished may lack any run: a miss of an unknown run builds it (here, at once).
    withCatalog(dir, (db) => {
      for (const t of ['runs', 'calls', 'handles']) db.prepare(`DELETE FROM ${t} WHERE run_id = ?`).run(r.runId);
      db.exec("DELETE FROM meta WHERE key = 'built'");
    });
    const d = await openStore(dir, { ...SMALL, maintenance: false });
    assert.equal((await d.readToolOutput({ handle: out.handle! })).content, 'a run with no catalog row');
    assert.deepEqual([d.catalogStats().listings, d.catalogStats().built], [1, true]);
  });

  it("a handle read by a script with nothing else pending, on a catalog not yet built, is answered (the build is not left to an unref'd timer)", async () => {
    const a = await openStore(dir, SMALL);
    const r = await a.startRun();
    const out = await r.recordResult('t', {}, 'answered before the script ends');
    await r.finish();
    a.close();
    // The catalog lost: the next store opens a new one, not built from the logs.
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${catalogPath(dir)}${suffix}`, { force: true });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', MISS_BEFORE_BUILD, dir, out.handle!]);
    assert.deepEqual(JSON.parse(stdout), { content: 'answered before the script ends' });
  });

  it('resolves a handle of a run another store keeps appending to (a growing log never starves the reader)', async function () {
    this.timeout(60_000);
    const writer = await openStore(dir, SMALL);
    const reader = await openStore(dir, SMALL);
    const run = await writer.startRun({ label: 'busy' });
    const first = await run.recordResult('t', {}, 'the first result');
    let writing = true;
    const appends = (async () => {
      for (let i = 0; writing && i < 2000; i++) await run.recordResult('t', { i }, `result ${i}`);
    })();
    try {
      // Every read finds the run's log changed since the reader last indexed it.
      for (let i = 0; i < 60; i++)
        assert.equal((await reader.readToolOutput({ handle: first.handle! })).content, 'the first result');
    } finally {
      writing = false;
      await appends;
    }
    await run.finish();
  });

  it('two processes and this one write the same catalog at once: no row lost, every handle resolves', async function () {
    this.timeout(120_000);
    const store = await openStore(dir, SMALL);
    const writers = ['p1', 'p2'].map((label) =>
      run(process.execPath, ['--import', 'tsx', WRITER, dir, label, '15', '4', '25'], {
        cwd: path.join(__dirname, '../../../..'),
      }),
    );
    let running = writers.length;
    for (const w of writers)
      void w
        .finally(() => {
          running--;
        })
        .catch(() => undefined);
    const mine: { handle: string; text: string }[] = [];
    // This process keeps recording until both others are done, so their writes overlap with its own.
    let myRuns = 0;
    for (let i = 0; running > 0 || i < 15; i++, myRuns++) {
      const r = await store.startRun({ label: `me-${i}` });
      for (let c = 0; c < 4; c++) {
        const text = `me run ${i} call ${c}`;
        mine.push({ handle: (await r.recordResult('tool-me', { c }, text)).handle!, text });
      }
      await r.finish();
    }
    const theirs = (await Promise.all(writers)).flatMap(
      (w) => JSON.parse(w.stdout) as { handle: string; text: string }[],
    );
    assert.equal(theirs.length, 120);
    // This store sees the others' handles at once (one database), and so does a new one, without re-indexing a log.
    await readAll(store, [...mine, ...theirs]);
    const fresh = await openStore(dir, SMALL);
    await fresh.catalogSettled();
    await readAll(fresh, [...mine, ...theirs]);
    assert.equal(fresh.catalogStats().reindexed, 0);
    // The writes overlapped: runs of this process started between the first and last run of each other one.
    const runs = (await fresh.listRuns()).reverse();
    const who = runs.map((r) => r.label!.split('-')[0]!);
    for (const p of ['p1', 'p2']) {
      assert.ok(
        who.slice(who.indexOf(p), who.lastIndexOf(p)).includes('me'),
        `no run of this process between ${p}'s first and last`,
      );
    }
    // Every run, call and handle has its row, each run's row matches its log, every call is finished.
    const total = myRuns + 30;
    assert.deepEqual(rowCounts(dir), { runs: total, calls: total * 4, handles: total * 4 });
    assert.equal(
      await fresh
        .catalogSettled()
        .then(async () => fresh.reconcileWithLogs())
        .then(() => fresh.catalogStats().reindexed),
      0,
    );
    assert.deepEqual(
      runs.map((r) => [r.status, r.callCount]),
      runs.map(() => ['completed', 4]),
    );
    const page = await fresh.queryCalls({ offset: 0, limit: 1000, tool: 'tool-p2' });
    assert.equal(page.total, 60);
    assert.deepEqual(
      new Set(page.rows.map((c) => c.handle)),
      new Set(theirs.filter((h) => h.text.startsWith('p2')).map((h) => h.handle)),
    );
  });

  it('a check of the logs folder never drops the row of a run started while it ran (the listing did not see its log)', async function () {
    this.timeout(120_000);
    const store = await openStore(dir, SMALL);
    const seedRun = await store.startRun({ label: 'seed' });
    await seedRun.finish();
    // 1,500 logs the catalog lacks (clones of one run's log): the check indexes them, yielding between batches.
    const logs = path.dirname(store.logPath(seedRun.runId));
    const text = readFileSync(store.logPath(seedRun.runId), 'utf8');
    const token = seedRun.runId.slice(-10);
    for (let i = 0; i < 1500; i++) {
      const t = (0x1000000000 + i).toString(16).slice(-10);
      writeFileSync(path.join(logs, `${seedRun.runId.slice(0, -10)}${t}.jsonl`), text.split(token).join(t));
    }
    const handles: { handle: string; text: string }[] = [];
    let checking = true;
    const check = store.reconcileWithLogs().finally(() => {
      checking = false;
    });
    // Runs recorded while the check lists the folder and walks the rows.
    for (let i = 0; checking || i < 5; i++) {
      const r = await store.startRun({ label: `during ${i}` });
      handles.push({
        handle: (await r.recordResult('t', {}, `during the check ${i}`)).handle!,
        text: `during the check ${i}`,
      });
      await r.finish();
    }
    await check;
    await readAll(store, handles);
    assert.equal((await store.queryRuns({ limit: 1000, text: 'during' })).length, handles.length);
    assert.equal(rowCounts(dir).runs, 1501 + handles.length);
  });

  it('a writer killed (SIGKILL) in the middle of recording: the database stays whole, and every record its logs hold is listed and resolves', async function () {
    this.timeout(120_000);
    await (await openStore(dir, SMALL)).catalogSettled();
    // A writer with no pause between records: killed at a random point of its stream of log appends and transactions.
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, 'k', '400', '3', '0'], {
      cwd: path.join(__dirname, '../../../..'),
      stdio: 'ignore',
    });
    const logs = path.join(dir, 'logs', 'tenant-a');
    // Killed once it has written a good number of runs.
    while (readdirSync(logs).filter((n) => n.endsWith('.jsonl')).length < 40)
      await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(
      withCatalog(dir, (db) => (db.prepare('PRAGMA quick_check').get() as { quick_check: string }).quick_check),
      'ok',
    );
    // What the logs hold, read without the catalog: each finished call's handle and text.
    const expected: { handle: string; text: string }[] = [];
    let finished = 0;
    for (const name of readdirSync(logs).filter((n) => n.endsWith('.jsonl'))) {
      const { records } = parseRunLog(readFileSync(path.join(logs, name)), name.slice(0, -6));
      // The writer's label is `k-<run>` and each result `k run <run> call <c>` (fixtures/catalogWriter.ts).
      const run = records[0]?.type === 'run_started' ? records[0].label?.slice(2) : undefined;
      for (const r of records) {
        if (r.type === 'call_finished')
          expected.push({ handle: r.resultHandle!, text: `k run ${run} call ${(r.arguments as { c: number }).c}` });
        if (r.type === 'run_finished') finished++;
      }
    }
    assert.ok(
      expected.length >= 100 && finished >= 30,
      `${expected.length} calls, ${finished} runs finished before the kill`,
    );
    // A long-lived store after the crash: the check of unfinished runs re-indexes the one the writer was in.
    const after = await openStore(dir, SMALL);
    await after.catalogSettled();
    const page = await after.queryCalls({ offset: 0, limit: 1000, order: 'oldest' });
    assert.deepEqual(
      new Set(page.rows.filter((c) => c.handle).map((c) => c.handle)),
      new Set(expected.map((e) => e.handle)),
    );
    await readAll(after, expected);
    assert.equal(rowCounts(dir).handles, expected.length);
  });

  it('a write waits while another process holds the write lock (busy_timeout), then lands: no row lost', async function () {
    this.timeout(60_000);
    const store = await openStore(dir, SMALL);
    // The start-up maintenance writes too: done first, so the only write held up is the one under test (a
    // maintenance write waiting on the main thread would hold up the record the other process waits for).
    await store.catalogSettled();
    const r = await store.startRun({ label: 'waits' });
    const log = store.logPath(r.runId);
    // Another process takes the write lock and keeps it until this writer's next log line is on disk (the
    // writer appends to its log, then indexes it) and this writer is asleep in SQLite's busy wait, notes what the
    // catalog holds then, and only then lets go: signals, not timers, so a loaded machine changes nothing.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `
      const { DatabaseSync } = require('node:sqlite');
      const { readFileSync, statSync } = require('node:fs');
      const db = new DatabaseSync(${JSON.stringify(catalogPath(dir))});
      const log = ${JSON.stringify(log)};
      const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      // The writer's main thread sleeping in the kernel: SQLite's busy handler between two tries.
      const waiting = () => readFileSync('/proc/${process.pid}/wchan', 'utf8').includes('nanosleep');
      db.exec('BEGIN IMMEDIATE');
      const before = statSync(log).size;
      process.stdout.write('locked\\n');
      while (statSync(log).size === before) sleep(5);
      const calls = db.prepare('SELECT count(*) AS n FROM calls').get().n;
      while (!waiting()) sleep(1);
      db.exec('COMMIT');
      process.stdout.write(JSON.stringify({ callsWhileLogGrew: calls }) + '\\n');`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let said = '';
    holder.stdout.setEncoding('utf8').on('data', (d: string) => (said += d));
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    while (!said.includes('locked\n')) await new Promise((resolve) => holder.stdout.once('data', resolve));
    const out = await r.recordResult('t', {}, 'recorded while another process wrote');
    assert.equal(await exited, 0);
    // Order, not time: the writer's log line was on disk while the other process held the lock and its call
    // had no row yet, so its catalog write came after the lock was released; and it landed (below).
    assert.deepEqual(JSON.parse(said.split('\n')[1]!), { callsWhileLogGrew: 0 });
    // Its own write waited and landed: the writer never had to re-index its run from the log.
    assert.deepEqual(
      [store.catalogStats().calls, store.catalogStats().reindexed, rowCounts(dir)],
      [1, 0, { runs: 1, calls: 1, handles: 1 }],
    );
    await r.finish();
    // The row landed in the record's own transaction: a new store resolves it without re-indexing the log.
    const fresh = await openStore(dir, { ...SMALL, maintenance: false });
    assert.equal((await fresh.readToolOutput({ handle: out.handle! })).content, 'recorded while another process wrote');
    assert.equal(fresh.catalogStats().reindexed, 0);
    assert.deepEqual(rowCounts(dir), { runs: 1, calls: 1, handles: 1 });
  });

  it('opening a new catalog while another process is creating it (SQLite answers busy at once, whatever busy_timeout says) waits and opens it', async function () {
    this.timeout(60_000);
    // Two processes creating the file at once: one holds its write lock; the other, having read the file empty,
    // asks for it to turn the file to WAL. SQLite answers "database is locked" without waiting (a reader waiting
    // for a writer that waits for the reader would wait for ever); the open tries again until the other lets go.
    mkdirSync(path.dirname(catalogPath(dir)), { recursive: true });
    writeFileSync(catalogPath(dir), '');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `
      const { DatabaseSync } = require('node:sqlite');
      const db = new DatabaseSync(${JSON.stringify(catalogPath(dir))});
      db.exec('BEGIN IMMEDIATE');
      process.stdout.write('writing\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      db.exec('COMMIT');`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const store = await openStore(dir, SMALL);
    assert.equal(await exited, 0);
    const r = await store.startRun();
    const out = await r.recordResult('t', {}, 'after the wait');
    await r.finish();
    assert.equal(
      (await (await openStore(dir, SMALL)).readToolOutput({ handle: out.handle! })).content,
      'after the wait',
    );
    assert.equal(store.catalogStats().movedAside, undefined);
  });

  it('a write the catalog lost (a writer killed between its log and its catalog) is repaired from the log', async () => {
    const a = await openStore(dir, SMALL);
    const r1 = await a.startRun();
    const first = await r1.recordResult('t', {}, 'kept result');
    const lost = await r1.recordResult('t', {}, 'the catalog never saw this call finish');
    // The call's finish reached the log only: its row is back to started, the run's row to the log's size before it.
    const callId = lost.callId;
    const logBefore = readFileSync(a.logPath(r1.runId), 'utf8')
      .split('\n')
      .filter((l) => !(l.includes('"call_finished"') && l.includes(callId)))
      .join('\n');
    withCatalog(dir, (db) => {
      db.prepare("UPDATE calls SET outcome = 'open', log_off = NULL, log_len = NULL WHERE call_id = ?").run(callId);
      db.prepare('DELETE FROM handles WHERE call_id = ?').run(callId);
      db.prepare('UPDATE runs SET log_size = ?, call_count = 1 WHERE run_id = ?').run(
        Buffer.byteLength(logBefore),
        r1.runId,
      );
    });
    // Other writers go on recording.
    const b = await openStore(dir, SMALL);
    const r2 = await b.startRun();
    const later = await r2.recordResult('t', {}, 'written after the loss');
    await r2.finish();
    const c = await openStore(dir, SMALL);
    // The lost call is found again: its run is re-indexed from its log (its row does not match the log).
    assert.equal((await c.readToolOutput({ handle: lost.handle! })).content, 'the catalog never saw this call finish');
    await c.catalogSettled();
    await readAll(c, [
      { handle: first.handle!, text: 'kept result' },
      { handle: later.handle!, text: 'written after the loss' },
    ]);
    assert.deepEqual(
      (await c.queryCalls({ offset: 0, limit: 10, order: 'oldest' })).rows.map((x) => x.handle),
      [first.handle, lost.handle, later.handle],
    );
    // The live writer's next record finds its run's row re-indexed by another process and goes on from there.
    await r1.finish();
    assert.deepEqual(
      (await a.queryRuns({ limit: 10 })).map((r) => [r.runId, r.status, r.callCount]),
      [
        [r2.runId, 'completed', 1],
        [r1.runId, 'completed', 2],
      ],
    );
  });

  it('a stale catalog is detected and repaired: a log ahead of it, a log gone, a tampered log, the catalog gone or damaged', async () => {
    const a = await openStore(dir, SMALL);
    const done = await a.startRun({ label: 'done' });
    const kept = await done.recordResult('t', {}, 'kept result');
    await done.finish();
    const gone = await a.startRun({ label: 'gone' });
    const goneOut = await gone.recordResult('t', {}, 'deleted behind its back');
    await gone.finish();
    const open = await a.startRun({ label: 'open' });
    const openOut = await open.recordResult('t', {}, 'abc def');
    // The writer crashed after appending a record to its log and before the catalog: forge that record.
    const log = a.logPath(open.runId);
    const finished = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((x) => x.type === 'call_finished')!;
    const callId = `${String(finished.callId).split('-')[0]}-9`;
    appendFileSync(log, `${JSON.stringify({ ...finished, callId, resultHandle: `res_${callId}` })}\n`);
    rmSync(a.logPath(gone.runId));

    const b = await openStore(dir, SMALL);
    // The unfinished run is checked against its log; the missing log is a deleted run.
    assert.equal((await b.readToolOutput({ handle: `res_${callId}` })).content, 'abc def');
    await b.catalogSettled();
    await rejectsWith(b.readToolOutput({ handle: goneOut.handle! }), 'accessDenied', DENIED);
    assert.deepEqual(
      (await b.queryRuns({ limit: 10 })).map((r) => r.label),
      ['open', 'done'],
    );
    assert.equal((await b.queryCalls({ offset: 0, limit: 10, runId: open.runId })).total, 2);

    // A log rewritten to the same size (another tenant's run now): the row is checked before it is served.
    const doneLog = a.logPath(done.runId);
    writeFileSync(doneLog, readFileSync(doneLog, 'utf8').replace('"tenant":"tenant-a"', '"tenant":"tenant-z"'));
    await rejectsWith(b.readToolOutput({ handle: kept.handle! }), 'accessDenied', DENIED);
    assert.deepEqual(
      (await b.queryRuns({ limit: 10 })).map((r) => r.label),
      ['open'],
    );

    // The catalog deleted: rebuilt from the logs after the open.
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${catalogPath(dir)}${suffix}`, { force: true });
    const c = await openStore(dir, SMALL);
    assert.equal(c.catalogStats().rebuilt, true);
    await c.catalogSettled();
    assert.equal((await c.readToolOutput({ handle: openOut.handle! })).content, 'abc def');
    assert.deepEqual(
      (await c.queryCalls({ offset: 0, limit: 10 })).rows.map((x) => x.callId).sort(),
      [openOut.callId, callId].sort(),
    );

    // The header damaged: the file is kept aside and the catalog rebuilt.
    const file = catalogPath(dir);
    c.close();
    writeFileSync(file, Buffer.concat([Buffer.from('garbage'), readFileSync(file)]));
    const d = await openStore(dir, SMALL);
    assert.equal(d.catalogStats().rebuilt, true);
    assert.match(d.catalogStats().movedAside!, /not a SQLite file/);
    assert.ok(existsSync(`${file}.damaged`));
    assert.equal((await d.readToolOutput({ handle: openOut.handle! })).content, 'abc def');
  });

  it('pages calls newest, oldest and largest first, filtered by run, tool, outcome, source and text', async () => {
    const store = await openStore(dir, SMALL);
    const r1 = await store.startRun({ label: 'build' });
    const c1 = await r1.recordResult('compile', {}, 'x'.repeat(300));
    const c2 = await r1.recordResult('compile', {}, 'error text', { isError: true });
    await r1.finish();
    const r2 = await store.startRun({ label: 'test' });
    const c3 = await r2.runCommand('printf hello; exit 3', { cwd: dir });
    const c4 = await r2.recordResult('lint', {}, 'y'.repeat(50));
    const all = [c1, c2, c3, c4].map((c) => c.callId);
    const ids = (rows: readonly CallSummary[]): string[] => rows.map((r) => r.callId);

    const newest = await store.queryCalls({ offset: 0, limit: 10 });
    assert.deepEqual([newest.total, newest.offset, ids(newest.rows)], [4, 0, [...all].reverse()]);
    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 10, order: 'oldest' })).rows), all);
    // Largest counts the result and its attachments.
    const size = (c: typeof c1): number =>
      c.record.resultBytes + c.record.attachments.reduce((n, a) => n + a.sizeBytes, 0);
    const bySize = [c1, c2, c3, c4].sort((x, y) => size(y) - size(x)).map((c) => c.callId);
    assert.ok(size(c3) > size(c4) && size(c1) > size(c2));
    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 2, order: 'largest' })).rows), bySize.slice(0, 2));
    // Pages: offset and limit over the same order, total unchanged.
    const second = await store.queryCalls({ offset: 1, limit: 2 });
    assert.deepEqual([second.total, second.offset, ids(second.rows)], [4, 1, [c3.callId, c2.callId]]);
    assert.deepEqual((await store.queryCalls({ offset: 4, limit: 2 })).rows, []);

    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 10, runId: r1.runId })).rows), [
      c2.callId,
      c1.callId,
    ]);
    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 10, tool: 'compile', order: 'oldest' })).rows), [
      c1.callId,
      c2.callId,
    ]);
    // A command recorded `ok` that exited 3 failed, as the inspector's badge says (docs/contracts.md §3.4, "Outcome").
    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 10, outcome: 'failed' })).rows), [
      c3.callId,
      c2.callId,
    ]);
    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 10, outcome: 'ok', order: 'oldest' })).rows), [
      c1.callId,
      c4.callId,
    ]);
    // Each run counts its failed calls (a completed run with one reads as failed: docs/contracts.md §3.4, "Outcome").
    await r2.finish();
    const failed = Object.fromEntries(
      (await store.listRuns()).map((r) => [r.label, [r.status, r.callCount, r.failedCalls]]),
    );
    assert.deepEqual(failed, { build: ['completed', 2, 1], test: ['completed', 2, 1] });
    assert.deepEqual(
      (await store.queryRuns({ limit: 10, text: 'test' })).map((r) => r.failedCalls),
      [1],
    );
    assert.equal((await store.queryCalls({ offset: 0, limit: 10, source: 'tool' })).total, 4);
    assert.equal((await store.queryCalls({ offset: 0, limit: 10, source: 'mcp' })).total, 0);
    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 10, text: 'TEST' })).rows), [
      c4.callId,
      c3.callId,
    ]);
    assert.deepEqual(ids((await store.queryCalls({ offset: 0, limit: 10, text: 'lin' })).rows), [c4.callId]);

    // What a row lists: the command's exit code, sizes, storage state, digest prefix, handles, source.
    const { logRecord, ...cmd } = newest.rows.find((r) => r.callId === c3.callId)!;
    // Where its record is in the run log: exactly the `call_finished` line's bytes (callPage.ts reads it back there).
    const line = readFileSync(store.logPath(r2.runId))
      .subarray(logRecord!.offset, logRecord!.offset + logRecord!.length)
      .toString('utf8');
    assert.deepEqual([JSON.parse(line).type, JSON.parse(line).callId], ['call_finished', c3.callId]);
    assert.deepEqual(
      { ...cmd, startedAt: 'T', finishedAt: 'T' },
      {
        runId: r2.runId,
        callId: c3.callId,
        tool: 'run_command',
        source: { kind: 'tool' },
        runLabel: 'test',
        startedAt: 'T',
        finishedAt: 'T',
        status: 'ok',
        exitCode: 3,
        signal: null,
        resultBytes: c3.record.resultBytes,
        stored: 'inline',
        sha256Prefix: c3.record.sha256.slice(0, 12),
        sha256: c3.record.sha256,
        handle: c3.handle,
        attachments: c3.record.attachments.map((a) => ({
          name: a.name,
          handle: a.handle,
          sizeBytes: a.sizeBytes,
          stored: a.stored,
        })),
      },
    );
    assert.deepEqual(newest.rows.find((r) => r.callId === c2.callId)!.errorCode, 'tool_error');

    await rejectsWith(
      store.queryCalls({ offset: -1, limit: 10 }),
      'invalidArgument',
      'offset must be an integer from 0 to 9007199254740991',
    );
    await rejectsWith(
      store.queryCalls({ offset: 0, limit: 0 }),
      'invalidArgument',
      'limit must be an integer from 1 to 1000',
    );
    await rejectsWith(
      store.queryCalls({ offset: 0, limit: 5, order: 'random' as 'newest' }),
      'invalidArgument',
      'order must be newest, oldest or largest',
    );
    assert.deepEqual(
      (await store.queryRuns({ text: 'BUI', limit: 5 })).map((r) => r.runId),
      [r1.runId],
    );
    assert.deepEqual(
      (await store.queryRuns({ limit: 1 })).map((r) => r.runId),
      [r2.runId],
    );
  });

  it('retention in slices: oldest first, never pinned or running, resuming from its cursor', async () => {
    const store = await openStore(dir, SMALL);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await store.startRun({ label: `r${i}`, ...(i === 0 ? { pinned: true } : {}) });
      await r.recordResult('t', {}, `result ${i}`);
      if (i < 5) await r.finish();
      ids.push(r.runId);
      // Distinct start times: runs started in one millisecond are ordered by their (random) id, not by creation.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const later = Date.now() + 86_400_000;
    const slices: { deleted: readonly string[]; more: boolean | undefined }[] = [];
    let cursor: string | undefined;
    do {
      const res = await store.prune({
        maxAgeMs: 60_000,
        now: later,
        sliceRuns: 2,
        ...(cursor !== undefined ? { cursor } : {}),
      });
      slices.push({ deleted: res.deletedRuns, more: res.more });
      cursor = res.cursor;
    } while (cursor !== undefined);
    // r0 pinned and r5 running stay; each slice examined two runs, oldest first.
    assert.deepEqual(slices, [
      { deleted: [ids[1]], more: true },
      { deleted: [ids[2], ids[3]], more: true },
      { deleted: [ids[4]], more: false },
    ]);
    assert.deepEqual(
      (await store.queryRuns({ limit: 10 })).map((r) => r.label),
      ['r5', 'r0'],
    );
    // Budget: the oldest unpinned, not running run goes first; none is left to delete here.
    const res = await store.prune({ maxBytes: 1, sliceRuns: 1 });
    assert.deepEqual([res.deletedRuns, res.more], [[], true]);
  });

  it('retention by age ends at the first run started within the limit: no later run is examined', async () => {
    const store = await openStore(dir, SMALL);
    for (let i = 0; i < 6; i++) {
      const r = await store.startRun({ label: `r${i}` });
      await r.recordResult('t', {}, `result ${i}`);
      await r.finish();
    }
    // Nothing is a minute old: the first slice of two runs finds the first young run and
    // ends the age phase (it used to walk on, slice after slice, checking every run's log).
    const res = await store.prune({ maxAgeMs: 60_000, sliceRuns: 2 });
    assert.deepEqual(res, { deletedRuns: [], freedBytes: 0, more: false });
    assert.equal((await store.queryRuns({ limit: 10 })).length, 6);
  });
});
