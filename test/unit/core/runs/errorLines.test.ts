/**
 * Error-first observations through the run store (docs/contracts.md §2.13): the first view's
 * exact bytes, the record's `errorLines`, the paging call answered by the reader with the same
 * count, the previews' shared budget, and what does not change (small outputs, success
 * without clear errors, the setting off, binary content).
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { makePreview } from '../../../../src/core/runs/recording/decisions.js';
import {
  ErrorScan,
  KEEP_CHARS,
  KEEP_LINES,
  selectErrorLines,
} from '../../../../src/core/runs/errorLines/errorLines.js';
import { ERROR_RULES } from '../../../../src/core/runs/errorLines/errorRules.js';
import { errorBlock } from '../../../../src/core/runs/recording/observation.js';
import { checkRecord } from '../../../../src/core/runs/log/runLog.js';
import { openStore, scratch } from './helpers.js';

const TS =
  "src/ledger/reconcile.ts(412,17): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Cents'.";

/** A build log of `n` lines with TS errors on the given 0-based lines. */
function buildLog(n: number, errorsAt: readonly number[]): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(
      errorsAt.includes(i)
        ? TS.replace('412', String(i))
        : `[${String(i).padStart(6, '0')}] compiling module-${i % 97}.ts ok`,
    );
  return lines.join('\n') + '\n';
}

