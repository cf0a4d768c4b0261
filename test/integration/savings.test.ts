/**
 * Savings from the editor's own front end (docs/contracts.md §2.14): language-model
 * tools invoked through `vscode.lm.invokeTool` note exactly the bytes of the one text part the
 * model gets, and reads back by handle as reads.
 */
import * as assert from 'node:assert/strict';
import { layoutOfFolder, RunStore } from '../../src/core/index.js';
import { bytesOf, evidenceApi, evidenceStorage, invoke } from './helpers.js';

describe("savings noted by the editor's language-model tools", () => {
  it('an answer and two reads back are counted to the byte the model was handed', async () => {
    await evidenceApi();
    const { storage, tenant } = await evidenceStorage();
    const layout = layoutOfFolder(storage, false);
    const open = (): Promise<RunStore> => RunStore.open({ logsDir: layout.logsDir, tenant, maintenance: false });
    const before = await (await open()).usage();
    const answer = await invoke('evidence_runCommand', { command: 'seq 1 50000' });
    const handle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(answer)![1]!;
    const r1 = await invoke('read_tool_output', { handle, pattern: '^4999[0-9]$' });
    const r2 = await invoke('read_tool_output', { handle, offset: 10, limit: 3 });
    // A refused read shows the model nothing of any output: not noted.
    assert.match(await invoke('read_tool_output', { handle: 'out_nope-1_stdout' }), /^error: /);
    const after = await (await open()).usage();
    const d = (k: keyof typeof after.total): number => after.total[k] - before.total[k];
    assert.equal(d('outputs'), 1);
    assert.equal(d('shownBytes'), bytesOf(answer));
    assert.equal(d('reads'), 2);
    assert.equal(d('readBytes'), bytesOf(r1) + bytesOf(r2));
    const out = Array.from({ length: 50000 }, (_, i) => `${i + 1}\n`).join('').length;
    assert.equal(d('outputBytes'), out);
    assert.equal(d('savedBytes'), out - bytesOf(answer) - bytesOf(r1) - bytesOf(r2));
  });
});
