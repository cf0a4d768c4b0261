#!/usr/bin/env node
// Fails (exit 1) when a git-tracked .sh file of src/ (the shim the extension writes) does not parse under `sh -n` or
// has a ShellCheck finding. ShellCheck is Debian's `shellcheck`, which scripts/setup-tools.sh installs: lint needs it.
// Part of `npm run lint`.
import { execFileSync, spawnSync } from 'node:child_process';

const files = execFileSync('git', ['ls-files', '-z', 'src/*.sh'], { encoding: 'utf8' }).split('\0').filter(Boolean);
let failed = false;
for (const file of files) {
  const parse = spawnSync('sh', ['-n', file], { encoding: 'utf8' });
  if (parse.status !== 0) {
    process.stderr.write(`sh -n ${file}:\n${parse.stderr}`);
    failed = true;
  }
}
const check = spawnSync('shellcheck', ['--shell=sh', ...files], { encoding: 'utf8' });
if (check.error) {
  process.stderr.write("shellcheck is not installed: run scripts/setup-tools.sh (it installs Debian's shellcheck)\n");
  failed = true;
} else if (check.status !== 0) {
  process.stderr.write(check.stdout + check.stderr);
  failed = true;
}
process.exit(failed ? 1 : 0);
