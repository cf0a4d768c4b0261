import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { openVerified, putVerified } from '../../../../src/core/blobs/verifiedBlobs.js';
import { chunkCount, readVerified, verifyAll } from '../../../../src/core/integrity/integrity.js';
import { ArtifactStore } from '../../../../src/core/artifacts/artifacts.js';
import { searchPattern } from '../../../../src/core/runs/search/patternSearch.js';
import { clearVerifiedChunks, verifiedChunkStats } from '../../../../src/core/integrity/verifiedChunks.js';
import { VERIFIED_MARKS_FILE, VerifiedMarks } from '../../../../src/core/integrity/verifiedMarks.js';
import { openStore } from '../runs/helpers.js';

const REPO = path.resolve(__dirname, '..', '..', '..', '..');

/** The verified-chunk cache over a real file (docs/contracts.md §1.1, §2.10). */
describe('verified-chunk cache', () => {
  let dir: string;
  let store: FsBlobStore;
  const key = { tenant: 't', runId: 'r1', callId: 'c1' };
  // 20 chunks of 64 KiB plus a tail; one NEEDLE in chunk 10.
  const content = Buffer.alloc(20 * 65536 + 1000, 'abcdefghij\n');
  content.write('NEEDLE', 10 * 65536 + 5);
  const chunks = chunkCount(content.length, 65536);
  let file: string;
  let open: () => ReturnType<typeof openVerified>;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vchunks-'));
    store = await FsBlobStore.open(dir);
    const put = await putVerified(store, key, content);
    file = path.join(dir, 't', 'r1', 'c1');
    // A whole-second mtime, so restoring it later restores it to the nanosecond.
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    open = () =>
      openVerified(store, key, {
        sha256: put.manifest.sha256,
        byteCount: put.manifest.byteCount,
        manifestDigest: put.manifestDigest,
      });
    clearVerifiedChunks();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const search = async (pattern = 'NEEDLE'): Promise<number> => {
    const { source, manifest } = await open();
    const r = await searchPattern(source, manifest, {
      pattern,
      offset: 0,
      limit: 10,
      maxLineChars: 200,
      maxContentChars: 4000,
      budgetMs: 5000,
      cutMarker: '…',
    });
    return r.totalMatches;
  };
  /** Flips one byte in place (same size), then sets mtime back to what it was (ctime moves on). */
  const flipKeepingMtime = (at: number): void => {
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from([content[at]! ^ 1]), 0, 1, at);
    fs.closeSync(fd);
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
  };

  it('a repeated search hashes no chunk again while the file identity holds', async () => {
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0, marksUsed: 0 });
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: chunks, marksUsed: 0 });
  });

  it('a byte flipped (mtime and ctime change) is caught by the next search', async () => {
    assert.equal(await search(), 1);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 3 * 65536);
    fs.closeSync(fd);
    await assert.rejects(search(), (e: Error & { code?: string }) => e.code === 'digestMismatch');
    assert.equal(verifiedChunkStats.skipped, 0);
  });

  it('a same-size rewrite with the old mtime restored is caught by the next search (ctime changed)', async () => {
    assert.equal(await search(), 1);
    const before = fs.statSync(file, { bigint: true });
    flipKeepingMtime(7 * 65536);
    const after = fs.statSync(file, { bigint: true });
    assert.equal(after.size, before.size);
    assert.equal(after.mtimeNs, before.mtimeNs);
    assert.notEqual(after.ctimeNs, before.ctimeNs);
    await assert.rejects(search(), (e: Error & { code?: string }) => e.code === 'digestMismatch');
  });

  it('Verify re-hashes every byte even with a warm cache', async () => {
    assert.equal(await search(), 1);
    const { source, manifest } = await open();
    const hashedBefore = verifiedChunkStats.hashed;
    assert.equal(await verifyAll(source, manifest), true);
    assert.equal(verifiedChunkStats.hashed - hashedBefore, chunks, 'Verify hashed every chunk');
    assert.equal(verifiedChunkStats.skipped, 0);
    // Out of the cache's threat model (docs/contracts.md §1.1): a byte changes while size,
    // mtime and ctime all read as before. ctime cannot be restored from user space, so the
    // store is made to report the pre-change identity: the cached search then skips the
    // flipped chunk and misses the needle (documented), while Verify re-hashes and catches it.
    const realIdentity = store.identity.bind(store);
    const frozen = await realIdentity(key);
    flipKeepingMtime(10 * 65536 + 5);
    store.identity = async () => frozen;
    const realOpen = store.openFile.bind(store);
    store.openFile = async (k) => {
      const f = (await realOpen(k))!;
      return { ...f, stat: async () => ({ identity: frozen!, size: (await f.stat()).size }) };
    };
    assert.equal(await search(), 0, 'the cached search trusts the unchanged identity and misses the flipped needle');
    assert.equal(await verifyAll(source, manifest), false, 'Verify re-hashes and catches it');
  });
});

