import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArtifactStore, EvidenceFileWorkspace, LocalErrorText, LocalWorkspace, readFileRecorded, RunStore } from '../../../src/core/index.js';

describe('evidence_readFile recorded: a file the folder will not hold in memory is streamed, never refused (docs/contracts.md §3.3)', () => {
  let tmp: string;
  before(() => { tmp = mkdtempSync(path.join(os.tmpdir(), 'be-fileReads-')); });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a file over maxFileBytes is kept whole (shown whole under the inline bound, recorded by its artifact); a small file whose text reads like a refusal comes back as it is', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'big.log'), 'x'.repeat(40));
    writeFileSync(path.join(ws, 'lookalike.txt'), 'error: file exceeds 99 bytes');
    const artifacts = await ArtifactStore.open(mkdirOf(tmp, 'artifacts'));
    const runs = await RunStore.open({ logsDir: path.join(tmp, 'logs'), tenant: 't', artifacts });
    const files = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws, maxFileBytes: 32 }), artifacts, { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 });
    const run = await runs.startRun();
    assert.equal(await readFileRecorded(files, { runs, artifacts }, run, 'big.log'), 'x'.repeat(40));
    // The course contract passes `error:`-looking text through unchanged (docs/contracts.md §1.2): no hint is added to it.
    assert.equal(await readFileRecorded(files, { runs, artifacts }, run, 'lookalike.txt'), 'error: file exceeds 99 bytes');
    await run.finish();
    const [call] = await runs.report(run.runId);
    assert.deepEqual([call!.stored, call!.resultBytes, call!.elided, call!.artifactId], ['artifact', 40, false, `artifact-${createHash('sha256').update('x'.repeat(40)).digest('hex')}`]);
  });
});

describe('evidence_readFile recorded: the streamed path keeps every confinement check (docs/contracts.md §5.3)', () => {
  let tmp: string;
  before(() => { tmp = mkdtempSync(path.join(os.tmpdir(), 'be-fileReads-confined-')); });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a large or non-UTF-8 file behind an escaping link, under a secret name or hard-linked is refused as before; nothing is stored', async () => {
    const ws = mkdirOf(tmp, 'ws');
    const outside = mkdirOf(tmp, 'outside');
    writeFileSync(path.join(outside, 'big.bin'), Buffer.alloc(100, 0xff));
    symlinkSync(outside, path.join(ws, 'out'));
    writeFileSync(path.join(ws, 'id_rsa'), Buffer.alloc(100, 0xff));
    writeFileSync(path.join(ws, 'linked.bin'), Buffer.alloc(100, 0xff));
    linkSync(path.join(ws, 'linked.bin'), path.join(tmp, 'other-name.bin'));
    const artifactsDir = mkdirOf(tmp, 'artifacts');
    const artifacts = await ArtifactStore.open(artifactsDir);
    const runs = await RunStore.open({ logsDir: path.join(tmp, 'logs'), tenant: 't', artifacts });
    const files = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws, maxFileBytes: 32 }), artifacts, { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 });
    const run = await runs.startRun();
    assert.equal(await readFileRecorded(files, { runs, artifacts }, run, 'out/big.bin'), LocalErrorText.pathEscapes);
    assert.equal(await readFileRecorded(files, { runs, artifacts }, run, 'id_rsa'), LocalErrorText.pathSecret);
    assert.equal(await readFileRecorded(files, { runs, artifacts }, run, 'linked.bin'), LocalErrorText.hardLinked);
    await run.finish();
    assert.deepEqual(readdirSync(artifactsDir).filter((n) => n.startsWith('artifact-')), []);
  });
});

function mkdirOf(root: string, name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  return dir;
}
