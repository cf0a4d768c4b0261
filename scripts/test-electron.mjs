#!/usr/bin/env node
// Desktop machines only: runs the same integration suite in a downloaded desktop VS Code
// through @vscode/test-electron. It cannot run on the project's build machines, which
// cannot download VS Code; there `npm run test:integration` uses the server build.
import { runTests } from '@vscode/test-electron';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The fixture extensions (a second extension using our API, a scripted chat model) are
// loaded beside the one under test, as the server-build harness does.
const fixtures = path.join(root, 'test', 'integration', 'fixtures');
const extensionDevelopmentPath = [
  root,
  ...readdirSync(fixtures, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(fixtures, d.name)),
];
await runTests({
  extensionDevelopmentPath,
  extensionTestsPath: path.join(root, 'out', 'test', 'integration', 'index.js'),
  launchArgs: [path.join(root, 'test', 'integration', 'workspace'), '--disable-extensions'],
});
