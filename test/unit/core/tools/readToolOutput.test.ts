import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ArtifactStore,
  BoundedEvidenceWorkspace,
  EvidenceError,
  FsBlobStore,
  readFileReply,
  readFitted,
  READ_STORAGE_FAILURE,
  RunStore,
  searchHint,
  utf8Bytes,
} from '../../../../src/core/index.js';
import { ScriptedWorkspace } from '../evidence/helpers.js';

describe('shared tool replies (editor and MCP server)', () => {
  let dir: string;
  let runs: RunStore;
  let handle: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-tools-'));
    runs = await RunStore.open({
      logsDir: path.join(dir, 'logs'),
      tenant: 't1',
      blobs: await FsBlobStore.open(path.join(dir, 'blobs')),
    });
    const run = await runs.startRun();
    // 2,000 lines of 48 characters: 200 lines (the default window) is ~10 KB of JSON.
    const out = await run.recordResult(
      'x',
      {},
      Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(5, '0')} ${'y'.repeat(36)}`).join('\n'),
    );
    await run.finish();
    handle = out.handle!;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('halves the line window until the JSON fits under 8 KiB, and says where to continue', async () => {
    const unfitted = JSON.stringify(await runs.readToolOutput({ handle }));
    assert.equal(utf8Bytes(unfitted), 10_025);
    const text = await readFitted(runs, { handle }, 4096, () => assert.fail('no unexpected failure'));
    const r = JSON.parse(text) as { returned_lines: number; truncated: boolean; offset: number };
    assert.deepEqual([utf8Bytes(text), r.returned_lines, r.truncated, r.offset], [5_125, 100, true, 0]);
    assert.equal(
      await readFitted(runs, { handle, limit: 50 }, 4096, () => undefined),
      JSON.stringify(await runs.readToolOutput({ handle, limit: 50 })),
    );
  });

  it('caps byte windows, passes store refusals through and hides unexpected failures', async () => {
    assert.equal(
      await readFitted(runs, { handle, bytes: { start: 0, end: 4097 } }, 4096, () => undefined),
      'error: artifact range exceeds 4096 bytes',
    );
    assert.equal(
      await readFitted(runs, { handle: 'res_nope' }, 4096, () => undefined),
      'error: access denied: unknown or expired handle',
    );
    const seen: unknown[] = [];
    const broken = { readToolOutput: () => Promise.reject(new Error('/secret/host/path')) };
    assert.equal(await readFitted(broken, { handle }, 4096, (e) => seen.push(e)), READ_STORAGE_FAILURE);
    assert.equal(seen.length, 1);
    assert.ok(!(seen[0] instanceof EvidenceError));
  });

  it('adds the search hint under an observation with a handle, and makes two refusals actionable', () => {
    const obs = 'Tool result externalized:\n{"artifact_id":"a"}';
    assert.equal(
      readFileReply(obs, 'res_1-2', 'big.txt'),
      `${obs}\nSearchable by line or pattern: read_tool_output {"handle":"res_1-2"}`,
    );
    assert.equal(searchHint('h'), 'Searchable by line or pattern: read_tool_output {"handle":"h"}');
    assert.equal(readFileReply(obs, undefined, 'big.txt'), obs);
    assert.equal(readFileReply('hello\n', 'res_1-2', 'a'), 'hello\n');
    assert.equal(
      readFileReply('error: file exceeds 100 bytes', undefined, 'a b.log', 'tooLarge'),
      'error: file exceeds 100 bytes; capture it with evidence_runCommand (for example: cat "a b.log") and search it with read_tool_output',
    );
    // The refusal is told by the reader (a typed flag), never by matching the text: the same words without it pass unchanged.
    assert.equal(readFileReply('error: file exceeds 100 bytes', undefined, 'a b.log'), 'error: file exceeds 100 bytes');
    const wide = `Artifact range:\n${'\\u0001'.repeat(1400)}`;
    assert.equal(
      readFileReply(wide, undefined, 'x'),
      'error: this range would exceed 8 KiB once JSON-escaped (8416 bytes); request a smaller range',
    );
  });

  it('reads an artifact another process put at once, by its range path and by its handle: nothing to learn (docs/contracts.md §2.8)', async () => {
    const blobsDir = path.join(dir, 'shared-blobs');
    const putter = new ArtifactStore({ blobs: await FsBlobStore.open(blobsDir, { sweep: false }), tenant: 't1' });
    const text = 'é'.repeat(3000);
    const ref = await putter.put(text);
    const digest = (await putter.manifestFor(ref.artifactId)).manifestDigest;
    // "Another process": a store over the same folder that never saw the put, and a run store naming it in a record.
    const fresh = new ArtifactStore({ blobs: await FsBlobStore.open(blobsDir, { sweep: false }), tenant: 't1' });
    const ws = new BoundedEvidenceWorkspace(new ScriptedWorkspace(() => 'never'), fresh);
    assert.equal(
      await ws.execute({ tool: 'read_file', arguments: { path: `.tool-artifacts/${ref.artifactId}/bytes/0-8` } }),
      `Artifact range:\n${JSON.stringify({ artifact_id: ref.artifactId, byte_count: 8, data: 'éééé', end: 8, sha256: ref.sha256, start: 0, total_byte_count: 6000 })}`,
    );
    const recording = await RunStore.open({ logsDir: path.join(dir, 'shared-logs'), tenant: 't1', artifacts: putter });
    const run = await recording.startRun();
    const out = await run.recordArtifact(
      'evidence_readFile',
      { path: 'accents.txt' },
      {
        artifactId: ref.artifactId,
        manifest: (await putter.manifestFor(ref.artifactId)).manifest,
        manifestDigest: digest,
        bytes: new TextEncoder().encode(text),
      },
    );
    await run.finish();
    const reader = await RunStore.open({
      logsDir: path.join(dir, 'shared-logs'),
      tenant: 't1',
      artifacts: new ArtifactStore({ blobs: await FsBlobStore.open(blobsDir, { sweep: false }), tenant: 't1' }),
    });
    const read = await reader.readToolOutput({ handle: out.handle!, bytes: { start: 5990, end: 6000 } });
    assert.equal(read.content, 'ééééé');
    // Another tenant over the same folder: its keys are elsewhere, so the same id is not available to it.
    const other = new BoundedEvidenceWorkspace(
      new ScriptedWorkspace(() => 'never'),
      new ArtifactStore({ blobs: await FsBlobStore.open(blobsDir, { sweep: false }), tenant: 't2' }),
    );
    assert.equal(
      await other.execute({ tool: 'read_file', arguments: { path: `.tool-artifacts/${ref.artifactId}/bytes/0-8` } }),
      'error: artifact is not available in this store',
    );
  });
});
