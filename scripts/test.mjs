#!/usr/bin/env node
// `npm test`: every suite, in order — type check and lint, unit (plain Node), agents (real
// agent command lines against a scripted model server), integration (inside a real VS Code
// extension host), end-to-end (a real browser driving a real
// workbench). Prints each runner's counts and one closing line; exits non-zero if
// anything failed, was skipped, or if a suite ran zero tests.
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { NODE24_BIN, withSupportedNode } from './node24.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2); // e.g. `npm test -- unit e2e`

/** Runs a command, echoing its output, and returns { code, output }. */
function run(cmd, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const tee = (stream, to) =>
      stream.on('data', (d) => {
        output += d;
        to.write(d);
      });
    tee(child.stdout, process.stdout);
    tee(child.stderr, process.stderr);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output }));
  });
}

/** Reads mocha's spec-reporter summary. */
function mochaCounts(output) {
  const num = (re) => {
    const m = [...output.matchAll(re)].pop();
    return m ? Number(m[1]) : 0;
  };
  return {
    passed: num(/^\s*(\d+) passing/gm),
    failed: num(/^\s*(\d+) failing/gm),
    skipped: num(/^\s*(\d+) pending/gm),
  };
}

/** Mocha's failure list (from "N failing" on), capped: reprinted at the end, where CI's tail shows it. */
function failureText(output) {
  const at = output.search(/^\s*\d+ failing/m);
  if (at < 0) return '';
  const lines = output.slice(at).split('\n');
  return lines.slice(0, 80).join('\n') + (lines.length > 80 ? `\n  … ${lines.length - 80} more lines not shown` : '');
}

const steps = [
  { name: 'setup', kind: 'step', cmd: 'bash', args: ['scripts/setup-tools.sh'] },
  { name: 'typecheck', kind: 'step', cmd: 'npm', args: ['run', '--silent', 'typecheck'] },
  { name: 'lint', kind: 'step', cmd: 'npm', args: ['run', '--silent', 'lint'] },
  { name: 'unit', kind: 'mocha', cmd: 'npx', args: ['mocha'] },
  { name: 'build', kind: 'step', cmd: 'node', args: ['esbuild.js', '--tests'] },
  // Real agent command lines (Claude Code from npm) against a scripted model server on
  // loopback; they run the built dist/ (the hook, the command line, the MCP server).
  { name: 'agents', kind: 'mocha', cmd: 'npx', args: ['mocha', '--config', 'test/agents/.mocharc.json'] },
  {
    name: 'integration',
    kind: 'integration',
    cmd: 'node',
    args: ['--import', 'tsx', 'test/harness/runIntegration.ts'],
  },
  { name: 'e2e', kind: 'mocha', cmd: 'npx', args: ['mocha', '--config', 'test/e2e/.mocharc.json'] },
];

const results = [];
let failedSteps = 0;
// Setup runs on the Node that started `npm test` (20 on a fresh machine) and installs Node 24 into
// .tools/; every later step runs with a Node >= 22.14 first on PATH (node:sqlite: the run catalog),
// so typecheck, lint, mocha, esbuild and the suites all run on it, and npm and npx too (#!/usr/bin/env node).
let env = process.env;
for (const step of steps) {
  if (only.length && step.kind !== 'step' && !only.includes(step.name)) continue;
  console.log(`\n▶ ${step.name}`);
  const t0 = Date.now();
  const { code, output } = await run(step.cmd, step.args, env);
  if (step.name === 'setup' && code === 0) {
    // The Node 24 setup just installed (the one CI and every machine share), else whatever newer Node runs this.
    env = existsSync(path.join(NODE24_BIN, 'node'))
      ? { ...process.env, PATH: `${NODE24_BIN}${path.delimiter}${process.env.PATH ?? ''}` }
      : withSupportedNode();
    const v = spawnSync('node', ['--version'], { env, encoding: 'utf8' });
    console.log(`  later steps run on Node ${v.status === 0 ? v.stdout.trim() : '(none could be started)'}`);
  }
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  if (step.kind === 'step') {
    console.log(`◀ ${step.name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds} s`);
    if (code !== 0) {
      failedSteps++;
      break;
    }
    continue;
  }
  let counts;
  if (step.kind === 'mocha') counts = mochaCounts(output);
  else {
    const m = [...output.matchAll(/^integration: (\d+) passed, (\d+) failed/gm)].pop();
    counts = { passed: m ? Number(m[1]) : 0, failed: m ? Number(m[2]) : 0, skipped: 0 };
  }
  const problems = [];
  if (code !== 0) problems.push(`exit ${code}`);
  if (counts.passed + counts.failed === 0) problems.push('ran zero tests');
  if (counts.skipped > 0) problems.push(`${counts.skipped} skipped`);
  results.push({ name: step.name, ...counts, seconds, problems, failures: failureText(output) });
  console.log(
    `◀ ${step.name}: ${counts.passed} passed, ${counts.failed} failed${problems.length ? ` (${problems.join(', ')})` : ''} in ${seconds} s`,
  );
}

console.log('\nSummary');
let passed = 0,
  failed = 0,
  skipped = 0;
for (const r of results) {
  passed += r.passed;
  failed += r.failed;
  skipped += r.skipped;
  console.log(
    `  ${r.name.padEnd(12)} ${String(r.passed).padStart(5)} passed ${String(r.failed).padStart(4)} failed ${String(r.skipped).padStart(3)} skipped  ${r.seconds.padStart(7)} s${r.problems.length ? `  ✘ ${r.problems.join(', ')}` : ''}`,
  );
}
for (const r of results.filter((r) => r.failures)) console.log(`\nFailures in ${r.name}:\n${r.failures}`);
const bad =
  failedSteps > 0 ||
  results.some((r) => r.problems.length > 0) ||
  (only.length === 0 && results.length < steps.filter((s) => s.kind !== 'step').length);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(bad ? 1 : 0);
