/**
 * Switching the workbench's colour theme for screenshots of one state in light and dark:
 * the workspace setting is rewritten (other settings kept) and the panel is awaited until
 * it paints in the new theme, so the screenshot shows it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, FrameLocator } from 'playwright-core';
import type { Workbench } from '../harness/workbench.js';
import { themeShown, type ThemeName } from './settle.js';

/** Sets `workbench.colorTheme` and waits until the panel shows it. */
export async function setTheme(wb: Workbench, view: FrameLocator | Frame, theme: ThemeName): Promise<void> {
  const file = path.join(wb.workspaceDir, '.vscode', 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...settings, 'workbench.colorTheme': theme }, null, 2));
  await themeShown(wb.page, view, theme);
}