describe('error-first observations (contracts §2.13)', () => {
  let dir = '';
  let cleanup = (): void => undefined;
  beforeEach(() => ({ dir, cleanup } = scratch('errfirst')));
  afterEach(() => cleanup());
  const file = (name: string, text: string | Buffer): string => {
    writeFileSync(path.join(dir, name), text);
    return name;
  };

  it('a failed command: its error lines first, exact bytes and positions, the call that pages on, previews sharing the budget', async () => {
    const text = buildLog(20_000, [7_000, 9_000, 15_000]);
    file('log.txt', text);
    const store = await openStore(dir, { blobs: await FsBlobStore.open(path.join(dir, 'blobs')) });
    const run = await store.startRun();
    const out = await run.runCommand('cat log.txt; exit 1', { cwd: dir });
    const stdout = out.record.attachments[0]!;
    const lines = text.split('\n');
    // The rule matches from the line's start (the path before `error TS` is part of it).
    const at = (i: number): number => Buffer.byteLength(lines.slice(0, i).join('\n')) + 1;
    const e = stdout.errorLines!;
    assert.equal(e.total, 3);
    assert.equal(e.pattern, '^(?:[^\\s(]+(?:\\(\\d+,\\d+\\): |:\\d+:\\d+ - ))?error TS\\d+: ');
    // 448 bytes of the 896-byte budget hold three lines of 122 bytes.
    assert.deepEqual(
      e.lines,
      [7_000, 9_000, 15_000].map((i) => ({ lineNumber: i + 1, byteOffset: at(i), text: lines[i] })),
    );
    const used = e.lines.reduce((n, l) => n + Buffer.byteLength(l.text), 0);
    const head = Buffer.from(text).subarray(0, 896);
    const tail = Buffer.from(text).subarray(-896);
    const preview = makePreview(head, tail, stdout.sizeBytes, 896 - used, false);
    assert.equal(stdout.preview, preview.text);
    assert.deepEqual(stdout.previewRange, preview.range);
    assert.equal(
      out.modelText,
      [
        '$ cat log.txt; exit 1',
        'exit code 1',
        `stdout: ${stdout.sizeBytes} bytes, 20000 lines, handle ${stdout.handle}. Error lines (3 of 3):`,
        ...e.lines.map((l) => `line ${l.lineNumber}, byte ${l.byteOffset}: ${l.text}`),
        'Preview:',
        preview.text,
        'stderr: empty',
        `Read more: read_tool_output {"handle":"${stdout.handle}"} with "pattern" (regex), "offset"/"limit" or "bytes"`,
      ].join('\n'),
    );
    // The reader with the pattern finds exactly these lines, at these positions.
    const r = await store.readToolOutput({ handle: stdout.handle, pattern: e.pattern });
    assert.equal(r.total_matches, 3);
    assert.deepEqual(
      r.matches!.map((m) => [m.line_number, m.byte_offset]),
      e.lines.map((l) => [l.lineNumber, l.byteOffset]),
    );
  });

  it('more lines than fit: the count in all and the one read_tool_output call that pages through the rest', async () => {
    const at = Array.from({ length: 40 }, (_, i) => 1000 + i * 250);
    file('log.txt', buildLog(12_000, at));
    const store = await openStore(dir, { blobs: await FsBlobStore.open(path.join(dir, 'blobs')) });
    const run = await store.startRun();
    const out = await run.runCommand('cat log.txt; exit 2', { cwd: dir });
    const stdout = out.record.attachments[0]!;
    const e = stdout.errorLines!;
    assert.equal(e.total, 40);
    assert.equal(e.lines.length, 3);
    const more = `More: read_tool_output ${JSON.stringify({ handle: stdout.handle, pattern: e.pattern, offset: 3 })}`;
    assert.ok(out.modelText.includes(`. Error lines (3 of 40):\n`), out.modelText);
    assert.ok(out.modelText.includes(`\n${more}\nPreview:\n`), out.modelText);
    // That call, sent back as written, answers the other 37 in order.
    const call = JSON.parse(more.slice('More: read_tool_output '.length)) as {
      handle: string;
      pattern: string;
      offset: number;
    };
    const r = await store.readToolOutput(call);
    assert.equal(r.total_matches, 40);
    assert.deepEqual(
      r.matches!.map((m) => m.line_number),
      at.slice(3).map((i) => i + 1),
    );
  });

  it('unchanged: a small output shown whole, a success without clear errors, the setting off, binary content', async () => {
    file('small.txt', `${TS}\n`);
    file('fails.txt', buildLog(5_000, []).replace('[002000] compiling module-60.ts ok', '[002000] the upload failed'));
    file('log.txt', buildLog(5_000, [2_500]));
    file('bin.dat', Buffer.concat([Buffer.from(buildLog(3_000, [1_500])), Buffer.from([0xff, 0xfe, 0x00])]));
    const store = await openStore(dir, { blobs: await FsBlobStore.open(path.join(dir, 'blobs')) });
    const run = await store.startRun();
    const small = await run.runCommand('cat small.txt; exit 1', { cwd: dir });
    assert.equal(
      small.modelText,
      `$ cat small.txt; exit 1\nexit code 1\nstdout: ${Buffer.byteLength(TS) + 1} bytes, 1 line:\n${TS}\n\nstderr: empty`,
    );
    // "failed" is a fallback word: it counts only when the command failed.
    const ok = await run.runCommand('cat fails.txt', { cwd: dir });
    assert.equal(ok.record.attachments[0]!.errorLines, undefined);
    assert.ok(ok.modelText.includes('. Preview:\n'));
    const bad = await run.runCommand('cat fails.txt; exit 1', { cwd: dir });
    assert.deepEqual(
      bad.record.attachments[0]!.errorLines!.lines.map((l) => [l.lineNumber, l.text]),
      [[2001, '[002000] the upload failed']],
    );
    assert.equal(bad.record.attachments[0]!.errorLines!.pattern.startsWith('\\b(?:[Ee]rror'), true);
    // A clear error line counts on a successful command too.
    const clear = await run.runCommand('cat log.txt', { cwd: dir });
    assert.equal(clear.record.attachments[0]!.errorLines!.lines[0]!.lineNumber, 2_501);
    const bin = await run.runCommand('cat bin.dat; exit 1', { cwd: dir });
    assert.equal(bin.record.attachments[0]!.binary, true);
    assert.equal(bin.record.attachments[0]!.errorLines, undefined);
    const off = await openStore(path.join(dir, 'off'), {
      blobs: await FsBlobStore.open(path.join(dir, 'off-blobs')),
      errorLines: false,
    });
    const offRun = await off.startRun();
    const plain = await offRun.runCommand('cat log.txt; exit 1', { cwd: dir });
    assert.equal(plain.record.attachments[0]!.errorLines, undefined);
    assert.equal(
      plain.record.attachments[0]!.preview,
      makePreview(
        Buffer.from(buildLog(5_000, [2_500])).subarray(0, 896),
        Buffer.from(buildLog(5_000, [2_500])).subarray(-896),
        plain.record.attachments[0]!.sizeBytes,
        896,
        false,
      ).text,
    );
  });

  it('a tool result reported as an error (evidence_invokeTool, recordResult) shows its failure lines before its preview', async () => {
    const store = await openStore(dir, { blobs: await FsBlobStore.open(path.join(dir, 'blobs')) });
    const run = await store.startRun();
    const text = buildLog(3_000, [1_200]);
    const out = await run.recordResult('some_tool', {}, text, { isError: true });
    const e = out.record.errorLines!;
    assert.equal(e.lines[0]!.lineNumber, 1_201);
    assert.ok(
      out.modelText.startsWith(
        `Tool result elided: ${Buffer.byteLength(text)} bytes (3000 lines, sha256 ${out.record.sha256}), handle ${out.handle}.\nRead more: read_tool_output {"handle":"${out.handle}"} with "pattern" (regex), "offset"/"limit" or "bytes"\nError lines (1 of 1):\nline 1201, byte ${e.lines[0]!.byteOffset}: ${e.lines[0]!.text}\nPreview:\n`,
      ),
      out.modelText,
    );
  });

  it('a long line is kept as a window around its match and narrowed to the budget; the scan holds at most one line', () => {
    const long = `${'x'.repeat(100_000)} error: the disk is full ${'y'.repeat(100_000)}`;
    const out = Buffer.from(`first line\n${long}\nlast\n`);
    const s = new ErrorScan();
    for (let i = 0; i < out.length; i += 4096) s.push(out.subarray(i, i + 4096));
    const r = s.end();
    // Tested on its first 64 KiB only: the match at 100,000 is past it (documented bound).
    assert.equal(r.fallback.count, 0);
    const near = `${'x'.repeat(30_000)} error: the disk is full ${'y'.repeat(30_000)}`;
    const s2 = new ErrorScan();
    s2.push(Buffer.from(`first line\n${near}\n`));
    const r2 = s2.end();
    const kept = r2.fallback.lines[0]!;
    assert.equal(kept.text.length, KEEP_CHARS);
    assert.equal(kept.text.indexOf('error'), Math.floor(KEEP_CHARS / 3));
    const sel = selectErrorLines(r2, true, 448)!;
    const shown = sel.lines.lines[0]!;
    assert.ok(Buffer.byteLength(shown.text) <= 448, `${Buffer.byteLength(shown.text)}`);
    assert.ok(
      shown.text.startsWith('…x') &&
        shown.text.endsWith('y…[line cut]') &&
        shown.text.includes(' error: the disk is full '),
      shown.text,
    );
    assert.equal(shown.byteOffset, 11 + 30_001);
    const w = shown.window!;
    assert.equal(
      Buffer.from(`first line\n${near}\n`).subarray(w.start, w.end).toString(),
      shown.text.slice(1, -'…[line cut]'.length),
    );
  });
});

