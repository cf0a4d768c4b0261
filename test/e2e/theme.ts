/**
 * Switching the workbench's colour theme for screenshots of one state in light and dark:
 * the workspace setting is rewritten (other settings kept) and the panel's body class is
 * awaited, so the screenshot shows the new theme.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import type { Workbench } from '../harness/workbench.js';

/** Theme setting → the class VS Code puts on the webview's body. */
export const themeClasses = {
  'Default Light Modern': 'vscode-light',
  'Default Dark Modern': 'vscode-dark',
} as const;

/** Sets `workbench.colorTheme` and waits until the panel shows it. */
export async function setTheme(wb: Workbench, view: FrameLocator, theme: keyof typeof themeClasses): Promise<void> {
  const file = path.join(wb.workspaceDir, '.vscode', 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...settings, 'workbench.colorTheme': theme }, null, 2));
  await view.locator(`body.${themeClasses[theme]}`).waitFor({ timeout: 30_000 });
  await wb.page.waitForTimeout(300);
}
