import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArtifactStore, EvidenceFileWorkspace, LocalWorkspace, readFileRecorded, RunStore } from '../../../src/core/index.js';

describe('evidence_readFile recorded: the too-large refusal is told by the folder, not by the words', () => {
  let tmp: string;
  before(() => { tmp = mkdtempSync(path.join(os.tmpdir(), 'be-fileReads-')); });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a file over maxFileBytes gets the capture hint; a small file whose text reads like that refusal comes back as it is', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'big.log'), 'x'.repeat(40));
    writeFileSync(path.join(ws, 'lookalike.txt'), 'error: file exceeds 99 bytes');
    const artifacts = await ArtifactStore.open(mkdirOf(tmp, 'artifacts'));
    const runs = await RunStore.open({ logsDir: path.join(tmp, 'logs'), tenant: 't', artifacts });
    const files = EvidenceFileWorkspace.create(await LocalWorkspace.open({ root: ws, maxFileBytes: 32 }), artifacts, { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 });
    const run = await runs.startRun();
    assert.equal(await readFileRecorded(files, { runs, artifacts }, run, 'big.log'),
      'error: file exceeds 32 bytes; capture it with evidence_runCommand (for example: cat "big.log") and search it with read_tool_output');
    // The course contract passes `error:`-looking text through unchanged (docs/contracts.md §1.2): no hint is added to it.
    assert.equal(await readFileRecorded(files, { runs, artifacts }, run, 'lookalike.txt'), 'error: file exceeds 99 bytes');
    await run.finish();
  });
});

function mkdirOf(root: string, name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  return dir;
}
