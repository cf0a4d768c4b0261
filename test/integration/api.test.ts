import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { ReadResult, RecordedCall, RecordedObservation } from '../../src/extension/api/api.js';
import { bytesOf, CLIENT_ID, evidenceApi } from './helpers.js';

/** The fixture extension's API helpers (fixtures/evidence-client/extension.js). */
interface Client {
  bigText(bytes: number): string;
  recordAndRead(
    tool: string,
    input: object,
    result: unknown,
    read?: object,
  ): Promise<{ version: number; recorded: RecordedObservation; read?: ReadResult; seen: RecordedCall[] }>;
  read(args: object): Promise<ReadResult>;
}

describe('API for other extensions, used from a second extension', () => {
  let client: Client;
  before(async () => {
    await evidenceApi();
    client = await vscode.extensions.getExtension<Client>(CLIENT_ID)!.activate();
  });

  it('records a 2 MB result: bounded observation, handle, exact identity, read back by pattern, onDidRecord fired', async () => {
    const text = client.bigText(2_000_000);
    const r = await client.recordAndRead('fixture_search', { query: 'failure' }, text, { pattern: '^ERROR' });
    assert.equal(r.version, 1);
    assert.ok(bytesOf(r.recorded.observation) < 8192);
    assert.match(r.recorded.handle ?? '', /^res_/);
    assert.equal(r.recorded.byteCount, 2_000_000);
    assert.equal(r.recorded.sha256, createHash('sha256').update(text).digest('hex'));
    assert.equal(r.recorded.stored, 'blob');
    assert.equal(r.recorded.status, 'ok');
    assert.equal(r.read?.total_matches, 1);
    assert.match(r.read?.content ?? '', /^\d+:ERROR fixture failure/);
    const event = r.seen.find((e) => e.callId === r.recorded.callId);
    assert.ok(event, 'onDidRecord reported the call');
    assert.deepEqual(
      { tool: event.tool, handle: event.handle, byteCount: event.byteCount, sha256: event.sha256, runId: event.runId },
      {
        tool: 'fixture_search',
        handle: r.recorded.handle,
        byteCount: 2_000_000,
        sha256: r.recorded.sha256,
        runId: r.recorded.runId,
      },
    );
  });

  it('returns a small result whole, with no handle', async () => {
    const r = await client.recordAndRead('fixture_search', {}, 'three matches');
    assert.equal(r.recorded.observation, 'three matches');
    assert.equal(r.recorded.handle, undefined);
    assert.equal(r.recorded.stored, 'inline');
  });

  it('records structured results as compact JSON', async () => {
    const value = { rows: Array.from({ length: 2000 }, (_, i) => ({ i, ok: i !== 1234 })) };
    const r = await client.recordAndRead('fixture_query', {}, value, { pattern: '"ok":false' });
    assert.equal(r.recorded.byteCount, Buffer.byteLength(JSON.stringify(value)));
    assert.equal(r.read?.total_lines, 1);
  });

  it('refuses the reserved tool name and handles it did not mint', async () => {
    await assert.rejects(client.recordAndRead('read_tool_output', {}, 'x'), /reserved/);
    await assert.rejects(
      client.read({ handle: 'res_not-mine-1' }),
      /^EvidenceError: access denied: unknown or expired handle$|access denied: unknown or expired handle/,
    );
  });
});