/**
 * Chunks verified at write time (docs/contracts.md §1.1): the process that wrote a blob
 * marks every chunk verified under the identity of the file as written, in memory and on
 * disk, so its first search and another process's hash nothing; any change of identity
 * hashes again.
 */
describe('verified-chunk cache: chunks verified at write time', () => {
  let dir: string;
  const key = { tenant: 't', runId: 'r1', callId: 'c1' };
  // 9 MiB (two lanes on a first page, §2.10) plus a tail; one NEEDLE in the second half.
  const content = Buffer.alloc(144 * 65536 + 1000, 'abcdefghij\n');
  content.write('NEEDLE', 100 * 65536 + 5);
  const chunks = chunkCount(content.length, 65536);
  const options = {
    pattern: 'NEEDLE',
    offset: 0,
    limit: 10,
    maxLineChars: 200,
    maxContentChars: 4000,
    budgetMs: 20_000,
    cutMarker: '…',
  };
  let store: FsBlobStore;
  let file: string;
  let expected: { sha256: string; byteCount: number; manifestDigest: string };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vchunks-written-'));
    clearVerifiedChunks();
    store = await FsBlobStore.open(path.join(dir, 'blobs'));
    const put = await putVerified(store, key, content);
    file = path.join(dir, 'blobs', 't', 'r1', 'c1');
    expected = { sha256: put.manifest.sha256, byteCount: put.manifest.byteCount, manifestDigest: put.manifestDigest };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const search = async (): Promise<number> => {
    const { source, manifest } = await openVerified(store, key, expected);
    return (await searchPattern(source, manifest, options)).totalMatches;
  };
  /**
   * The file's identity kept the `kept` fields of `before` and changed `changed`; the next
   * search fails as a digest mismatch and no write-time mark was used.
   */
  const caughtNext = async (
    before: fs.BigIntStats,
    kept: readonly ('dev' | 'ino' | 'size' | 'mtimeNs')[],
    changed: 'ino' | 'ctimeNs',
  ): Promise<void> => {
    const after = fs.statSync(file, { bigint: true });
    assert.deepEqual(
      kept.map((k) => after[k]),
      kept.map((k) => before[k]),
    );
    assert.notEqual(after[changed], before[changed]);
    await assert.rejects(search(), (e: Error & { code?: string }) => e.code === 'digestMismatch');
    assert.equal(verifiedChunkStats.skipped, 0, 'no mark applied to the changed file');
  };
  /**
   * Waits until a change to the file gets a later timestamp than its write did. Within the
   * same file-system timestamp tick a change keeps mtime and ctime (the race §1.1 accepts,
   * git's "racy" entries); kernels with fine-grained timestamps never need the wait.
   */
  /** Waits until the file's last change is over a second old: searches then mark it on disk (docs/contracts.md §1.1). */
  const pastTheRacyWindow = async (): Promise<void> => {
    const changed = fs.statSync(file, { bigint: true }).ctimeNs;
    while (BigInt(Date.now()) * 1_000_000n <= changed + 1_100_000_000n) await new Promise((r) => setTimeout(r, 20));
  };
  const pastTheWriteTick = async (): Promise<void> => {
    const written = fs.statSync(file, { bigint: true }).ctimeNs;
    while (BigInt(Date.now()) * 1_000_000n <= written + 20_000_000n) await new Promise((r) => setTimeout(r, 5));
  };

  it('a search right after a capture hashes no chunk: the writer marked them all', async () => {
    const runsDir = path.join(dir, 'runs');
    const runs = await openStore(runsDir, {
      blobs: await FsBlobStore.open(path.join(runsDir, 'blobs')),
      offloadThresholdBytes: 1,
    });
    const run = await runs.startRun();
    async function* pieces(): AsyncGenerator<Uint8Array> {
      for (let p = 0; p < content.length; p += 1 << 20) yield content.subarray(p, p + (1 << 20));
    }
    clearVerifiedChunks();
    const handle = (await run.recordStream('import_file', { path: 'big.log' }, pieces())).handle!;
    assert.deepEqual(
      verifiedChunkStats,
      { hashed: 0, skipped: 0, marksUsed: 0 },
      'capture itself hashes while writing, not through the cache',
    );
    const r = await runs.readToolOutput({ handle, pattern: 'NEEDLE' });
    assert.deepEqual([r.total_matches, r.matches![0]!.byte_offset], [1, 100 * 65536 + 5]);
    assert.deepEqual(verifiedChunkStats, { hashed: 0, skipped: chunks, marksUsed: 0 });
  });

  /** A search in a new Node process over the same storage: its total and its chunk counters. */
  const searchInChild = async (): Promise<{ total: number; stats: typeof verifiedChunkStats }> => {
    const src = (m: string): string => JSON.stringify(path.join(REPO, 'src', 'core', m));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `
      const { FsBlobStore } = require(${src('blobs/fsBlobStore.ts')});
      const { openVerified } = require(${src('blobs/verifiedBlobs.ts')});
      const { searchPattern } = require(${src('runs/search/patternSearch.ts')});
      const { verifiedChunkStats } = require(${src('integrity/verifiedChunks.ts')});
      (async () => {
        const store = await FsBlobStore.open(${JSON.stringify(path.join(dir, 'blobs'))});
        const { source, manifest } = await openVerified(store, ${JSON.stringify(key)}, ${JSON.stringify(expected)});
        const r = await searchPattern(source, manifest, ${JSON.stringify(options)});
        process.stdout.write(JSON.stringify({ total: r.totalMatches, stats: verifiedChunkStats }));
        process.exit(0);
      })().catch((e) => { console.error(e); process.exit(1); });`,
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0);
    return JSON.parse(out) as { total: number; stats: typeof verifiedChunkStats };
  };
  const marksFile = (): string => path.join(dir, 'blobs', 't', VERIFIED_MARKS_FILE);
  /** This process as a new one would start: no chunk in memory, the store (and its marks) opened afresh. */
  const forgetAll = async (): Promise<void> => {
    clearVerifiedChunks();
    store = await FsBlobStore.open(path.join(dir, 'blobs'));
  };

  it("another process finds the writer's mark on disk: its first search hashes no chunk", async function () {
    this.timeout(120_000);
    assert.deepEqual(await searchInChild(), { total: 1, stats: { hashed: 0, skipped: chunks, marksUsed: 1 } });
    // The writer's own marks still hold: reading the file changed no part of its identity.
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: 0, skipped: chunks, marksUsed: 0 });
  });

  it('with no mark on disk, a new process hashes every chunk once and marks the file for the next one', async function () {
    this.timeout(120_000);
    fs.rmSync(marksFile());
    await pastTheRacyWindow();
    assert.deepEqual(await searchInChild(), { total: 1, stats: { hashed: chunks, skipped: 0, marksUsed: 0 } });
    assert.deepEqual(await searchInChild(), { total: 1, stats: { hashed: 0, skipped: chunks, marksUsed: 1 } });
  });

  it("a search does not mark a file changed within the last second (git's racy entries): a change in the same tick would keep its identity", async () => {
    fs.rmSync(marksFile());
    await forgetAll();
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0, marksUsed: 0 });
    assert.equal(fs.existsSync(marksFile()), false, 'written just now: no mark on disk');
    await pastTheRacyWindow();
    await forgetAll();
    assert.equal(await search(), 1);
    assert.equal(fs.readFileSync(marksFile(), 'latin1').split('\n').length - 1, 1, 'settled: one mark');
  });

  it('a mark of the same file under another manifest is not used', async () => {
    const line = fs.readFileSync(marksFile(), 'latin1');
    const [id] = line.slice(1).split('|');
    fs.rmSync(marksFile());
    await new VerifiedMarks(marksFile()).add(`${id}|${'0'.repeat(64)}`);
    await forgetAll();
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0, marksUsed: 0 });
  });

  it("a file under 1 MiB (16 chunks) is never marked on disk: hashing it costs less than the marks' I/O", async () => {
    const smallKey = { tenant: 't', runId: 'r2', callId: 'c1' };
    const small = Buffer.alloc(15 * 65536, 'x\n');
    const before = fs.readFileSync(marksFile());
    const put = await putVerified(store, smallKey, small);
    assert.deepEqual(fs.readFileSync(marksFile()), before, 'no mark written for it');
    await forgetAll();
    const { source, manifest } = await openVerified(store, smallKey, {
      sha256: put.manifest.sha256,
      byteCount: put.manifest.byteCount,
      manifestDigest: put.manifestDigest,
    });
    assert.equal((await searchPattern(source, manifest, { ...options, pattern: 'y' })).totalMatches, 0);
    assert.deepEqual(verifiedChunkStats, { hashed: 15, skipped: 0, marksUsed: 0 });
  });

  it('a mark whose checksum fails (torn or altered line) is not used', async () => {
    const st = fs.statSync(file, { bigint: true });
    const line = fs.readFileSync(marksFile(), 'latin1');
    assert.match(
      line,
      new RegExp(`^\\n${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}\\|[0-9a-f]{64}\\t[0-9a-f]{8}$`),
    );
    // The same mark with one checksum digit changed, and the mark without its checksum.
    const bad = line.slice(0, -1) + (line.endsWith('0') ? '1' : '0');
    fs.writeFileSync(marksFile(), bad + line.slice(0, line.lastIndexOf('\t')), 'latin1');
    await forgetAll();
    assert.equal(await search(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0, marksUsed: 0 });
  });

  it('a mark of the file before a change is not used for the changed file', async () => {
    await pastTheWriteTick();
    const before = fs.statSync(file, { bigint: true });
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 3 * 65536);
    fs.closeSync(fd);
    await forgetAll();
    await caughtNext(before, ['dev', 'ino', 'size'], 'ctimeNs');
    assert.equal(verifiedChunkStats.marksUsed, 0);
  });

  it('a byte flipped after the write (mtime and ctime change) is caught by the next search', async () => {
    await pastTheWriteTick();
    const before = fs.statSync(file, { bigint: true });
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 3 * 65536);
    fs.closeSync(fd);
    await caughtNext(before, ['dev', 'ino', 'size'], 'ctimeNs');
  });

  it('a same-size rewrite with the written mtime restored to the nanosecond is caught (ctime changed)', async () => {
    const ref = `${file}.ref`;
    execFileSync('touch', ['-r', file, ref]);
    await pastTheWriteTick();
    const before = fs.statSync(file, { bigint: true });
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 100 * 65536 + 5);
    fs.closeSync(fd);
    execFileSync('touch', ['-r', ref, file]);
    await caughtNext(before, ['dev', 'ino', 'size', 'mtimeNs'], 'ctimeNs');
  });

  it('a file replaced by another of the same size with the written mtime restored is caught (inode and ctime changed)', async () => {
    const before = fs.statSync(file, { bigint: true });
    const other = Buffer.from(content);
    other.write('X', 100 * 65536 + 5);
    const replacement = `${file}.new`;
    fs.writeFileSync(replacement, other);
    execFileSync('touch', ['-r', file, replacement]);
    fs.renameSync(replacement, file);
    await caughtNext(before, ['dev', 'size', 'mtimeNs'], 'ino');
  });

  it('Verify and a range read still re-hash every chunk they cover right after the write', async () => {
    const { source, manifest } = await openVerified(store, key, expected);
    assert.equal(await verifyAll(source, manifest), true);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0, marksUsed: 0 });
    assert.equal(
      Buffer.from(await readVerified(source, manifest, 100 * 65536 + 5, 100 * 65536 + 11)).toString(),
      'NEEDLE',
    );
    assert.deepEqual(verifiedChunkStats, { hashed: chunks + 1, skipped: 0, marksUsed: 0 });
  });

  it('a store that reports no file identity (memory, S3) marks nothing', async () => {
    const memory = new MemoryBlobStore();
    const put = await putVerified(memory, key, content);
    const { source, manifest } = await openVerified(memory, key, {
      sha256: put.manifest.sha256,
      byteCount: put.manifest.byteCount,
      manifestDigest: put.manifestDigest,
    });
    assert.equal((await searchPattern(source, manifest, options)).totalMatches, 1);
    assert.deepEqual(verifiedChunkStats, { hashed: chunks, skipped: 0, marksUsed: 0 });
  });
});

