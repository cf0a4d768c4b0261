import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'bounded-evidence.bounded-evidence';

describe('activation', () => {
  it('activates and registers the Open Inspector command', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'extension is installed as the development extension');
    await ext.activate();
    assert.equal(ext.isActive, true);
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('boundedEvidence.openInspector'));
  });

  it('opens the Evidence Inspector panel', async () => {
    await vscode.commands.executeCommand('boundedEvidence.openInspector');
    // The tab model is updated asynchronously after the panel is created.
    const labels = (): string[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label);
    for (let i = 0; i < 50 && !labels().includes('Evidence Inspector'); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(labels().includes('Evidence Inspector'), `tabs: ${labels().join(', ')}`);
  });
});