describe('error-line scan limits and record checks (contracts §2.13)', () => {
  it('stops at its byte limit on a line boundary and says which bytes it covered', () => {
    const text = Buffer.from('ok\nerror: one\nok\nerror: two\nerror: three\n');
    // A limit inside the fourth line: lines 1–3 are scanned (14 + 3 = 17 bytes), "error: two" is not.
    const s = new ErrorScan(20);
    for (let i = 0; i < text.length; i += 5) s.push(text.subarray(i, i + 5));
    const r = s.end();
    assert.equal(r.scannedBytes, 17);
    assert.equal(r.clear.count, 1);
    const sel = selectErrorLines(r, true, 448)!;
    assert.equal(sel.lines.scannedBytes, 17);
    assert.equal(
      errorBlock(sel.lines, 'out_x-1_stdout'),
      'Error lines (1 of 1 in the first 17 bytes):\nline 2, byte 3: error: one',
    );
  });

  it('a run log line whose errorLines is malformed is invalid (skipped on read)', () => {
    const base = {
      type: 'call_finished',
      runId: 'run-1',
      callId: 'a-1',
      tool: 't',
      arguments: {},
      startedAt: '2026-12-02T00:00:00Z',
      finishedAt: '2026-12-02T00:00:01Z',
      status: 'ok',
      resultBytes: 5000,
      elided: true,
      resultHandle: 'res_a-1',
      contentType: 'text/plain; charset=utf-8',
      sha256: 'a'.repeat(64),
      stored: 'blob',
      manifestDigest: 'b'.repeat(64),
      preview: 'x',
      lineCount: 1,
      binary: false,
      readable: true,
      attachments: [],
    };
    const good = { total: 2, pattern: 'error', lines: [{ lineNumber: 3, byteOffset: 40, text: 'error: x' }] };
    assert.equal(checkRecord({ ...base, errorLines: good }, 'run-1'), undefined);
    for (const bad of [
      { ...good, total: 0 },
      { ...good, lines: [{ lineNumber: 0, byteOffset: 1, text: 'x' }] },
      { ...good, pattern: 3 },
      { ...good, scannedBytes: -1 },
      'x',
    ]) {
      assert.notEqual(checkRecord({ ...base, errorLines: bad }, 'run-1'), undefined, JSON.stringify(bad));
    }
  });
});