/** The marks file itself (docs/contracts.md §1.1, "Marks kept on disk"). */
describe('verified marks on disk', () => {
  let dir: string;
  let file: string;
  const keyOf = (i: number): string =>
    `1:${1000 + i}:65536:1700000000000000000:1700000000000000000|${i.toString(16).padStart(64, '0')}`;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vmarks-'));
    file = path.join(dir, 't', VERIFIED_MARKS_FILE);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('two writers append; a third reader sees both, and a line torn mid-write counts once it is whole', async () => {
    const a = new VerifiedMarks(file);
    const b = new VerifiedMarks(file);
    await a.add(keyOf(1));
    await b.add(keyOf(2));
    const reader = new VerifiedMarks(file);
    assert.equal(await reader.has(keyOf(1)), true);
    assert.equal(await reader.has(keyOf(2)), true);
    assert.equal(await reader.has(keyOf(3)), false);
    // A writer stopped half-way through a line: not a mark yet, and the reader reads it
    // again once the rest is there (append is one write in practice; this is the crash case).
    // The third key's line as a writer frames it, written here in two pieces.
    const other = path.join(dir, 'o', VERIFIED_MARKS_FILE);
    await new VerifiedMarks(other).add(keyOf(3));
    const line3 = fs.readFileSync(other);
    assert.equal(line3.length, 1 + keyOf(3).length + 9);
    fs.appendFileSync(file, line3.subarray(0, 40));
    assert.equal(await reader.has(keyOf(3)), false, 'half a line is not a mark');
    fs.appendFileSync(file, line3.subarray(40));
    assert.equal(await reader.has(keyOf(3)), true, 'the line, once whole, is read');
  });

  it("the file stays bounded: past its limit it is rewritten with the newest marks (a dead rewrite's leftover is the start-up sweep's), and readers follow the new file", async () => {
    const writer = new VerifiedMarks(file);
    const reader = new VerifiedMarks(file);
    assert.equal(await reader.has(keyOf(0)), false);
    // A rewrite's temporary file left by a process that is gone (pid above Linux's pid_max).
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const leftover = `${file}~999999999.0123456789ab.tmp`;
    fs.writeFileSync(leftover, 'x');
    for (let i = 0; i < 12_000; i++) await writer.add(keyOf(i));
    assert.deepEqual(
      fs.readdirSync(path.dirname(file)).sort(),
      [VERIFIED_MARKS_FILE, path.basename(leftover)].sort(),
      'a rewrite lists no folder: only its own file is new',
    );
    // The blob store's start-up sweep removes the dead rewrite's temporary file.
    await (
      await FsBlobStore.open(dir)
    ).orphanSweep;
    assert.deepEqual(fs.readdirSync(path.dirname(file)), [VERIFIED_MARKS_FILE]);
    const size = fs.statSync(file).size;
    const lineBytes = 1 + keyOf(0).length + 9;
    assert.ok(12_000 * lineBytes > 2 * 4096 * 160, 'the marks written pass the limit');
    assert.ok(size <= 2 * 4096 * 160, `file ${size} B`);
    assert.ok(size >= 4096 * lineBytes, `file ${size} B keeps at least the newest 4,096 marks`);
    const fresh = new VerifiedMarks(file);
    assert.equal(await fresh.has(keyOf(11_999)), true, 'the newest mark survives the rewrite');
    assert.equal(await fresh.has(keyOf(0)), false, 'the oldest mark was let go');
    assert.equal(await reader.has(keyOf(11_999)), true, 'a reader that had read the old file reads the new one');
  });

  it('a key that is not printable ASCII is never written', async () => {
    const m = new VerifiedMarks(file);
    await m.add('bad\nkey');
    await m.add('');
    assert.equal(fs.existsSync(file), false);
  });
});

