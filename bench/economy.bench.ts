/**
 * `npm run bench -- economy`: how many bytes a model reads to reach one needle
 * in real outputs, with our tools, next to what other published policies would show.
 *
 * The corpus is made by real tools on this machine (no hand-written text): install logs
 * (`npm install --loglevel=silly` of two packages into a temporary project — it needs the
 * npm registry — and `apt-get install --simulate`), `tsc --listFiles --extendedDiagnostics`
 * of this project, the lock file, `git log -p` of this repository, `find -ls` of
 * node_modules, a minified bundle and a `.wasm` from node_modules, and a JSON dump over
 * 100 MB (`find /` records encoded as JSON objects by `jq`, one per line). Each output is captured by `runCommand`
 * with default settings; the needle is taken mechanically from the middle (the longest
 * token of the line holding the middle byte; for binary, the longest printable run near
 * it). Per output: the first view (the command's observation), the bytes and calls to
 * reach the needle (one `read_tool_output` pattern call, fitted under 8 KiB as the
 * front ends fit it; a byte window if the match was not shown), and bytes lost.
 * Computed, not measured: head/tail truncation to 10 KB, a pointer with no preview, a
 * 2 KB head preview (which bytes each would have shown of the same output).
 *
 * Then the failing corpus (`failingCorpus.ts`): real failing runs of 15 toolchains,
 * each with the rule that names its first error line. Per output: its size, the first view's
 * bytes, whether that line is in the first view whole with its line number (found by the
 * reader's own pattern call with the rule's pattern, not by the scan), whether the previous
 * head-and-tail first view held it (computed from its position), and bytes lost.
 * `BE_ECONOMY=failing` runs only this part.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { FsBlobStore } from '../src/core/blobs/fsBlobStore.js';
import { RunStore } from '../src/core/runs/store/runStore.js';
import { ERROR_RULES } from '../src/core/runs/errorLines/errorRules.js';
import type { RunApi, RunStoreApi } from '../src/core/runs/types.js';
import { readFitted } from '../src/core/tools/readToolOutput.js';
import { FAILING } from './failingCorpus.js';
import { median, scratchDir } from './util.js';

const ROOT = path.join(__dirname, '..');

const CORPUS: [string, string][] = [
  // An install log: npm at its most verbose level installing two packages into an empty temporary project.
  [
    'npm install --loglevel=silly',
    'd=$(mktemp -d) && cd "$d" && npm init -y >/dev/null && npm install --loglevel=silly --no-audit --no-fund express@4.19.2 webpack@5.91.0 2>&1; cd / && rm -rf "$d"',
  ],
  ['apt-get install --simulate', 'apt-get install --simulate libreoffice 2>&1'],
  [
    'tsc --listFiles --extendedDiagnostics',
    'node_modules/.bin/tsc --noEmit -p . --listFiles --extendedDiagnostics 2>&1',
  ],
  ['package-lock.json', 'cat package-lock.json'],
  ['git log -p', 'git log -p --no-color'],
  // `node_modules/`: in a git worktree node_modules is a symlink, which find does not follow without the slash.
  ['find node_modules -ls', 'find node_modules/ -ls'],
  ['minified bundle', 'cat node_modules/@azure/msal-browser/lib/msal-browser.min.js'],
  ['.wasm', 'cat node_modules/playwright-core/lib/webp_codec.wasm'],
  // A JSON dump over 100 MB: one JSON object per file of the root file system (find's fields, encoded by jq).
  [
    'JSON dump > 100 MB (find / piped to jq)',
    "find / -xdev -printf '%p\\t%s\\t%T@\\t%M\\t%u\\t%i\\t%n\\n' 2>/dev/null | jq -R -c 'split(\"\\t\") | {path: .[0], size: (.[1] | tonumber), mtime: .[2], mode: .[3], user: .[4], inode: (.[5] | tonumber), links: (.[6] | tonumber)}'",
  ],
];

/**
 * The needle: the longest token on the line holding the middle byte (text), or the
 * longest printable run near the middle (binary). `win` is bytes [base, base + win.length)
 * of the output around its middle byte `mid`.
 */
