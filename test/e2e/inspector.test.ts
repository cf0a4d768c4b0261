import * as assert from 'node:assert/strict';
import { closeWorkbench, openWorkbench } from './session.js';
import type { Workbench } from '../harness/workbench.js';

describe('Evidence Inspector in a real workbench', () => {
  let wb: Workbench | undefined;
  before(async () => { wb = await openWorkbench({ label: 'inspector' }); });
  after(async () => { await closeWorkbench(wb); });

  it('opens from the command palette and shows its heading', async () => {
    await wb!.runCommand('Bounded Evidence: Open Inspector');
    const heading = wb!.webview().locator('h1');
    await heading.waitFor({ timeout: 30_000 });
    assert.equal((await heading.textContent())?.trim(), 'Evidence Inspector');
    await wb!.screenshot('inspector-opened');
  });
});