/** Artifacts of `evidence_readFile` are local files too: the same cache and marks (docs/contracts.md §1.1). */
describe('verified-chunk cache: artifacts', () => {
  let dir: string;
  const content = Buffer.alloc(40 * 65536 + 77, 'klmnopqrst\n');
  content.write('NEEDLE', 30 * 65536 + 3);
  const chunks = chunkCount(content.length, 65536);
  const options = {
    pattern: 'NEEDLE',
    offset: 0,
    limit: 10,
    maxLineChars: 200,
    maxContentChars: 4000,
    budgetMs: 20_000,
    cutMarker: '…',
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vchunks-art-'));
    clearVerifiedChunks();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a stored artifact is marked at write: a fresh store finds the mark and hashes nothing; a changed byte is caught', async () => {
    const writer = new ArtifactStore({ blobs: await FsBlobStore.open(dir, { sweep: false }), tenant: 't' });
    const ref = await writer.putStream(
      (async function* () {
        yield content;
      })(),
    );
    const { manifestDigest } = await writer.manifestFor(ref.artifactId);
    const searchFresh = async (): Promise<number> => {
      clearVerifiedChunks();
      const fresh = new ArtifactStore({ blobs: await FsBlobStore.open(dir, { sweep: false }), tenant: 't' });
      const { manifest, source } = await fresh.openRecorded(ref, manifestDigest);
      return (await searchPattern(source, manifest, options)).totalMatches;
    };
    assert.equal(await searchFresh(), 1);
    assert.deepEqual(verifiedChunkStats, { hashed: 0, skipped: chunks, marksUsed: 1 });
    const file = path.join(dir, 't', 'artifacts', ref.sha256);
    const written = fs.statSync(file, { bigint: true }).ctimeNs;
    while (BigInt(Date.now()) * 1_000_000n <= written + 20_000_000n) await new Promise((r) => setTimeout(r, 5));
    fs.chmodSync(file, 0o600);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('X'), 0, 1, 30 * 65536 + 3);
    fs.closeSync(fd);
    await assert.rejects(searchFresh(), (e: Error & { code?: string }) => e.code === 'digestMismatch');
    assert.equal(verifiedChunkStats.marksUsed, 0);
  });
});
