import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  EvidenceFileWorkspace,
  LocalErrorText,
  LocalWorkspace,
  readFileRecorded,
  RunStore,
} from '../../../../src/core/index.js';
import { openArtifacts, storedArtifacts } from '../evidence/helpers.js';

describe('evidence_readFile recorded: a file the folder will not hold in memory is streamed, never refused (docs/contracts.md §3.3)', () => {
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-fileReads-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a file over maxFileBytes is kept whole (shown whole under the inline bound, recorded by its artifact); a small file whose text reads like a refusal comes back as it is', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'big.log'), 'x'.repeat(40));
    writeFileSync(path.join(ws, 'lookalike.txt'), 'error: file exceeds 99 bytes');
    const artifacts = await openArtifacts(mkdirOf(tmp, 'blobs'));
    const runs = await RunStore.open({ logsDir: path.join(tmp, 'logs'), tenant: 't', artifacts });
    const files = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws, maxFileBytes: 32 }), artifacts, {
      maxInlineBytes: 512,
      previewBytes: 64,
      maxRangeBytes: 512,
    });
    const run = await runs.startRun();
    assert.equal((await readFileRecorded(files, { artifacts }, run, 'big.log')).text, 'x'.repeat(40));
    // The course contract passes `error:`-looking text through unchanged (docs/contracts.md §1.2): no hint is added to it.
    assert.equal(
      (await readFileRecorded(files, { artifacts }, run, 'lookalike.txt')).text,
      'error: file exceeds 99 bytes',
    );
    await run.finish();
    const [call] = await runs.report(run.runId);
    assert.deepEqual(
      [call!.stored, call!.resultBytes, call!.elided, call!.artifactId],
      ['artifact', 40, false, `artifact-${createHash('sha256').update('x'.repeat(40)).digest('hex')}`],
    );
  });
});

describe('evidence_readFile recorded: a file is opened and read once, whatever the folder decides (docs/contracts.md §3.3)', () => {
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-fileReads-once-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a file over maxFileBytes and a file that is not UTF-8 are each opened once and each byte read once', async () => {
    const ws = mkdirOf(tmp, 'ws');
    const files = {
      'big.log': Buffer.from('x'.repeat(40)),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      'small.txt': Buffer.from('small\n'),
    };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(ws, name), bytes);
    const artifacts = await openArtifacts(mkdirOf(tmp, 'blobs'));
    const runs = await RunStore.open({ logsDir: path.join(tmp, 'logs'), tenant: 't', artifacts });
    const folder = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws, maxFileBytes: 32 }), artifacts, {
      maxInlineBytes: 512,
      previewBytes: 64,
      maxRangeBytes: 512,
    });
    const run = await runs.startRun();
    // Every open of a workspace file, and every byte read through the descriptors it gave.
    const seen = new Map<string, { opens: number; bytes: number }>();
    const open = fs.promises.open;
    fs.promises.open = (async (p: fs.PathLike, ...rest: unknown[]) => {
      const handle = await (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(p, ...rest);
      const name = path.relative(ws, String(p));
      if (name in files) {
        const counts = seen.get(name) ?? { opens: 0, bytes: 0 };
        seen.set(name, { ...counts, opens: counts.opens + 1 });
        const read = handle.read.bind(handle) as (...a: unknown[]) => Promise<{ bytesRead: number }>;
        (handle as { read: unknown }).read = async (...a: unknown[]) => {
          const r = await read(...a);
          seen.get(name)!.bytes += r.bytesRead;
          return r;
        };
      }
      return handle;
    }) as typeof fs.promises.open;
    try {
      assert.equal((await readFileRecorded(folder, { artifacts }, run, 'big.log')).text, 'x'.repeat(40));
      const binary = (await readFileRecorded(folder, { artifacts }, run, 'latin1.txt')).text;
      assert.match(binary, new RegExp(`artifact-${createHash('sha256').update(files['latin1.txt']).digest('hex')}`));
      assert.equal((await readFileRecorded(folder, { artifacts }, run, 'small.txt')).text, 'small\n');
    } finally {
      fs.promises.open = open;
    }
    assert.deepEqual(Object.fromEntries(seen), {
      'big.log': { opens: 1, bytes: 40 },
      'latin1.txt': { opens: 1, bytes: 5 },
      'small.txt': { opens: 1, bytes: 6 },
    });
    await run.finish();
    const calls = await runs.report(run.runId);
    assert.deepEqual(
      calls.map((c) => [c.stored, c.resultBytes, c.artifactId]),
      [
        ['artifact', 40, `artifact-${createHash('sha256').update(files['big.log']).digest('hex')}`],
        ['artifact', 5, `artifact-${createHash('sha256').update(files['latin1.txt']).digest('hex')}`],
        ['inline', 6, undefined],
      ],
    );
  });
});

