/**
 * Waits on what a screenshot, axe or a measurement depends on, checked every frame in the page itself: a theme
 * shown in the workbench and the webview, a layout done at the window's size.
 */
import type { Frame, FrameLocator, Page } from 'playwright-core';

/** Theme setting → the class VS Code puts on the webview's body and the theme's file, named in the workbench's class. */
export const themeClasses = {
  'Default Light Modern': { body: 'vscode-light', file: 'light_modern' },
  'Default Dark Modern': { body: 'vscode-dark', file: 'dark_modern' },
  'Default High Contrast': { body: 'vscode-high-contrast', file: 'hc_black' },
  'Default High Contrast Light': { body: 'vscode-high-contrast-light', file: 'hc_light' },
} as const;
export type ThemeName = keyof typeof themeClasses;

const timeout = 30_000;

/**
 * Waits until `cond`, a page expression, holds: checked every frame inside the page. (A webview's policy forbids the
 * string evaluation `waitForFunction` polls with; an evaluation from outside is allowed.)
 */
export async function until(target: Page | Frame, cond: string, what: string, ms = timeout): Promise<void> {
  const held = await target.evaluate(`new Promise((resolve) => {
    const end = performance.now() + ${ms};
    const tick = () => {
      let ok = false;
      try { ok = Boolean(${cond}); } catch {}
      if (ok || performance.now() > end) return resolve(ok);
      // A frame not drawn (hidden) still reaches its deadline.
      const t = setTimeout(tick, 100);
      requestAnimationFrame(() => { clearTimeout(t); tick(); });
    };
    tick();
  })`);
  if (held !== true) throw new Error(`${what}: not so within ${ms} ms`);
}

/** A webview's content frame as a `Frame`. */
export async function frameOf(view: FrameLocator | Frame): Promise<Frame> {
  if ('frameElement' in view) return view;
  const frame = await (await view.owner().elementHandle({ timeout }))?.contentFrame();
  if (!frame) throw new Error('the webview has no content frame');
  return frame;
}

/** A colour as the browser computes it (`#1f1f1f` and `rgb(31, 31, 31)` compare equal). */
const rgbOf = `(v) => { const p = document.createElement('span'); p.style.color = v; document.body.append(p);
  const c = getComputedStyle(p).color; p.remove(); return c; }`;

/** Nothing animating and every font loaded, as the condition's last part (it then holds for the next frame too). */
const still = `document.fonts.status === 'loaded' && document.getAnimations().every((a) => a.playState !== 'running')`;

/**
 * Waits until the workbench wears `theme` and the webview paints with it: the body's class, and its text colour
 * computed from the workbench's own `--vscode-foreground`.
 */
export async function themeShown(page: Page, view: FrameLocator | Frame, theme: ThemeName): Promise<void> {
  const { body, file } = themeClasses[theme];
  await page.locator(`.monaco-workbench.vscode-theme-defaults-themes-${file}-json`).waitFor({ timeout });
  const want = (await page.evaluate(
    `(${rgbOf})(getComputedStyle(document.querySelector('.monaco-workbench')).getPropertyValue('--vscode-foreground').trim())`,
  )) as string;
  await until(
    await frameOf(view),
    `document.body.classList.contains(${JSON.stringify(body)}) &&
      getComputedStyle(document.body).color === ${JSON.stringify(want)} && ${still}`,
    `the webview showing ${theme} (body ${body}, text ${want})`,
  );
}

/** Holds once `sig` has been the same for two frames running. */
const steady = (sig: string): string =>
  `(() => { const s = JSON.stringify(${sig}); const g = globalThis;
    g.__beSettle = g.__beSettle && g.__beSettle.s === s ? { s, n: g.__beSettle.n + 1 } : { s, n: 0 };
    return g.__beSettle.n >= 2; })()`;

/** Waits until the workbench is laid out at the window's size: its grid fills it, and no webview moved for two frames. */
export async function workbenchSettled(page: Page): Promise<void> {
  await page.evaluate('delete globalThis.__beSettle');
  await until(
    page,
    `(() => { const grid = document.querySelector('.monaco-workbench > .monaco-grid-view');
      return grid !== null && grid.offsetWidth === innerWidth && grid.offsetHeight === innerHeight; })() &&
      ${steady(`[innerWidth, innerHeight, ...[...document.querySelectorAll('iframe.webview')].map((f) =>
        { const r = f.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })]`)}`,
    'the workbench laid out at the window size',
  );
}

/**
 * Waits until a window resize has been laid out in the workbench and in the webview: the frame has its element's
 * size, the inspector's split chose the layout its width calls for, and nothing moved for two frames.
 */
export async function layoutSettled(page: Page, view: FrameLocator | Frame): Promise<void> {
  await workbenchSettled(page);
  const frame = await frameOf(view);
  const owner = await frame.frameElement();
  const size = await owner.evaluate((el) => {
    const e = el as unknown as { clientWidth: number; clientHeight: number };
    return [e.clientWidth, e.clientHeight] as const;
  });
  await frame.evaluate('delete globalThis.__beSettle');
  await until(
    frame,
    // The split's choice as webview/layout.ts makes it.
    `innerWidth === ${size[0]} && innerHeight === ${size[1]} && (() => {
      const split = document.getElementById('split');
      if (!split) return true;
      const w = split.clientWidth;
      const mode = w >= 1200 ? 'side' : w < 500 ? 'compact' : 'stack';
      return split.dataset.layout === mode && split.hasAttribute('data-short') === split.clientHeight < 260;
    })() && ${still} && ${steady(`[innerWidth, innerHeight, document.documentElement.scrollHeight,
      document.querySelectorAll('.vlist-row:not([hidden])').length]`)}`,
    `the webview laid out at ${size[0]}×${size[1]}`,
  );
}
