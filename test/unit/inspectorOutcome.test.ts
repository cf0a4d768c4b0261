/**
 * How a call ended, as the inspector shows it: the exit fields read from a command's
 * `value` attachment, the badge derived from them, and the outcome filter of the list.
 */
import * as assert from 'node:assert/strict';
import type { AttachmentRecord } from '../../src/core/index.js';
import { outcomeFields, sourceLabel } from '../../src/extension/inspector/mapping.js';
import { outcomeOf } from '../../src/shared/outcome.js';
import type { CallDto, RunDto } from '../../src/shared/protocol.js';
import { CallsModel, type Filters } from '../../webview/callsModel.js';

const value = (json: string): AttachmentRecord => ({
  name: 'value', slot: 'value', handle: 'out_c1_value', sizeBytes: json.length, observedBytes: json.length, truncated: false,
  contentType: 'application/json', sha256: '0'.repeat(64), stored: 'inline', preview: json, inline: json, lineCount: 0, binary: false, readable: true,
});

const call = (callId: string, fields: Partial<CallDto>): CallDto => ({
  runId: 'r1', callId, tool: 'run_command', argsSummary: '{}', status: 'ok', startedAt: `2026-01-01T00:00:0${callId.length}Z`,
  result: { name: 'result', sizeBytes: 10, binary: false, readable: true }, attachments: [], ...fields,
});

