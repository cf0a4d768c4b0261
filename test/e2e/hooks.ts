/**
 * Root hooks for the end-to-end suite: a screenshot of every open workbench whenever a
 * test fails (saved under test-output/e2e/failures/), the quickest diagnosis there is.
 */
import type { Context } from 'mocha';
import { openWorkbenches } from './session.js';

/** Mocha root hook plugin. */
export const mochaHooks = {
  async afterEach(this: Context): Promise<void> {
    if (this.currentTest?.state !== 'failed') return;
    for (const wb of openWorkbenches()) {
      try {
        const file = await wb.screenshot(`failures/${wb.label}-${this.currentTest.fullTitle()}`);
        console.log(`    screenshot of the failure: ${file}`);
      } catch {
        /* the page may be gone */
      }
    }
  },
};
