import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ArtifactStore, EvidenceError, FsBlobStore, learnArtifact, readFileReply, readFitted, READ_STORAGE_FAILURE, reregisterArtifacts, RunStore, searchHint, utf8Bytes,
} from '../../../src/core/index.js';

describe('shared tool replies (editor and MCP server)', () => {
  let dir: string;
  let runs: RunStore;
  let handle: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-tools-'));
    runs = await RunStore.open({ logsDir: path.join(dir, 'logs'), tenant: 't1', blobs: await FsBlobStore.open(path.join(dir, 'blobs')) });
    const run = await runs.startRun();
    // 2,000 lines of 48 characters: 200 lines (the default window) is ~10 KB of JSON.
    const out = await run.recordResult('x', {}, Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(5, '0')} ${'y'.repeat(36)}`).join('\n'));
    await run.finish();
    handle = out.handle!;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('halves the line window until the JSON fits under 8 KiB, and says where to continue', async () => {
    const unfitted = JSON.stringify(await runs.readToolOutput({ handle }));
    assert.equal(utf8Bytes(unfitted), 10_011);
    const text = await readFitted(runs, { handle }, 4096, () => assert.fail('no unexpected failure'));
    const r = JSON.parse(text) as { returned_lines: number; truncated: boolean; offset: number };
    assert.deepEqual([utf8Bytes(text), r.returned_lines, r.truncated, r.offset], [5_111, 100, true, 0]);
    assert.equal(await readFitted(runs, { handle, limit: 50 }, 4096, () => undefined), JSON.stringify(await runs.readToolOutput({ handle, limit: 50 })));
  });

  it('caps byte windows, passes store refusals through and hides unexpected failures', async () => {
    assert.equal(await readFitted(runs, { handle, bytes: { start: 0, end: 4097 } }, 4096, () => undefined), 'error: artifact range exceeds 4096 bytes');
    assert.equal(await readFitted(runs, { handle: 'res_nope' }, 4096, () => undefined), 'error: access denied: unknown handle');
    const seen: unknown[] = [];
    const broken = { readToolOutput: () => Promise.reject(new Error('/secret/host/path')) };
    assert.equal(await readFitted(broken, { handle }, 4096, (e) => seen.push(e)), READ_STORAGE_FAILURE);
    assert.equal(seen.length, 1);
    assert.ok(!(seen[0] instanceof EvidenceError));
  });

  it('adds the search hint under an observation with a handle, and makes two refusals actionable', () => {
    const obs = 'Tool result externalized:\n{"artifact_id":"a"}';
    assert.equal(readFileReply(obs, 'res_1-2', 'big.txt'), `${obs}\nSearchable by line or pattern: read_tool_output {"handle":"res_1-2"}`);
    assert.equal(searchHint('h'), 'Searchable by line or pattern: read_tool_output {"handle":"h"}');
    assert.equal(readFileReply(obs, undefined, 'big.txt'), obs);
    assert.equal(readFileReply('hello\n', 'res_1-2', 'a'), 'hello\n');
    assert.equal(readFileReply('error: file exceeds 100 bytes', undefined, 'a b.log', 'tooLarge'), 'error: file exceeds 100 bytes; capture it with evidence_runCommand (for example: cat "a b.log") and search it with read_tool_output');
    // The refusal is told by the reader (a typed flag), never by matching the text: the same words without it pass unchanged.
    assert.equal(readFileReply('error: file exceeds 100 bytes', undefined, 'a b.log'), 'error: file exceeds 100 bytes');
    const wide = `Artifact range:\n${'\\u0001'.repeat(1400)}`;
    assert.equal(readFileReply(wide, undefined, 'x'), 'error: this range would exceed 8 KiB once JSON-escaped (8416 bytes); request a smaller range');
  });

  it('learns an artifact another process put from this tenant\'s records, on a miss and on start-up', async () => {
    mkdirSync(path.join(dir, 'artifacts'));
    const putter = await ArtifactStore.open(path.join(dir, 'artifacts'), { tenant: 't1' });
    const ref = await putter.put('é'.repeat(3000));
    const fresh = await ArtifactStore.open(path.join(dir, 'artifacts'), { tenant: 't1' });
    const rangePath = `.tool-artifacts/${ref.artifactId}/bytes/0-8`;
    await learnArtifact({ runs, artifacts: fresh }, rangePath);
    assert.equal(fresh.has(ref.artifactId), false, 'no record names it yet');
    const run = await runs.startRun();
    await run.recordResult('evidence_readFile', { path: 'accents.txt' }, 'é'.repeat(3000));
    await run.finish();
    await learnArtifact({ runs, artifacts: fresh }, 'accents.txt');
    assert.equal(fresh.has(ref.artifactId), false, 'a plain path learns nothing');
    await learnArtifact({ runs, artifacts: fresh }, rangePath);
    assert.equal(fresh.has(ref.artifactId), true);
    const another = await ArtifactStore.open(path.join(dir, 'artifacts'), { tenant: 't1' });
    assert.equal(await reregisterArtifacts({ runs, artifacts: another }, () => assert.fail('every log reads')), 1);
    assert.equal(await reregisterArtifacts({ runs, artifacts: another }, () => undefined), 0, 'already known');
  });
});
