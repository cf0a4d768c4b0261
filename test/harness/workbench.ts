/**
 * A real workbench in a real browser: starts the VS Code server with this extension
 * as the development extension, opens a workspace in headless Chromium, and offers
 * the few gestures tests need (run a palette command, reach the inspector webview,
 * take a screenshot). Used by the end-to-end suite and the start command's checks.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { startServer, type VsCodeServer } from './server.js';
import { repoRoot } from './tools.js';

/** Where screenshots and other test artefacts go (gitignored). */
export const outputDir = path.join(repoRoot, 'test-output');

/** The inspector panel's frame, by its extension and not a view's: the walkthrough and Savings are webviews too. */
export const INSPECTOR_FRAME =
  'iframe.webview.ready[src*="extensionId=bounded-evidence.bounded-evidence&"]:not([src*="purpose=webviewView"])';

/** VS Code's default themes the tests use → their file in theme-defaults (the workbench's class names it). */
const THEME_FILES: Record<string, string> = {
  'Default Light Modern': 'light_modern',
  'Default Dark Modern': 'dark_modern',
  'Default High Contrast': 'hc_black',
  'Default High Contrast Light': 'hc_light',
};

/** Options for opening a workbench. */
export interface WorkbenchOptions {
  /** Names the run folder and screenshots. */
  label: string;
  /** A folder copied into the run as the workspace; an empty folder when omitted. */
  workspaceTemplate?: string;
  /** Workspace settings (.vscode/settings.json) of the opened folder. */
  workspaceSettings?: Record<string, unknown>;
  /** User settings. */
  userSettings?: Record<string, unknown>;
  /** Extra smoke-test payload entries (e.g. extensionTestsPath), given the server's remote URI maker. */
  payload?: (remoteUri: (absPath: string) => string) => [string, string][];
  /** Called for each extension host console line. */
  onLog?: (type: string, text: string) => void;
  /** Called when the workbench reports a test exit code. */
  onExit?: (code: number) => void;
  /** Colour theme, e.g. 'Default Light Modern'. */
  colorTheme?: string;
  /** Further extension folders to install (see `ServerOptions.extraExtensions`). */
  extraExtensions?: string[];
}

/** A workbench under test. */
export class Workbench {
  private constructor(
    readonly server: VsCodeServer,
    readonly browser: Browser,
    readonly context: BrowserContext,
    readonly page: Page,
    readonly workspaceDir: string,
    readonly label: string,
    /** The workbench URL the page opened (another browser context opening it is another profile on the same server). */
    readonly url: string,
  ) {}

  /** Starts a server, a browser, and opens the workspace; waits for the workbench. */
  static async open(opts: WorkbenchOptions): Promise<Workbench> {
    const server = await startServer({
      label: opts.label,
      ...(opts.userSettings ? { userSettings: opts.userSettings } : {}),
      ...(opts.extraExtensions ? { extraExtensions: opts.extraExtensions } : {}),
    });
    const workspaceDir = path.join(server.runDir, 'workspace');
    if (opts.workspaceTemplate) cpSync(opts.workspaceTemplate, workspaceDir, { recursive: true });
    mkdirSync(path.join(workspaceDir, '.vscode'), { recursive: true });
    const settingsFile = path.join(workspaceDir, '.vscode', 'settings.json');
    writeFileSync(settingsFile, JSON.stringify({ ...opts.workspaceSettings }, null, 2));
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser(server.env);
      const context = await browser.newContext({
        viewport: { width: 1400, height: 900 },
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      const page = await context.newPage();
      await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
        // The extension host forwards console arguments unformatted (mocha's reporter
        // uses printf-style placeholders), so format them here.
        const text = format(...(Array.isArray(args) ? args : [args]));
        opts.onLog?.(type, text);
      });
      await page.exposeFunction('codeAutomationExit', (code: number) => {
        opts.onExit?.(code);
      });
      const payload: [string, string][] = [
        ['skipWelcome', 'true'],
        ['extensionDevelopmentPath', server.remoteUri(repoRoot)],
        ...(opts.payload?.(server.remoteUri) ?? []),
      ];
      const url = server.url(workspaceDir, payload);
      await page.goto(url);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      if (opts.colorTheme) await applyTheme(page, settingsFile, opts.colorTheme, opts.workspaceSettings);
      return new Workbench(server, browser, context, page, workspaceDir, opts.label, url);
    } catch (e) {
      await browser?.close().catch(() => undefined);
      await server.stop();
      throw e;
    }
  }

  /** Runs a command from the palette by its full title ("Bounded Evidence: Open Inspector"). */
  async runCommand(title: string): Promise<void> {
    await runPaletteCommand(this.page, title);
  }

  /** Runs "Bounded Evidence: Run Command and Capture" with `command` typed into its input box. */
  async capture(command: string): Promise<void> {
    await this.runCommand('Bounded Evidence: Run Command and Capture');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(command);
    await input.press('Enter');
  }

  /** The inspector's content frame (two iframes deep), once its webview is ready. */
  webview(): FrameLocator {
    return this.page.frameLocator(INSPECTOR_FRAME).frameLocator('iframe#active-frame');
  }

  /** Saves a full-page screenshot under test-output/e2e/. */
  async screenshot(name: string): Promise<string> {
    const dir = path.join(outputDir, 'e2e');
    mkdirSync(dir, { recursive: true });
    // Sub-folders in the name are kept (failures/…); each segment is made file-safe.
    const file = path.join(dir, ...`${name}.png`.split('/').map((seg) => seg.replace(/[^A-Za-z0-9._-]+/g, '_')));
    mkdirSync(path.dirname(file), { recursive: true });
    await this.page.screenshot({ path: file });
    return file;
  }

  /** Closes the browser and ends the server's process group. */
  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    await this.server.stop();
  }
}