function needleOf(win: Buffer, base: number, mid: number, binary: boolean): { needle: string; offset: number } {
  const m = mid - base;
  let from = binary ? 0 : win.lastIndexOf(10, m) + 1;
  let to = binary ? win.length : win.indexOf(10, m);
  if (to === -1) to = win.length;
  // A very long line (minified, JSON on one line): the 8 KiB around the middle.
  if (!binary && to - from > 8192) {
    from = Math.max(0, m - 4096);
    to = Math.min(win.length, m + 4096);
  }
  const text = win.toString('latin1', from, to);
  let best = { needle: '', offset: 0 };
  if (binary) {
    // The printable run of 8+ characters that starts closest to the middle.
    for (const x of text.matchAll(/[A-Za-z0-9_ .@/-]{8,40}/g)) {
      if (best.needle === '' || Math.abs(from + x.index - m) < Math.abs(best.offset - mid))
        best = { needle: x[0], offset: base + from + x.index };
    }
    return best;
  }
  for (const x of text.matchAll(/[A-Za-z0-9_.@/-]{6,40}/g)) {
    if (x[0].length > best.needle.length) best = { needle: x[0], offset: base + from + x.index };
  }
  return best;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The real tools the corpus is made with: a missing one would make an empty row, not a figure. */
const TOOLS = ['npm', 'apt-get', 'git', 'find', 'jq'];

async function main(): Promise<void> {
  const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing.length > 0) {
    console.error(
      `economy bench: needs ${missing.join(', ')} on PATH to make its corpus (e.g. sudo apt-get install -y ${missing.join(' ')})`,
    );
    process.exit(1);
  }
  const { dir, cleanup } = scratchDir('economy');
  const rows: string[][] = [];
  const ours: number[] = [];
  const baseTotals: number[] = [];
  try {
    const store = await RunStore.open({
      logsDir: path.join(dir, 'logs'),
      tenant: 'bench',
      blobs: await FsBlobStore.open(path.join(dir, 'blobs')),
    });
    const run = await store.startRun();
    if (process.env.BE_ECONOMY === 'failing') {
      await failing(store, run, dir);
      return;
    }
    // The baseline in the same run: the same commands, first views without error lines.
    const base = await RunStore.open({
      logsDir: path.join(dir, 'base-logs'),
      tenant: 'bench',
      blobs: await FsBlobStore.open(path.join(dir, 'base-blobs')),
      errorLines: false,
    });
    const baseRun = await base.startRun();
    for (const [name, command] of CORPUS) {
      const baseFirst = Buffer.byteLength((await baseRun.runCommand(command, { cwd: ROOT })).modelText);
      const out = await run.runCommand(command, { cwd: ROOT });
      const stdout = out.record.attachments.find((a) => a.name === 'stdout')!;
      const src = await store.openHandle(stdout.handle);
      const mid = Math.floor(src.byteCount / 2);
      // Binary (a .wasm): printable runs are sparse, so the whole output is the window.
      const span = src.binary ? src.byteCount : 65536;
      const base = Math.max(0, mid - span);
      const win = Buffer.from(await src.readRange(base, Math.min(src.byteCount, mid + span)));
      const { needle, offset } = needleOf(win, base, mid, src.binary);
      const first = Buffer.byteLength(out.modelText);
      const fitted = await readFitted(
        store,
        { handle: stdout.handle, pattern: escape(needle), limit: 1 },
        4096,
        () => undefined,
      );
      let reach = Buffer.byteLength(fitted);
      if (fitted.startsWith('error:')) {
        console.log(`${name}: ${fitted}`);
        rows.push([name, String(src.byteCount), needle, String(first), fitted, '', '', '', '', '']);
        continue;
      }
      const reply = JSON.parse(fitted) as { content: string; matches: { byte_offset: number }[] };
      let calls = 1;
      if (!reply.content.includes(needle)) {
        const at = reply.matches[0]!.byte_offset;
        reach += Buffer.byteLength(
          await readFitted(
            store,
            { handle: stdout.handle, bytes: { start: at, end: at + needle.length } },
            4096,
            () => undefined,
          ),
        );
        calls = 2;
      }
      const lost = stdout.observedBytes - stdout.sizeBytes;
      const size = stdout.sizeBytes;
      const inHeadTail = offset + needle.length <= 5120 || offset >= size - 5120;
      const inHead2k = offset + needle.length <= 2048;
      ours.push(first + reach);
      baseTotals.push(baseFirst + reach);
      rows.push([
        name,
        String(size),
        needle.length > 24 ? `${needle.slice(0, 24)}…` : needle,
        `${first} (${baseFirst})`,
        `${reach} / ${calls}`,
        `${first + reach} (${baseFirst + reach})`,
        String(lost),
        `${Math.min(size, 10240)} / ${inHeadTail ? 'shown' : 'not reachable'} / ${Math.max(0, size - 10240)}`,
        `~100 / needs another tool / 0`,
        `${Math.min(size, 2048)} / ${inHead2k ? 'shown' : 'not reachable'} / ${Math.max(0, size - 2048)}`,
      ]);
    }
    await failing(store, run, dir);
  } finally {
    cleanup();
  }
  console.log(
    '| output | bytes | needle | our first view (B) (without error lines, same run) | our bytes / calls to the needle | our total (B) (without error lines) | our bytes lost | head+tail 10 KB (computed): view / needle / lost | pointer, no preview (computed) | 2 KB head (computed): view / needle / lost |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(
    `median of our totals (first view + reaching the needle): ${median(ours).toFixed(0)} B (without error lines, same run: ${median(baseTotals).toFixed(0)} B)`,
  );
}

