/**
 * axe-core (pinned devDependency) evaluated inside the inspector panel's own frame,
 * through the browser's debugging protocol, so the panel's CSP stays as strict as it
 * ships. Shared by the accessibility suite and the 200% zoom test.
 */
import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import { INSPECTOR_FRAME } from '../harness/workbench.js';

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One axe violation: its rule, impact, how many nodes, the first few targets. */
export interface Finding {
  id: string;
  impact: string;
  nodes: number;
  targets: string[];
  summary: string;
}

/** The panel's content frame as a Frame (two iframes deep). */
export async function panelFrame(page: Page): Promise<Frame> {
  const outer = await (await page.locator(INSPECTOR_FRAME).elementHandle())!.contentFrame();
  const inner = await (await outer!.locator('iframe#active-frame').elementHandle())!.contentFrame();
  return inner!;
}

/** Every axe violation in the panel as it is now. */
export async function axe(page: Page): Promise<Finding[]> {
  return axeIn(await panelFrame(page));
}

/** Every axe violation in one webview's content frame (the Savings view's, say). */
export async function axeIn(frame: Frame): Promise<Finding[]> {
  return (await frame.evaluate(`${axeSource}
    ;axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact || 'none', nodes: v.nodes.length,
      targets: v.nodes.slice(0, 4).map((n) => n.target.join(' ')),
      summary: (v.nodes[0] && v.nodes[0].failureSummary || '').split('\\n').slice(0, 3).join(' '),
    })))`)) as Finding[];
}