/**
 * Sets the theme once the workbench is up: one set before the first start falls back to Light 2026 for good. Until it
 * shows, another theme is set in between (writing the same value again changes nothing).
 */
async function applyTheme(
  page: Page,
  settingsFile: string,
  theme: string,
  settings: Record<string, unknown> | undefined,
): Promise<void> {
  const write = (t: string): void =>
    writeFileSync(settingsFile, JSON.stringify({ ...settings, 'workbench.colorTheme': t }, null, 2));
  const shown = (t: string) => page.locator(`.monaco-workbench.vscode-theme-defaults-themes-${THEME_FILES[t]}-json`);
  write(theme);
  if (!THEME_FILES[theme]) return;
  const other = theme === 'Default Dark Modern' ? 'Default Light Modern' : 'Default Dark Modern';
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      await shown(theme).waitFor({ timeout: 5_000 });
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
    }
    write(other);
    await shown(other)
      .waitFor({ timeout: 5_000 })
      .catch(() => undefined);
    write(theme);
  }
}

/**
 * Runs a command from the palette by its full title, retrying for up to `ms`: the palette
 * does not refresh while open (the extension host may still be registering commands), and
 * it is inert while the workbench shows something modal for a moment.
 */
export async function runPaletteCommand(page: Page, title: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      await row.waitFor({ state: 'visible', timeout: 3_000 });
      // Enter runs the highlighted row, which for a moment after typing may still be another one (a recently used
      // command listed first: "View: Close Primary Side Bar" ran again instead of "View: Hide Secondary Side Bar").
      // When the highlighted row is not the one asked for, the row asked for is clicked.
      const focused = await page
        .locator('.quick-input-list .monaco-list-row.focused')
        .first()
        .textContent({ timeout: 1_000 })
        .catch(() => null);
      if (focused?.includes(title)) await input.press('Enter');
      else await row.click({ timeout: 5_000 });
      return;
    } catch {
      // Close whatever is open and ask again.
      await page.keyboard.press('Escape');
      if (Date.now() > deadline) throw new Error(`command not found in the palette: ${title}`);
      await page.waitForTimeout(500);
    }
  }
}

/** The lines of each window's "Bounded Evidence" log on this workbench's server, a list per window. */
export function extensionLogs(wb: Workbench): string[][] {
  const logs: string[][] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'Bounded Evidence.log') logs.push(readFileSync(p, 'utf8').trimEnd().split('\n'));
    }
  };
  const root = path.join(wb.server.runDir, 'user-data', 'logs');
  if (statSync(root, { throwIfNoEntry: false })) walk(root);
  return logs;
}

/** First file under `dir` (depth-first) that `match` accepts (finds the run logs a workbench's storage holds). */
export function findFile(dir: string, match: (f: string) => boolean): string | undefined {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      const f = findFile(p, match);
      if (f) return f;
    } else if (match(p)) return p;
  }
  return undefined;
}