/** The failing corpus (see the module comment): one table and the three targets' figures. */
async function failing(store: RunStoreApi, run: RunApi, dir: string): Promise<void> {
  const rows: string[] = [];
  const views: number[] = [];
  let reached = 0;
  let before = 0;
  let lost = 0;
  for (const c of FAILING) {
    const d = path.join(dir, `case-${views.length}`);
    mkdirSync(d, { recursive: true });
    c.setup(d);
    const out = await run.runCommand(`(${c.command}) 2>&1`, { cwd: d });
    const stdout = out.record.attachments.find((a) => a.name === 'stdout')!;
    const exit = JSON.parse(out.record.attachments.find((a) => a.name === 'value')!.inline!) as { code: number | null };
    const pattern = ERROR_RULES.find((r) => r.id === c.rule)!.pattern;
    // The first line the rule names, found by the reader (every byte searched), not by the scan.
    const r = await store.readToolOutput({ handle: stdout.handle, pattern, limit: 1 });
    const m = r.matches?.[0];
    const first = Buffer.byteLength(out.modelText);
    views.push(first);
    lost += stdout.observedBytes - stdout.sizeBytes;
    if (!m) {
      rows.push(`| ${c.name} | ${stdout.sizeBytes} | exit ${exit.code} | ${c.rule}: no line | ${first} | no | | |`);
      continue;
    }
    const text = r.content.slice(r.content.indexOf(':') + 1);
    const shown = out.modelText
      .split('\n')
      .some((l) => l.startsWith(`line ${m.line_number}, byte `) && l.endsWith(`: ${text}`));
    const start = m.byte_offset - (m.column - 1);
    const end = start + Buffer.byteLength(text);
    const inOld = end <= 448 || start >= stdout.sizeBytes - 448;
    if (shown) reached++;
    if (inOld) before++;
    const size =
      stdout.sizeBytes >= 20_000 && stdout.sizeBytes <= 10_000_000
        ? String(stdout.sizeBytes)
        : `${stdout.sizeBytes} (outside 20 KB–10 MB)`;
    rows.push(
      `| ${c.name} | ${size} | exit ${exit.code} | ${c.rule}: line ${m.line_number} (${Buffer.byteLength(text)} B) | ${first} | ${shown ? 'yes' : 'no'} | ${inOld ? 'yes' : 'no'} | ${stdout.observedBytes - stdout.sizeBytes} |`,
    );
  }
  console.log('\nFailing outputs (issue 22): the first error line in the first view');
  console.log(
    '| output | bytes | exit | first error line (rule: line) | first view (B) | whole, with its line number, in the first view | in the previous head+tail first view (computed) | bytes lost |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  console.log(
    `first error line in the first view: ${reached} of ${FAILING.length} (before: ${before}); median first view ${median(views).toFixed(0)} B; bytes lost ${lost}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