describe('error-line scan against the rules tested line by line (contracts §2.13)', () => {
  it("random lines in random pieces: the counts equal the lines each kind's rules match, and the kept lines are the first of them", () => {
    const parts = [
      '',
      ' ',
      '  ',
      'x',
      '[0001] ',
      'src/a.ts(3,5): ',
      'a.c:1:2: ',
      'npm ',
      'make: *** ',
      'E   ',
      '{"level":"error"}',
      '"severity":"ERROR"',
      'error TS2322: ',
      'error: ',
      'error[E0308]: ',
      'fatal: ',
      'FAILED ',
      'FAIL: ',
      '● ',
      '✖ ',
      '× ',
      'not ok 3 ',
      'panic: ',
      'Traceback (most recent call last):',
      "thread 'main' panicked at ",
      'TypeError: ',
      'Caused by: ',
      '--- FAIL: ',
      '3 failed',
      'detail',
      'email',
      'mail ',
      'é',
      '日本',
      'CONFLICT (',
      'not found',
      ': No such file or directory',
    ];
    let seed = 22;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 20; round++) {
      const lines = Array.from({ length: 400 }, () =>
        Array.from({ length: rnd(4) }, () => parts[rnd(parts.length)]).join(''),
      );
      const bytes = Buffer.from(lines.join('\n') + (rnd(2) ? '\n' : ''));
      const s = new ErrorScan();
      for (let i = 0; i < bytes.length;) {
        const n = 1 + rnd(300);
        s.push(bytes.subarray(i, i + n));
        i += n;
      }
      const r = s.end();
      for (const kind of ['clear', 'failure'] as const) {
        const rules = ERROR_RULES.filter((x) => x.kind === 'clear' || (kind === 'failure' && x.kind === 'failure')).map(
          (x) => new RegExp(x.pattern),
        );
        const want = lines.map((l, i) => ({ l, i })).filter(({ l }) => rules.some((re) => re.test(l)));
        assert.equal(r[kind].count, want.length, `${kind}, round ${round}`);
        assert.deepEqual(
          r[kind].lines.map((l) => l.lineNumber),
          want.slice(0, KEEP_LINES).map(({ i }) => i + 1),
          `${kind}, round ${round}`,
        );
        assert.deepEqual(
          r[kind].lines.map((l) => l.text),
          want.slice(0, KEEP_LINES).map(({ l }) => l),
        );
      }
    }
  });
});

describe('error lines of an output written through a terminal (contracts §2.13)', () => {
  it('a rule that ends at the end of the line also matches a line ending in \\r\\n', () => {
    const s = new ErrorScan();
    s.push(Buffer.from('copying\r\nsh: 1: no_such_tool: not found\r\ntest adds ... FAILED\r\n'));
    const r = s.end();
    assert.deepEqual(
      r.failure.lines.map((l) => l.lineNumber),
      [2, 3],
    );
    assert.equal(r.failure.lines[0]!.text, 'sh: 1: no_such_tool: not found\r');
  });
});
