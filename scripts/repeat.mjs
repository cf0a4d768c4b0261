#!/usr/bin/env node
// `npm run test:repeat -- <suite|spec file> <n>`: runs one suite (unit, agents, integration,
// e2e) or one spec file n times in a row and prints, per test, how many runs it failed in.
// A suite that fails by chance shows here as a test failing in some runs and not others.
// Each run's output is kept under test-output/repeat/ (the summary names the files).
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE24_BIN, supported, withSupportedNode } from './node24.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [what, times = '1'] = process.argv.slice(2);
const n = Number(times);
if (!what || !Number.isInteger(n) || n < 1) {
  console.error('usage: npm run test:repeat -- <unit|agents|integration|e2e|test/…/file.test.ts> <n>');
  process.exit(2);
}

const mocha = ['node_modules/mocha/bin/mocha.js'];
const configs = { unit: '.mocharc.json', agents: 'test/agents/.mocharc.json', e2e: 'test/e2e/.mocharc.json' };
const dir = path.join(root, 'test-output', 'repeat');
const label = what.replace(/[^A-Za-z0-9._-]+/g, '_');

/** The build the suite runs on (once, before the first run) and the arguments of one run. */
function plan() {
  if (what === 'unit') return { build: undefined, run: mocha };
  if (what === 'agents' || what === 'e2e') return { build: [], run: [...mocha, '--config', configs[what]] };
  if (what === 'integration') return { build: ['--tests'], run: ['--import', 'tsx', 'test/harness/runIntegration.ts'] };
  const spec = path.relative(root, path.resolve(what));
  const suite = spec.split(path.sep)[1];
  if (!(suite in configs)) {
    console.error(`${what}: a spec file under test/unit, test/agents or test/e2e, or a suite name`);
    process.exit(2);
  }
  // Its suite's configuration with only this file (a --spec given beside a configuration adds to its list).
  const config = { ...JSON.parse(readFileSync(path.join(root, configs[suite]), 'utf8')), spec: [spec] };
  const file = path.join(dir, `${label}.mocharc.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(config));
  return { build: suite === 'unit' ? undefined : [], run: [...mocha, '--config', path.relative(root, file)] };
}

/**
 * Failed tests named in a spec reporter's closing list: `  1) suite` then the title's
 * further parts each on its own line, the last ending in `:`.
 */
function failedTests(output) {
  const lines = output.replace(new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g'), '').split('\n');
  const failed = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {2}(\d+)\) (.*)$/.exec(lines[i]);
    if (!m) continue;
    const parts = [m[2]];
    while (!parts[parts.length - 1].endsWith(':') && i + 1 < lines.length && lines[i + 1].trim() !== '')
      parts.push(lines[++i].trim());
    failed.push(parts.join(' › ').replace(/:$/, ''));
  }
  return [...new Set(failed)];
}

/** Runs `node args` on a supported Node; resolves to its exit code and output (also written to `log`). */
function run(args, log, env) {
  return new Promise((resolve) => {
    const out = createWriteStream(log);
    const child = spawn(node, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    for (const s of [child.stdout, child.stderr])
      s.on('data', (d) => {
        text += d;
        out.write(d);
      });
    child.on('close', (code, signal) => {
      out.end();
      resolve({ code: code ?? (signal ? 128 : 1), text });
    });
  });
}

const env = withSupportedNode();
const node = supported() ? process.execPath : path.join(NODE24_BIN, 'node');
const { build, run: args } = plan();
if (build) {
  const b = spawnSync(node, ['esbuild.js', ...build], { cwd: root, env, stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
mkdirSync(dir, { recursive: true });
const failures = new Map();
let red = 0;
for (let k = 1; k <= n; k++) {
  const log = path.join(dir, `${label}-${k}.log`);
  const t0 = Date.now();
  const { code, text } = await run(args, log, env);
  const failed = failedTests(text);
  if (code !== 0 && failed.length === 0) failed.push(`(the run itself failed: exit ${code}; see ${log})`);
  const counts = /^\s*(\d+) passing/m.exec(text)?.[1] ?? /^integration: (\d+) passed/m.exec(text)?.[1] ?? '?';
  if (failed.length) red++;
  for (const t of failed) failures.set(t, [...(failures.get(t) ?? []), k]);
  console.log(
    `run ${k}/${n}: ${counts} passed, ${failed.length} failed (exit ${code}) in ${((Date.now() - t0) / 1000).toFixed(1)} s — ${path.relative(root, log)}`,
  );
}
console.log(`\n${what} ×${n}: ${n - red} green, ${red} red`);
if (failures.size === 0) console.log('no test failed in any run');
for (const [t, runs] of [...failures].sort((a, b) => b[1].length - a[1].length))
  console.log(`  ${String(runs.length).padStart(3)}/${n}  ${t}   (runs ${runs.join(', ')})`);
process.exit(red ? 1 : 0);
