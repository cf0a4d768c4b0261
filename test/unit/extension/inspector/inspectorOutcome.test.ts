/**
 * How a call ended, as the inspector shows it: the exit fields read from a command's
 * `value` attachment, the badge derived from them, and the outcome filter of the list.
 */
import * as assert from 'node:assert/strict';
import type { AttachmentRecord } from '../../../../src/core/index.js';
import { outcomeFields, sourceLabel } from '../../../../src/extension/inspector/mapping.js';
import { outcomeOf, runOutcomeOf } from '../../../../src/shared/outcome.js';

const value = (json: string): AttachmentRecord => ({
  name: 'value',
  slot: 'value',
  handle: 'out_c1_value',
  sizeBytes: json.length,
  observedBytes: json.length,
  truncated: false,
  contentType: 'application/json',
  sha256: '0'.repeat(64),
  stored: 'inline',
  preview: json,
  inline: json,
  lineCount: 0,
  binary: false,
  readable: true,
});

describe('inspector: call outcomes', () => {
  it('reads the exit fields the run layer records in the value attachment', () => {
    assert.deepEqual(outcomeFields([value('{"aborted":false,"code":1,"signal":null,"timedOut":false}')]), {
      exitCode: 1,
      signal: null,
    });
    assert.deepEqual(outcomeFields([value('{"aborted":false,"code":null,"signal":"SIGKILL","timedOut":true}')]), {
      exitCode: null,
      signal: 'SIGKILL',
      timedOut: true,
    });
    assert.deepEqual(outcomeFields([value('{"aborted":true,"code":null,"signal":"SIGTERM","timedOut":false}')]), {
      exitCode: null,
      signal: 'SIGTERM',
      cancelled: true,
    });
    // No value attachment, or one that is not that JSON: no fields (older logs, other tools).
    assert.deepEqual(outcomeFields([]), {});
    assert.deepEqual(outcomeFields([value('not json')]), {});
    assert.deepEqual(outcomeFields([value('{"code":"1","signal":5}')]), {});
  });

  it('says a non-zero exit failed although the call is recorded ok', () => {
    assert.deepEqual(outcomeOf({ status: 'ok', exitCode: 1, signal: null }), {
      kind: 'failed',
      label: 'exit 1',
      detail: 'the command exited with code 1',
    });
    assert.deepEqual(outcomeOf({ status: 'ok', exitCode: 127, signal: null }), {
      kind: 'failed',
      label: 'exit 127',
      detail: 'the command exited with code 127 (command not found)',
    });
    assert.deepEqual(outcomeOf({ status: 'ok', exitCode: 0, signal: null }), {
      kind: 'ok',
      label: 'exit 0',
      detail: 'the command exited with code 0',
    });
    assert.deepEqual(outcomeOf({ status: 'ok' }), { kind: 'ok', label: 'ok', detail: 'the call succeeded' });
    assert.equal(outcomeOf({ status: 'ok', exitCode: null, signal: 'SIGSEGV' }).label, 'SIGSEGV');
    assert.equal(
      outcomeOf({
        status: 'error',
        exitCode: null,
        signal: 'SIGKILL',
        timedOut: true,
        errorMessage: 'the command timed out after 50 ms',
      }).label,
      'timed out',
    );
    assert.equal(outcomeOf({ status: 'error', exitCode: null, signal: 'SIGTERM', cancelled: true }).label, 'cancelled');
    assert.deepEqual(outcomeOf({ status: 'failed', errorMessage: 'blob store failed' }), {
      kind: 'failed',
      label: 'failed',
      detail: 'blob store failed',
    });
    assert.equal(outcomeOf({ status: 'running' }).kind, 'running');
    assert.equal(outcomeOf({ status: 'interrupted' }).kind, 'failed');
  });

  it('names who started a run in one word', () => {
    assert.equal(sourceLabel(undefined), 'tool');
    assert.equal(sourceLabel({ kind: 'hook', agent: 'claude', sessionId: 's1' }), 'hook:claude');
    assert.equal(sourceLabel({ kind: 'hook' }), 'hook');
    assert.equal(sourceLabel({ kind: 'cli' }), 'cli');
  });

  it('a run reads as failed when one of its calls failed, though its record says completed', () => {
    assert.deepEqual(runOutcomeOf({ status: 'completed', callCount: 1, failedCalls: 1 }), {
      kind: 'failed',
      label: 'failed',
      detail: '1 of 1 call failed',
    });
    assert.deepEqual(runOutcomeOf({ status: 'completed', callCount: 3, failedCalls: 2 }), {
      kind: 'failed',
      label: '2 failed',
      detail: '2 of 3 calls failed',
    });
    assert.equal(runOutcomeOf({ status: 'completed', callCount: 3, failedCalls: 0 }).label, 'completed');
    assert.equal(runOutcomeOf({ status: 'completed', callCount: 3, failedCalls: 0 }).kind, 'ok');
    assert.equal(runOutcomeOf({ status: 'interrupted', callCount: 1, failedCalls: 0 }).kind, 'failed');
    assert.equal(runOutcomeOf({ status: 'cancelled', callCount: 1, failedCalls: 0 }).label, 'cancelled');
    assert.equal(runOutcomeOf({ status: 'running', callCount: 1, failedCalls: 1 }).kind, 'running');
  });
});
