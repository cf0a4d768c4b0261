/**
 * Integration suite entry, exactly as `@vscode/test-electron` expects: the extension
 * host requires this module and awaits `run()`. Every `*.test.js` bundled beside it
 * is added. It prints one closing line `integration: N passed, N failed` and fails
 * when any test failed or when no test ran.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/** Runs every integration test file; rejects on any failure or on zero tests. */
export async function run(): Promise<void> {
  // BE_INTEGRATION_GREP (inherited from the server's environment) runs a subset while iterating.
  const grep = process.env.BE_INTEGRATION_GREP;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  await new Promise<void>((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const passes = runner.stats?.passes ?? 0;
      console.log(`integration: ${passes} passed, ${failures} failed`);
      if (failures > 0) reject(new Error(`${failures} integration tests failed`));
      else if (passes === 0) reject(new Error('no integration test ran'));
      else resolve();
    });
  });
}