describe('inspector: call outcomes', () => {
  it('reads the exit fields the run layer records in the value attachment', () => {
    assert.deepEqual(outcomeFields([value('{"aborted":false,"code":1,"signal":null,"timedOut":false}')]), { exitCode: 1, signal: null });
    assert.deepEqual(outcomeFields([value('{"aborted":false,"code":null,"signal":"SIGKILL","timedOut":true}')]), { exitCode: null, signal: 'SIGKILL', timedOut: true });
    assert.deepEqual(outcomeFields([value('{"aborted":true,"code":null,"signal":"SIGTERM","timedOut":false}')]), { exitCode: null, signal: 'SIGTERM', cancelled: true });
    // No value attachment, or one that is not that JSON: no fields (older logs, other tools).
    assert.deepEqual(outcomeFields([]), {});
    assert.deepEqual(outcomeFields([value('not json')]), {});
    assert.deepEqual(outcomeFields([value('{"code":"1","signal":5}')]), {});
  });

  it('says a non-zero exit failed although the call is recorded ok', () => {
    assert.deepEqual(outcomeOf({ status: 'ok', exitCode: 1, signal: null }), { kind: 'failed', label: 'exit 1', detail: 'the command exited with code 1' });
    assert.deepEqual(outcomeOf({ status: 'ok', exitCode: 127, signal: null }), { kind: 'failed', label: 'exit 127', detail: 'the command exited with code 127 (command not found)' });
    assert.deepEqual(outcomeOf({ status: 'ok', exitCode: 0, signal: null }), { kind: 'ok', label: 'exit 0', detail: 'the command exited with code 0' });
    assert.deepEqual(outcomeOf({ status: 'ok' }), { kind: 'ok', label: 'ok', detail: 'the call succeeded' });
    assert.equal(outcomeOf({ status: 'ok', exitCode: null, signal: 'SIGSEGV' }).label, 'SIGSEGV');
    assert.equal(outcomeOf({ status: 'error', exitCode: null, signal: 'SIGKILL', timedOut: true, errorMessage: 'the command timed out after 50 ms' }).label, 'timed out');
    assert.equal(outcomeOf({ status: 'error', exitCode: null, signal: 'SIGTERM', cancelled: true }).label, 'cancelled');
    assert.deepEqual(outcomeOf({ status: 'failed', errorMessage: 'blob store failed' }), { kind: 'failed', label: 'failed', detail: 'blob store failed' });
    assert.equal(outcomeOf({ status: 'running' }).kind, 'running');
    assert.equal(outcomeOf({ status: 'interrupted' }).kind, 'failed');
  });

  it('filters the list by outcome, and finds a failure by its badge text', () => {
    const m = new CallsModel();
    const run: RunDto = { runId: 'r1', startedAt: '2026-01-01T00:00:00Z', status: 'completed', pinned: false, callCount: 4, totalBytes: 40 };
    m.setAll([run], [
      call('a', { exitCode: 0, signal: null }), call('bb', { exitCode: 2, signal: null }),
      call('ccc', { status: 'running' }), call('dddd', { tool: 'read_file' }),
    ]);
    const ids = (f: Partial<Filters>): string[] => m.rows({ tool: '', run: '', text: '', sort: 'time', ...f }, new Set()).flatMap((r) => (r.kind === 'call' ? [r.call.callId] : []));
    assert.deepEqual(ids({}), ['dddd', 'ccc', 'bb', 'a']);
    assert.deepEqual(ids({ outcome: 'failed' }), ['bb']);
    assert.deepEqual(ids({ outcome: 'ok' }), ['dddd', 'a']);
    assert.deepEqual(ids({ outcome: 'running' }), ['ccc']);
    assert.deepEqual(ids({ text: 'exit 2' }), ['bb']);
    // A filtered-out run shows no header with an outcome filter on.
    assert.equal(m.rows({ tool: '', run: '', text: '', sort: 'time', outcome: 'failed' }, new Set()).filter((r) => r.kind === 'run').length, 1);
  });

  it('names who started a run in one word, and the text filter finds runs by it', () => {
    assert.equal(sourceLabel(undefined), 'tool');
    assert.equal(sourceLabel({ kind: 'hook', agent: 'claude', sessionId: 's1' }), 'hook:claude');
    assert.equal(sourceLabel({ kind: 'hook' }), 'hook');
    assert.equal(sourceLabel({ kind: 'cli' }), 'cli');
    const m = new CallsModel();
    m.setAll([
      { runId: 'r1', startedAt: '2026-01-01T00:00:00Z', status: 'completed', pinned: false, callCount: 1, totalBytes: 1, source: 'hook:claude' },
      { runId: 'r2', startedAt: '2026-01-01T00:00:01Z', status: 'completed', pinned: false, callCount: 1, totalBytes: 1, source: 'cli' },
    ], [call('a', {}), { ...call('b', {}), runId: 'r2' }]);
    const ids = m.rows({ tool: '', run: '', text: 'hook:claude', sort: 'time' }, new Set()).flatMap((r) => (r.kind === 'call' ? [r.call.callId] : []));
    assert.deepEqual(ids, ['a']);
  });

  it('filters the list by run source, headers included, and lists the sources present', () => {
    const m = new CallsModel();
    m.setAll([
      { runId: 'r1', startedAt: '2026-01-01T00:00:00Z', status: 'completed', pinned: false, callCount: 1, totalBytes: 1, source: 'hook:claude' },
      { runId: 'r2', startedAt: '2026-01-01T00:00:01Z', status: 'completed', pinned: false, callCount: 1, totalBytes: 1, source: 'cli' },
      // Listed without a source (an older log): a tool run.
      { runId: 'r3', startedAt: '2026-01-01T00:00:02Z', status: 'completed', pinned: false, callCount: 1, totalBytes: 1 },
      { runId: 'r4', startedAt: '2026-01-01T00:00:03Z', status: 'running', pinned: false, callCount: 0, totalBytes: 0, source: 'cli' },
    ], [call('a', {}), { ...call('b', {}), runId: 'r2' }, { ...call('c', {}), runId: 'r3' }]);
    assert.deepEqual(m.sources(), ['cli', 'hook:claude', 'tool']);
    const rows = (source: string): string[] => m.rows({ tool: '', run: '', text: '', sort: 'time', source }, new Set())
      .map((r) => (r.kind === 'run' ? `run ${r.run.runId}` : r.call.callId));
    assert.deepEqual(rows('cli'), ['run r4', 'run r2', 'b']);
    assert.deepEqual(rows('hook:claude'), ['run r1', 'a']);
    assert.deepEqual(rows('tool'), ['run r3', 'c']);
    assert.deepEqual(rows('mcp'), []);
    assert.deepEqual(rows(''), ['run r4', 'run r3', 'c', 'run r2', 'b', 'run r1', 'a']);
  });
});
