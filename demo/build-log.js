#!/usr/bin/env node
// Prints a deterministic multi-megabyte build log with exactly one error line in the
// middle, the way a real build buries the one line that matters. Usage:
//   node build-log.js [lines=60000]
// Writes progress chatter to stderr and exits 1, like a failed build.
const lines = Number(process.argv[2] ?? 60000);
const errorAt = Math.floor(lines / 2);
const out = [];
let sum = 0;
for (let i = 0; i < lines; i++) {
  if (i === errorAt) {
    out.push('src/ledger/reconcile.ts(412,17): error TS2345: Argument of type \'string\' is not assignable to parameter of type \'Cents\'.');
  } else {
    sum = (sum * 31 + i) % 1000003;
    out.push(`[${String(i).padStart(6, '0')}] compiling module-${i % 977}/unit-${i % 89}.ts ok in ${(sum % 97) + 3} ms (cache ${sum % 2 ? 'hit' : 'miss'}, hash ${sum.toString(16).padStart(6, '0')})`);
  }
  if (out.length === 1000) { process.stdout.write(out.join('\n') + '\n'); out.length = 0; }
}
process.stdout.write(out.length ? out.join('\n') + '\n' : '');
process.stderr.write(`build finished with 1 error after ${lines} steps\n`);
process.exitCode = 1;
