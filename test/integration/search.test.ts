import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { evidenceApi, invoke } from './helpers.js';

/** Slow but not catastrophic: each ~1 MiB piece takes a fraction of a second, the whole output several. */
const SLOW = '(\\w+ )*\\d';
const LINE = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu';
const BYTES = 32_000_000;

async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('boundedEvidence').update(key, value, vscode.ConfigurationTarget.Global);
}

describe('pattern search deadlines and cancellation in the extension host', () => {
  let handle = '';

  before(async function () {
    this.timeout(120_000);
    await evidenceApi();
    const text = await invoke('evidence_runCommand', { command: `yes '${LINE}' | head -c ${BYTES}` });
    handle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(text)?.[1] ?? '';
    assert.ok(handle, text);
    assert.ok(text.includes(`stdout: ${BYTES} bytes`), text);
  });

  after(async () => {
    await setSetting('searchTimeoutMs', undefined);
  });

  it('stops a slow pattern when the tool call is cancelled', async function () {
    this.timeout(120_000);
    // Runs first, under the default 30 s limit.
    const cts = new vscode.CancellationTokenSource();
    setTimeout(() => cts.cancel(), 500);
    const t = Date.now();
    const reply = await invoke('read_tool_output', { handle, pattern: SLOW }, cts.token).catch(
      (e: unknown) => `rejected: ${String(e)}`,
    );
    const took = Date.now() - t;
    // Cancelled well before the search could have finished (it takes several seconds here)
    // and well before the default 30 s limit.
    assert.ok(took < 500 + 3_000, `took ${took} ms: ${reply.slice(0, 200)}`);
    assert.ok(reply === 'error: pattern search cancelled' || /^rejected: .*Cancel/i.test(reply), reply.slice(0, 200));
    // The host is still answering.
    const ok = JSON.parse(await invoke('read_tool_output', { handle, bytes: { start: 0, end: 5 } })) as {
      content: string;
    };
    assert.equal(ok.content, 'alpha');
  });
  it('stops a slow pattern at boundedEvidence.searchTimeoutMs and says how far it got', async function () {
    this.timeout(120_000);
    await setSetting('searchTimeoutMs', 700);
    // The setting reopens the services asynchronously: ask until the new limit answers.
    const t0 = Date.now();
    let reply: string;
    for (;;) {
      reply = await invoke('read_tool_output', { handle, pattern: SLOW });
      // The answer names the limit that stopped it; how soon after the limit is bench/ work.
      if (reply.startsWith('error: pattern search stopped')) break;
      assert.ok(Date.now() - t0 < 60_000, `the limit never applied: ${reply.slice(0, 200)}`);
    }
    assert.match(
      reply,
      new RegExp(
        `^error: pattern search stopped at its time limit \\(700 ms\\) after \\d+ of ${BYTES} bytes; no partial count is given`,
      ),
    );
    // A fast search still answers under the same limit.
    // No match, nothing more: the model's reply, byte for byte (no `truncated` when false, docs/contracts.md §2.5).
    assert.equal(
      await invoke('read_tool_output', { handle, pattern: 'omega' }),
      '{"total_matches":0,"content":"","matches":[]}',
    );
  });
});
