/**
 * The walkthrough on the first start after install. VS Code opens an extension's
 * walkthrough by itself only when the extension is installed while a window is open
 * (gated on `workbench.welcomePage.walkthroughs.openOnInstall`); one installed from the
 * command line before the window opens (`npm start`, `code --install-extension`, a
 * provisioned machine) never shows it. So the extension does it, once per profile
 * (globalState), under the same setting: when it is off the first start is spent and the
 * walkthrough never opens by itself (as VS Code's install-time opening would not).
 */
import * as vscode from 'vscode';
import type { Log } from '../log.js';
import { Ids } from '../ids.js';

/** globalState key: set on the first start, whatever was decided, so later starts do nothing. */
const FIRST_START_KEY = 'boundedEvidence.firstStartDone';
/** Longest wait for the workbench's own start-up README before the walkthrough opens anyway. */
const STARTUP_README_WAIT_MS = 15_000;

/** Opens the walkthrough if this is the profile's first start and the setting allows it. */
export async function openWalkthroughOnFirstStart(context: vscode.ExtensionContext, log: Log): Promise<void> {
  // An extension test run (a fresh profile every time) would get an editor it did not open.
  if (context.extensionMode === vscode.ExtensionMode.Test) return;
  if (context.globalState.get(FIRST_START_KEY)) return;
  await context.globalState.update(FIRST_START_KEY, true);
  if (!vscode.workspace.getConfiguration('workbench.welcomePage.walkthroughs').get<boolean>('openOnInstall', true)) {
    log.info('first start: the walkthrough is not opened (workbench.welcomePage.walkthroughs.openOnInstall is off)');
    return;
  }
  await startupReadme();
  // VS Code's own install-time opening keeps its Welcome page as a tab first; here any
  // editor in preview mode is kept, so the walkthrough never replaces what is on screen.
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
 * With `workbench.startupEditor: readme` the workbench previews a folder's README once the
 * markdown extension has started, often after this extension: opened before it, the
 * walkthrough would end up behind the README. So, when that README is still to come
 * (nothing open yet and the first folder has one, found as VS Code finds it), wait for the
 * first tab, at most STARTUP_README_WAIT_MS; the walkthrough then opens in front of it.
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