describe('evidence_readFile recorded: the streamed path keeps every confinement check (docs/contracts.md §5.3)', () => {
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-fileReads-confined-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a large or non-UTF-8 file behind an escaping link, under a secret name or hard-linked is refused as before; nothing is stored', async () => {
    const ws = mkdirOf(tmp, 'ws');
    const outside = mkdirOf(tmp, 'outside');
    writeFileSync(path.join(outside, 'big.bin'), Buffer.alloc(100, 0xff));
    symlinkSync(outside, path.join(ws, 'out'));
    writeFileSync(path.join(ws, 'id_rsa'), Buffer.alloc(100, 0xff));
    writeFileSync(path.join(ws, 'linked.bin'), Buffer.alloc(100, 0xff));
    linkSync(path.join(ws, 'linked.bin'), path.join(tmp, 'other-name.bin'));
    const blobsDir = mkdirOf(tmp, 'blobs');
    const artifacts = await openArtifacts(blobsDir);
    const runs = await RunStore.open({ logsDir: path.join(tmp, 'logs'), tenant: 't', artifacts });
    const files = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws, maxFileBytes: 32 }), artifacts, {
      maxInlineBytes: 512,
      previewBytes: 64,
      maxRangeBytes: 512,
    });
    const run = await runs.startRun();
    assert.equal((await readFileRecorded(files, { artifacts }, run, 'out/big.bin')).text, LocalErrorText.pathEscapes);
    assert.equal((await readFileRecorded(files, { artifacts }, run, 'id_rsa')).text, LocalErrorText.pathSecret);
    assert.equal((await readFileRecorded(files, { artifacts }, run, 'linked.bin')).text, LocalErrorText.hardLinked);
    await run.finish();
    assert.deepEqual(storedArtifacts(blobsDir), []);
  });
});

function mkdirOf(root: string, name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  return dir;
}

describe('evidence_readFile recorded: the error lines of a large file follow the observation (docs/contracts.md §2.13)', () => {
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-fileReads-errors-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('held and streamed: the §1.2 observation byte for byte, the search hint, then the clear error lines with their positions', async () => {
    const ws = mkdirOf(tmp, 'ws');
    const lines = Array.from({ length: 3000 }, (_, i) =>
      i === 1700 ? 'npm error code ERESOLVE' : `line ${i} of the install log`,
    );
    const text = `${lines.join('\n')}\n`;
    writeFileSync(path.join(ws, 'install.log'), text);
    const at = Buffer.byteLength(lines.slice(0, 1700).join('\n')) + 1;
    for (const maxFileBytes of [1 << 20, 1024]) {
      const artifacts = await openArtifacts(mkdirOf(tmp, `blobs-${maxFileBytes}`));
      const runs = await RunStore.open({ logsDir: path.join(tmp, `logs-${maxFileBytes}`), tenant: 't', artifacts });
      // 1 MiB: read into memory; 1,024: streamed into the store (the scan reads it back in 1 MiB pieces).
      const files = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws, maxFileBytes }), artifacts, {
        maxInlineBytes: 2048,
        previewBytes: 400,
        maxRangeBytes: 512,
      });
      const run = await runs.startRun();
      const { text: reply } = await readFileRecorded(files, { artifacts }, run, 'install.log');
      const [call] = await runs.report(run.runId);
      const observation = reply.slice(0, reply.indexOf('\nSearchable by line or pattern:'));
      assert.ok(observation.startsWith('Tool result externalized:\n{"artifact_id":"artifact-'), reply);
      assert.equal(
        reply,
        `${observation}\nSearchable by line or pattern: read_tool_output {"handle":"${call!.handle}"}\nError lines (1 of 1):\nline 1701, byte ${at}: npm error code ERESOLVE`,
      );
      const r = await runs.readToolOutput({ handle: call!.handle!, pattern: '^npm (?:ERR!|error) ' });
      assert.deepEqual(
        r.matches!.map((m) => [m.line_number, m.byte_offset]),
        [[1701, at]],
      );
    }
  });
});
