#!/usr/bin/env node
// Prints a long, deterministic test-runner report: thousands of passing tests, three
// failures with stack traces scattered through it, and a summary at the very end. Try
// it with "Run Command and Capture" and find the failures with a pattern such as
// "✗|FAIL" in the inspector, or ask "@evidence /run node test-report.js".
// Usage: node test-report.js [tests=20000]
const tests = Number(process.argv[2] ?? 20000);
const failing = new Set([Math.floor(tests * 0.21), Math.floor(tests * 0.58), Math.floor(tests * 0.93)]);
const out = [];
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const suites = ['ledger', 'invoices', 'payouts', 'fx', 'audit', 'exports'];
for (let i = 0; i < tests; i++) {
  const suite = suites[i % suites.length];
  const name = `${suite} › case ${String(i).padStart(5, '0')} handles input variant ${Math.floor(rand() * 1000)}`;
  if (failing.has(i)) {
    out.push(`  ✗ FAIL ${name} (${Math.floor(rand() * 400) + 20} ms)`);
    out.push(`      AssertionError: expected 1999 to equal 2000 (rounding of ${(rand() * 100).toFixed(4)} EUR)`);
    out.push(`        at Context.<anonymous> (test/${suite}/rounding.test.ts:${40 + (i % 60)}:17)`);
    out.push('        at process.processImmediate (node:internal/timers:483:21)');
  } else {
    out.push(`  ✓ ${name} (${Math.floor(rand() * 30) + 1} ms)`);
  }
  if (out.length >= 1000) { process.stdout.write(out.join('\n') + '\n'); out.length = 0; }
}
out.push('', `${tests - failing.size} passing, ${failing.size} failing`);
process.stdout.write(out.join('\n') + '\n');
process.stderr.write('warning: 3 tests failed; rerun with --bail to stop at the first\n');
process.exitCode = 1;
