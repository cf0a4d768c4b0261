/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own Node process (so peak RSS
 * of one benchmark is not polluted by another) and prints their reports. A name
 * filter may be given: `npm run bench -- put`. Benchmarks are not tests: they print
 * medians and ratios against a baseline measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

const dir = __dirname;
const filter = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(dir, file)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`!!! ${file} exited ${r.status}`);
  }
}
process.exit(failed ? 1 : 0);
