/**
 * VS Code opens a walkthrough by itself only when the extension is installed with a window open; one installed before
 * (`npm start`, `code --install-extension`) never shows it. So the extension does it once per profile, under the same
 * setting.
 */
import * as vscode from 'vscode';
import type { Log } from '../log.js';
import { Ids } from '../ids.js';

/** Set whatever was decided, so later starts do nothing. */
const FIRST_START_KEY = 'boundedEvidence.firstStartDone';
const STARTUP_README_WAIT_MS = 15_000;

export async function openWalkthroughOnFirstStart(context: vscode.ExtensionContext, log: Log): Promise<void> {
  // A test run (a fresh profile every time) would get an editor it did not open.
  if (context.extensionMode === vscode.ExtensionMode.Test) return;
  if (context.globalState.get(FIRST_START_KEY)) {
    log.info('first start: spent in this profile, the walkthrough is not opened');
    return;
  }
  await context.globalState.update(FIRST_START_KEY, true);
  if (!vscode.workspace.getConfiguration('workbench.welcomePage.walkthroughs').get<boolean>('openOnInstall', true)) {
    log.info('first start: the walkthrough is not opened (workbench.welcomePage.walkthroughs.openOnInstall is off)');
    return;
  }
  await startupReadme();
  // Any editor in preview mode is kept, so the walkthrough never replaces what is on screen.
  if (vscode.window.tabGroups.activeTabGroup.activeTab?.isPreview)
    await vscode.commands.executeCommand('workbench.action.keepEditor');
  await vscode.commands.executeCommand(
    'workbench.action.openWalkthrough',
    `${context.extension.id}#${Ids.walkthrough}`,
    false,
  );
  log.info('first start: the walkthrough opened');
}

/**
 * The workbench may preview a folder's README after this extension starts, which would hide the walkthrough; so wait
 * for it, bounded.
 */
async function startupReadme(): Promise<void> {
  if (vscode.window.tabGroups.all.some((g) => g.tabs.length > 0)) return;
  if (vscode.workspace.getConfiguration('workbench').get<string>('startupEditor') !== 'readme') return;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder) return;
  const names = await vscode.workspace.fs.readDirectory(folder).then(
    (entries) => entries.map(([name]) => name.toLowerCase()),
    () => [] as string[],
  );
  if (!names.some((n) => n.startsWith('readme'))) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      sub.dispose();
      clearTimeout(timer);
      resolve();
    };
    const sub = vscode.window.tabGroups.onDidChangeTabs((e) => {
      if (e.opened.length > 0) done();
    });
    const timer = setTimeout(done, STARTUP_README_WAIT_MS);
    // The tab may have opened between the check above and the subscription.
    if (vscode.window.tabGroups.all.some((g) => g.tabs.length > 0)) done();
  });
}
