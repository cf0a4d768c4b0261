#!/usr/bin/env node
// Fails (exit 1) listing file:line for every line over 120 in the git-tracked .ts files of src/ and webview/.
// Prettier wraps code at 120 but leaves comments and long string literals as written, so this catches those.
// Counted in UTF-8 bytes, as `awk 'length > 120'` counts them here: a line of `…` or `–` may pass Prettier and
// still fail this. Part of `npm run lint`.
import { execFileSync } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';

const MAX = 120;
const files = execFileSync('git', ['ls-files', '-z', 'src/*.ts', 'webview/*.ts'], { encoding: 'utf8' })
  .split('\0')
  .filter((f) => f !== '');
const long = [];
for (const file of files) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (Buffer.byteLength(line, 'utf8') > MAX) long.push(`${file}:${i + 1}`);
    });
}
if (long.length > 0) {
  console.error(`${long.length} line(s) over ${MAX} bytes (rewrap the comment, split the string):`);
  for (const l of long) console.error(`  ${l}`);
  process.exitCode = 1;
}
