import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { BlobStore } from '../../../../src/core/blobs/blobStore.js';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { S3BlobStore } from '../../../../src/core/blobs/s3BlobStore.js';
import { manifestKeyOf } from '../../../../src/core/blobs/verifiedBlobs.js';
import { encodeManifest, manifestOf } from '../../../../src/core/integrity/integrity.js';
import {
  PATTERN_TIMEOUT_MESSAGE,
  requiredLiteral,
  SEARCH_CANCELLED_MESSAGE,
} from '../../../../src/core/runs/search/patternSearch.js';
import { readFitted } from '../../../../src/core/tools/readToolOutput.js';
import { LINE_CUT_MARKER } from '../../../../src/core/runs/reading/reader.js';
import type { RunStore } from '../../../../src/core/runs/store/runStore.js';
import type { ReadToolOutputResult, RunStoreOptions } from '../../../../src/core/runs/types.js';
import { startS3Server, type S3Server } from '../blobs/s3Fixture.js';
import { CountingStore, numberedLines, openStore, rejectsWith, scratch } from './helpers.js';

/** Records `text` elided (inline) and returns its handle. */
/**
 * Blobs for a store whose every elided result is a blob: in memory (the slot search) or
 * in a real folder (the file search, the worker reads the file by descriptor), docs/contracts.md §2.10.
 */
async function blobsOf(
  dir: string,
  backend: 'memory' | 'filesystem',
  name: string,
): Promise<Pick<RunStoreOptions, 'blobs' | 'offloadThresholdBytes'>> {
  const blobs = backend === 'memory' ? new MemoryBlobStore() : await FsBlobStore.open(path.join(dir, `blobs-${name}`));
  return { blobs, offloadThresholdBytes: 1 };
}

async function elided(store: RunStore, text: string | Uint8Array): Promise<string> {
  const run = await store.startRun();
  const out = await run.recordResult('t', {}, text);
  assert.ok(out.handle);
  return out.handle;
}

describe('read_tool_output (docs/contracts.md §2.5)', () => {
  let dir: string;
  let cleanup: () => void;
  let store: RunStore;
  beforeEach(async () => {
    ({ dir, cleanup } = scratch('reader'));
    store = await openStore(dir, {
      blobs: new MemoryBlobStore(),
      limits: { largeResultBytes: 16, previewBytes: 8 },
      offloadThresholdBytes: 1024,
    });
  });
  afterEach(() => cleanup());

  describe('argument validation', () => {
    let handle: string;
    beforeEach(async () => {
      handle = await elided(store, numberedLines(10));
    });
    const bad: [Record<string, unknown>, string, string][] = [
      [{ offset: -1 }, 'invalidArgument', 'offset must be an integer >= 0'],
      [{ offset: 1.5 }, 'invalidArgument', 'offset must be an integer >= 0'],
      [{ offset: '3' }, 'invalidArgument', 'offset must be an integer >= 0'],
      [{ limit: 0 }, 'invalidArgument', 'limit must be an integer from 1 to 1000'],
      [{ limit: 1001 }, 'invalidArgument', 'limit must be an integer from 1 to 1000'],
      [{ pattern: '' }, 'invalidArgument', 'pattern must be a string of 1 to 1024 characters'],
      [{ pattern: 'a'.repeat(1025) }, 'invalidArgument', 'pattern must be a string of 1 to 1024 characters'],
      [{ pattern: '(' }, 'invalidArgument', 'pattern is not a valid regular expression: Unterminated group'],
      [{ pattern: 'a**' }, 'invalidArgument', 'pattern is not a valid regular expression: Nothing to repeat'],
      [{ pattern: 'x', bytes: { start: 0, end: 1 } }, 'invalidArgument', 'bytes cannot be combined with pattern'],
      [{ bytes: [0, 1] }, 'invalidArgument', 'bytes must be an object { start, end }'],
      [{ bytes: { start: 0, end: 2 ** 53 } }, 'invalidArgument', 'bytes.start and bytes.end must be integers'],
      [{ bytes: { start: '0', end: 1 } }, 'invalidArgument', 'bytes.start and bytes.end must be integers'],
      [{ bytes: { start: 0, end: 8193 } }, 'invalidArgument', 'artifact range exceeds 8192 bytes'],
      [{ bytes: { start: 5, end: 5 } }, 'rangeOrder', 'artifact range must satisfy 0 <= start < end'],
      [{ bytes: { start: -1, end: 5 } }, 'rangeOrder', 'artifact range must satisfy 0 <= start < end'],
      [{ bytes: { start: 0, end: 8192 } }, 'exceedsStored', 'artifact range exceeds the stored byte count'],
    ];
    for (const [args, code, message] of bad) {
      it(`${JSON.stringify(args).slice(0, 60)} -> ${message}`, async () => {
        await rejectsWith(store.readToolOutput({ handle, ...args }), code, message);
      });
    }
    it('refuses non-object arguments', async () => {
      await rejectsWith(
        store.readToolOutput(null as unknown as { handle: string }),
        'invalidArgument',
        'read_tool_output arguments must be an object',
      );
    });
    it('accepts the edges: offset 0, limit 1 and 1000, a 1024-character pattern, an 8192-byte window', async () => {
      const big = await elided(store, 'z'.repeat(9000));
      assert.equal((await store.readToolOutput({ handle, limit: 1 })).content, 'line 0');
      assert.equal((await store.readToolOutput({ handle, limit: 1000 })).returned_lines, 10);
      assert.equal((await store.readToolOutput({ handle, pattern: 'l'.repeat(1024) })).total_matches, 0);
      assert.equal((await store.readToolOutput({ handle: big, bytes: { start: 0, end: 8192 } })).content.length, 8192);
    });
  });

  describe('lines mode', () => {
    it('defaults to offset 0, limit 200 and reports totals and truncation exactly', async () => {
      const handle = await elided(store, numberedLines(1000));
      const r = await store.readToolOutput({ handle });
      assert.deepEqual(
        { ...r, content: r.content.split('\n').length },
        {
          handle,
          binary: false,
          total_size_bytes: Buffer.byteLength(numberedLines(1000)),
          total_lines: 1000,
          offset: 0,
          limit: 200,
          pattern: null,
          total_matches: null,
          returned_lines: 200,
          truncated: true,
          content: 200,
          matches: null,
        },
      );
      assert.equal(r.content, numberedLines(200).slice(0, -1));
      const last = await store.readToolOutput({ handle, offset: 995, limit: 10 });
      assert.deepEqual(
        [last.returned_lines, last.truncated, last.content],
        [5, false, 'line 995\nline 996\nline 997\nline 998\nline 999'],
      );
    });

    it('an offset past the end is an empty window with the real total_lines', async () => {
      const handle = await elided(store, numberedLines(30));
      const r = await store.readToolOutput({ handle, offset: 30 });
      assert.deepEqual([r.total_lines, r.returned_lines, r.content, r.truncated], [30, 0, '', false]);
      assert.equal((await store.readToolOutput({ handle, offset: 1e9 })).total_lines, 30);
    });

    it('counts a last line without a newline, and empty lines', async () => {
      const handle = await elided(store, 'a\n\n\nlast line no newline');
      const r = await store.readToolOutput({ handle });
      assert.deepEqual([r.total_lines, r.content], [4, 'a\n\n\nlast line no newline']);
      assert.equal((await store.readToolOutput({ handle, offset: 1, limit: 2 })).content, '\n');
    });

    it('caps content at 10,000 characters, whole lines only, and says it is truncated', async () => {
      const line = 'x'.repeat(99);
      const handle = await elided(store, `${line}\n`.repeat(300));
      const r = await store.readToolOutput({ handle, limit: 300 });
      // 99 lines of 99 chars + 98 separators = 9,899; a 100th line would make 9,999 + 1 > ... 100 lines = 9,999 <= 10,000.
      assert.equal(r.returned_lines, 100);
      assert.equal(r.content.length, 9_999);
      assert.equal(r.truncated, true);
      const r2 = await store.readToolOutput({ handle, limit: 300, offset: 250 });
      assert.deepEqual([r2.returned_lines, r2.truncated], [50, false]);
    });

    it('cuts a line longer than 2,000 characters with a marker, never inside a character', async () => {
      const handle = await elided(store, `${'a'.repeat(5000)}\n${'€'.repeat(3000)}\n${'😀'.repeat(1500)}\nshort`);
      const r = await store.readToolOutput({ handle });
      const [a, e, smile, short] = r.content.split('\n');
      assert.equal(a, 'a'.repeat(2000 - LINE_CUT_MARKER.length) + LINE_CUT_MARKER);
      assert.equal(e, '€'.repeat(2000 - LINE_CUT_MARKER.length) + LINE_CUT_MARKER);
      assert.equal(smile!.length <= 2000 && smile!.endsWith(LINE_CUT_MARKER), true);
      assert.equal(smile, '😀'.repeat(Math.floor((2000 - LINE_CUT_MARKER.length) / 2)) + LINE_CUT_MARKER);
      assert.equal(short, 'short');
      assert.equal(r.truncated, true);
      assert.equal(LINE_CUT_MARKER, '…[line cut]');
    });

    it('reports binary content (invalid UTF-8) with its size: no lines, bytes searched as grep -a, byte windows as a hex dump', async () => {
      const bytes = Uint8Array.from([0x61, 0x0a, 0xff, 0xfe, 0x0a, 0x62]);
      const handle = await elided(store, bytes);
      const lines = await store.readToolOutput({ handle });
      assert.deepEqual(
        { ...lines },
        {
          handle,
          binary: true,
          total_size_bytes: 6,
          total_lines: 3,
          offset: 0,
          limit: 200,
          pattern: null,
          total_matches: null,
          returned_lines: 0,
          truncated: false,
          content: '',
          matches: null,
        },
      );
      const pat = await store.readToolOutput({ handle, pattern: 'a|b' });
      assert.deepEqual(
        [pat.binary, pat.total_matches, pat.content, pat.matches],
        [
          true,
          2,
          '1:a\n3:b',
          [
            { line_number: 1, byte_offset: 0, column: 1 },
            { line_number: 3, byte_offset: 5, column: 1 },
          ],
        ],
      );
      // A byte is one character: \xff matches the raw byte, shown escaped.
      const raw = await store.readToolOutput({ handle, pattern: '\\xfe' });
      assert.deepEqual([raw.content, raw.matches], ['2:\\xff\\xfe', [{ line_number: 2, byte_offset: 3, column: 2 }]]);
      const win = await store.readToolOutput({ handle, bytes: { start: 0, end: 2 } });
      assert.deepEqual(
        [win.binary, win.content, win.truncated, win.hex_dump],
        [true, '00000000  61 0a                                             |a.|', true, { start: 0, end: 2 }],
      );
    });

    it('finds a string inside a real .wasm with its byte offset, and shows the bytes there as a hex dump', async () => {
      const wasm = readFileSync(
        path.join(path.dirname(require.resolve('playwright-core/package.json')), 'lib', 'webp_codec.wasm'),
      );
      const blobs = await FsBlobStore.open(path.join(dir, 'blobs-wasm'));
      const fsStore = await openStore(dir, { blobs, limits: { largeResultBytes: 16, previewBytes: 8 } });
      const handle = await elided(fsStore, wasm);
      const needle = 'cannot parse picture header';
      const at = wasm.indexOf(needle);
      assert.ok(at > 0);
      const line = wasm.subarray(0, at).filter((b) => b === 10).length + 1;
      const r = await fsStore.readToolOutput({ handle, pattern: needle });
      assert.equal(r.binary, true);
      assert.equal(r.total_matches, 1);
      assert.equal(r.matches![0]!.byte_offset, at);
      assert.equal(r.matches![0]!.line_number, line);
      assert.ok(r.content.includes(needle), r.content);
      const shown = r.content.replace(/…/g, '').replace(LINE_CUT_MARKER, '');
      assert.ok(
        [...shown].every((c) => c >= ' ' && c < '\x7f'),
        'escaped context',
      );
      assert.ok(JSON.stringify(r).length < 8192);
      const win = await fsStore.readToolOutput({ handle, bytes: { start: at, end: at + 32 } });
      assert.equal(
        win.content.split('\n')[0],
        `${at.toString(16).padStart(8, '0')}  ${[...wasm.subarray(at, at + 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}  ${[...wasm.subarray(at + 8, at + 16)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}  |cannot parse pic|`,
      );
      // The largest window the reader allows still fits the 8 KiB model bound as a dump.
      const big = await fsStore.readToolOutput({ handle, bytes: { start: 0, end: 8192 } });
      assert.deepEqual([big.hex_dump, big.truncated, big.returned_lines], [{ start: 0, end: 1024 }, true, 64]);
      assert.ok(Buffer.byteLength(JSON.stringify(big)) < 8192);
    });

    it('finds a needle 3 MB into a 5 MB line, with its byte offset, column and a context window', async function () {
      this.timeout(60_000);
      const blobs = await FsBlobStore.open(path.join(dir, 'blobs-long'));
      const fsStore = await openStore(dir, { blobs, limits: { largeResultBytes: 16, previewBytes: 8 } });
      const head = 'first line\n';
      const lineLen = 5_000_000;
      const line = Buffer.alloc(lineLen, 'x');
      const needleAt = 3_000_000;
      line.write('NEEDLE-42', needleAt);
      const bytes = Buffer.concat([Buffer.from(head), line, Buffer.from('\nlast line\n')]);
      const handle = await elided(fsStore, bytes);
      const r = await fsStore.readToolOutput({ handle, pattern: 'NEEDLE-\\d+' });
      assert.equal(r.total_matches, 1);
      const m = r.matches![0]!;
      assert.deepEqual([m.line_number, m.byte_offset, m.column], [2, head.length + needleAt, needleAt + 1]);
      const w = m.window!;
      assert.ok(w.start < m.byte_offset && w.end > m.byte_offset + 9, JSON.stringify(w));
      assert.equal(r.content, `2:…${bytes.toString('latin1', w.start, w.end)}${LINE_CUT_MARKER}`);
      assert.ok(r.content.length <= 2 + 2000);
      // A pattern with no literal and one that can match a newline take the other paths; same answer.
      for (const pattern of ['N[E]EDLE-\\d', 'NEEDLE-4\\s?2']) {
        const o = await fsStore.readToolOutput({ handle, pattern });
        assert.deepEqual([o.total_matches, o.matches![0]!.byte_offset], [1, head.length + needleAt], pattern);
      }
      // The byte window the match names reads back the needle.
      const back = await fsStore.readToolOutput({ handle, bytes: { start: m.byte_offset, end: m.byte_offset + 9 } });
      assert.equal(back.content, 'NEEDLE-42');
    });
  });

  describe('pattern mode', () => {
    it('returns matching lines with 1-based numbers, total_matches over the whole output, pages with offset/limit', async () => {
      const text = numberedLines(1000, (i) => (i % 100 === 7 ? ' ERROR disk full' : ' ok'));
      const handle = await elided(store, text);
      const r = await store.readToolOutput({ handle, pattern: 'ERROR \\w+', limit: 3 });
      assert.deepEqual(
        { ...r },
        {
          handle,
          binary: false,
          total_size_bytes: r.total_size_bytes,
          total_lines: 1000,
          offset: 0,
          limit: 3,
          pattern: 'ERROR \\w+',
          total_matches: 10,
          returned_lines: 3,
          truncated: true,
          content: '8:line 7 ERROR disk full\n108:line 107 ERROR disk full\n208:line 207 ERROR disk full',
          matches: [8, 108, 208].map((n) => ({
            line_number: n,
            byte_offset: text.indexOf(`line ${n - 1} ERROR`) + `line ${n - 1} `.length,
            column: `line ${n - 1} `.length + 1,
          })),
        },
      );
      const page = await store.readToolOutput({ handle, pattern: 'ERROR', offset: 8, limit: 5 });
      assert.deepEqual(
        [page.total_matches, page.returned_lines, page.truncated, page.matches!.map((m) => m.line_number)],
        [10, 2, false, [808, 908]],
      );
      const past = await store.readToolOutput({ handle, pattern: 'ERROR', offset: 10 });
      assert.deepEqual([past.total_matches, past.returned_lines, past.content], [10, 0, '']);
      const none = await store.readToolOutput({ handle, pattern: 'WARNING' });
      assert.deepEqual([none.total_matches, none.returned_lines, none.truncated, none.matches], [0, 0, false, []]);
    });

    it('matches per line (anchors at line ends), including a last line without a newline', async () => {
      const handle = await elided(store, 'alpha\nbeta\n\ngamma end');
      const r = await store.readToolOutput({ handle, pattern: '^(beta|gamma end)$' });
      assert.deepEqual([r.total_matches, r.content], [2, '2:beta\n4:gamma end']);
      assert.equal((await store.readToolOutput({ handle, pattern: '^$' })).content, '3:');
      assert.equal((await store.readToolOutput({ handle, pattern: 'a\\nb' })).total_matches, 0);
    });

    it('agrees with a naive per-line test for any lines and tricky patterns (fast path and lookarounds)', async function () {
      this.timeout(60_000);
      const patterns = [
        'a',
        '^a',
        'a$',
        '^$',
        'b+',
        '\\bab\\b',
        '[^a]*b',
        'a\\s*$',
        'x*',
        '^',
        '$',
        '[\\s\\S]a',
        '\\n',
        'a|^b',
        '(?=a)',
        'a(?!b)',
        '(?<=b)a',
        'a(?![\\s\\S])',
        '(?<![\\s\\S])b',
        'b\\W',
        'a b',
        'b a+',
        ' a?b',
        'ab*a',
        '(a|b) a',
        'a{2}',
        'b\\.?',
      ];
      // One worker per search, so few runs of many lines each (every pattern sees ~a hundred line shapes).
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.stringMatching(/^[ab ]{0,6}$/), { minLength: 1, maxLength: 150 }),
          fc.boolean(),
          async (lines, trailing) => {
            const text = lines.join('\n') + (trailing ? '\n' : '');
            const handle = await elided(store, text.length > 16 ? text : text.padEnd(17, ' '));
            const stored = text.length > 16 ? text : text.padEnd(17, ' ');
            const all = stored.split('\n');
            if (stored.endsWith('\n')) all.pop();
            for (const pattern of patterns) {
              const re = new RegExp(pattern);
              const expected = all.flatMap((l, i) => (re.test(l) ? [i + 1] : []));
              const r = await store.readToolOutput({ handle, pattern, limit: 1000 });
              assert.deepEqual(
                r.matches!.map((m) => m.line_number),
                expected,
                `${pattern} on ${JSON.stringify(stored)}`,
              );
              assert.equal(r.total_matches, expected.length);
            }
          },
        ),
        { numRuns: 2 },
      );
    });

    it('matches lines that straddle the ~1 MiB pieces streamed to the worker exactly like a naive scan', async function () {
      this.timeout(30_000);
      const lines: string[] = [];
      for (let i = 0, n = 0; n < 2_600_000; i++) {
        lines.push(`${i % 7 === 0 ? 'ERR' : 'ok'} ${'x'.repeat((i * 7919) % 3000)} ${i % 11 === 0 ? 'END' : ''}`);
        n += lines[i]!.length + 1;
      }
      const text = lines.join('\n');
      const handle = await elided(store, text);
      for (const pattern of ['END$', '^ERR', 'ERR.*END']) {
        const re = new RegExp(pattern);
        const expected = lines.flatMap((l, i) => (re.test(l) ? [i + 1] : []));
        const r = await store.readToolOutput({ handle, pattern, offset: expected.length - 3, limit: 3 });
        assert.equal(r.total_matches, expected.length, pattern);
        assert.deepEqual(
          r.matches!.map((m) => m.line_number),
          expected.slice(-3),
          pattern,
        );
      }
    });

    it('prefilters on a literal every match must contain, and only when one can be proven', () => {
      const cases: [string, string | null][] = [
        ['ERROR', 'ERROR'],
        ['ERROR \\w+', 'ERROR '],
        ['a|b', null],
        ['(a|b)cd', 'cd'],
        ['ab*c', 'a'],
        ['abc+d', 'abc'],
        ['x{0,3}yz', 'yz'],
        ['x{2}yz', 'yz'],
        ['[abc]def', 'def'],
        ['.*foo.*', 'foo'],
        ['\\.log$', '.log'],
        ['a\\db', 'a'],
        ['(?=x)', null],
        ['é+', 'é'],
        ['😀?', null],
        ['😀', '😀'],
        ['a\nb', null],
        ['a{b', 'a{b'],
        ['^$', null],
        ['ERR(OR)?', 'ERR'],
        ['[]]x', ']x'],
        ['\\bword\\b', 'word'],
        ['(a)\\1bcd', null],
        ['fo+?bar', 'bar'],
        ['a[|]b', 'a'],
        ['^\\s+at foo', 'at foo'],
        ['\\d+ ms\\b', ' ms'],
        ['ab\\x41cdef', 'ab'],
        ['x\\nyz', 'yz'],
      ];
      for (const [pattern, literal] of cases) assert.equal(requiredLiteral(pattern), literal, pattern);
    });

    it('caps matched lines and the whole reply like lines mode', async () => {
      const handle = await elided(store, `${'E'.repeat(3000)}\n`.repeat(10));
      const r = await store.readToolOutput({ handle, pattern: 'E' });
      assert.equal(r.total_matches, 10);
      // Each entry is "<n>:" + 2,000 characters; five fit in 10,000 with separators? 4 * (2002) + 3 = 8,011; a fifth needs 2,003 more = 10,014.
      assert.equal(r.returned_lines, 4);
      assert.equal(r.truncated, true);
      assert.ok(r.content.length <= 10_000);
      assert.equal(r.content.split('\n')[0], `1:${'E'.repeat(2000 - LINE_CUT_MARKER.length)}${LINE_CUT_MARKER}`);
    });

    // Memory: the slot search; filesystem: the file search (the worker reads by descriptor), docs/contracts.md §2.10.
    for (const backend of ['memory', 'filesystem'] as const) {
      it(`stops a catastrophically backtracking pattern within its budget and says so (${backend} store)`, async function () {
        this.timeout(20_000);
        const guarded = await openStore(dir, {
          ...(await blobsOf(dir, backend, 'guarded')),
          limits: { largeResultBytes: 16, previewBytes: 8 },
          reader: { patternBudgetMs: 300 },
        });
        const handle = await elided(guarded, `ok\n${'a'.repeat(40)}b\n`);
        // The pattern backtracks for far longer than the test may run: an answer at all means it was stopped.
        await rejectsWith(
          guarded.readToolOutput({ handle, pattern: '(a+)+$' }),
          'invalidArgument',
          PATTERN_TIMEOUT_MESSAGE,
        );
        assert.equal(
          PATTERN_TIMEOUT_MESSAGE,
          'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern',
        );
        // The store is still usable afterwards.
        assert.equal((await guarded.readToolOutput({ handle, pattern: '^ok$' })).total_matches, 1);
      });
    }
  });

  describe('deadlines and cancellation', () => {
    // Slow but not catastrophic: the cost per byte grows with the line's length (every start
    // position tries every count of words). With 68-byte lines a whole 16 MiB search took
    // 0.73 s here over two lanes: under the 800 ms limit on an idle machine or with warm
    // workers, so "must stop" failed. Lines of 16 times the words make it about 14 times
    // slower (about 1.4 s per 1 MiB piece, 12 s for the whole output over two lanes here):
    // no machine finishes it within the limit, and a piece stays far under the 20 s budget.
    const SLOW = '(\\w+ )*\\d';
    const LINE = `${'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu '.repeat(16).trimEnd()}\n`;
    const big = LINE.repeat(Math.ceil((16 * 1024 * 1024) / LINE.length));

    for (const backend of ['memory', 'filesystem'] as const) {
      it(`stops a slow pattern at the overall time limit, says how far it got, and the store still answers (${backend} store)`, async function () {
        this.timeout(60_000);
        const blobs = await blobsOf(dir, backend, 'limited');
        const limited = await openStore(dir, {
          ...blobs,
          limits: { largeResultBytes: 16, previewBytes: 8 },
          reader: { patternBudgetMs: 20_000, searchTimeoutMs: 800 },
        });
        const handle = await elided(limited, big);
        const e = await limited.readToolOutput({ handle, pattern: SLOW }).then(
          () => assert.fail('must stop'),
          (x: unknown) => x as Error,
        );
        assert.match(
          e.message,
          new RegExp(
            `^pattern search stopped at its time limit \\(800 ms\\) after \\d+ of ${big.length} bytes; no partial count is given; use a more specific pattern or raise the search time limit$`,
          ),
        );
        const searched = Number(/after (\d+) of/.exec(e.message)![1]);
        assert.ok(searched < big.length, `searched ${searched}`);
        // The store still answers: a read of the same output, and a search of it by a store
        // over the same storage with the default limit (the stopped search's workers were
        // terminated; new ones start). Not a search under the 800 ms limit: on a loaded
        // machine starting a worker alone can take longer, and that stop would be right.
        const first = await limited.readToolOutput({ handle, offset: 0, limit: 1 });
        assert.equal(first.content, LINE.slice(0, -1));
        const roomy = await openStore(dir, { ...blobs, limits: { largeResultBytes: 16, previewBytes: 8 } });
        const after = await roomy.readToolOutput({ handle, pattern: 'omega' });
        assert.deepEqual([after.total_matches, after.truncated], [0, false]);
        const again = await roomy.readToolOutput({ handle, pattern: 'mu$' });
        assert.deepEqual(
          [again.total_matches, again.matches![0]!.byte_offset],
          [big.length / LINE.length, LINE.length - 3],
        );
      });

      it(`stops a slow pattern when its signal aborts, and refuses an already aborted one (${backend} store)`, async function () {
        this.timeout(60_000);
        // A per-piece budget far over the abort's time, so only the signal can stop this search.
        const aborting = await openStore(dir, {
          ...(await blobsOf(dir, backend, 'aborting')),
          limits: { largeResultBytes: 16, previewBytes: 8 },
          reader: { patternBudgetMs: 20_000 },
        });
        const handle = await elided(aborting, big);
        const abort = new AbortController();
        setTimeout(() => abort.abort(), 400);
        await rejectsWith(
          aborting.readToolOutput({ handle, pattern: SLOW }, undefined, { signal: abort.signal }),
          'invalidArgument',
          SEARCH_CANCELLED_MESSAGE,
        );
        await rejectsWith(
          aborting.readToolOutput({ handle, pattern: 'x' }, undefined, { signal: abort.signal }),
          'invalidArgument',
          SEARCH_CANCELLED_MESSAGE,
        );
        assert.equal(SEARCH_CANCELLED_MESSAGE, 'pattern search cancelled');
      });
    }

    it('searches once per call even when the reply must be narrowed to fit 8 KiB', async () => {
      const handle = await elided(store, `${'é'.repeat(1500)} ERROR\n`.repeat(40));
      let calls = 0;
      const counted = {
        readToolOutput: (...a: Parameters<RunStore['readToolOutput']>) => {
          calls++;
          return store.readToolOutput(...a);
        },
      };
      const text = await readFitted(counted, { handle, pattern: 'ERROR' }, 4096, () =>
        assert.fail('no unexpected failure'),
      );
      const r = JSON.parse(text) as ReadToolOutputResult;
      assert.equal(calls, 1);
      assert.ok(Buffer.byteLength(text) < 8192);
      assert.deepEqual([r.total_matches, r.truncated, r.content.split('\n').length], [40, true, r.matches!.length]);
      // The model's pattern reply names no echo of the call, and no count its matches give (docs/contracts.md §2.5).
      assert.deepEqual(Object.keys(r), ['total_matches', 'truncated', 'content', 'matches']);
      assert.ok(r.matches!.length >= 1 && r.matches!.length < 5, String(r.matches!.length));
      // The entries kept are the first ones of the whole page: the next page starts at offset + matches.length.
      const whole = await store.readToolOutput({ handle, pattern: 'ERROR' });
      assert.deepEqual(r.matches, whole.matches!.slice(0, r.matches!.length));
    });

    it("the model's pattern reply names only what it cannot derive, in every shape: exact bytes (docs/contracts.md §2.5)", async function () {
      this.timeout(60_000);
      /** The model's reply; first, what it leaves out: `returned_lines` is the number of matches and of content lines. */
      const model = async (s: RunStore, args: { handle: string; pattern: string; limit?: number }): Promise<string> => {
        const full = await s.readToolOutput(args);
        assert.equal(full.returned_lines, full.matches!.length, JSON.stringify(args));
        assert.equal(
          full.content === '' ? 0 : full.content.split('\n').length,
          full.returned_lines,
          JSON.stringify(args),
        );
        return readFitted(s, args, 4096, () => assert.fail('no unexpected failure'));
      };
      const text = await elided(store, 'alpha\nbeta ERROR x\ngamma\n');
      // Everything shown: no `truncated` (false is left out, like `binary`).
      assert.equal(
        await model(store, { handle: text, pattern: 'ERROR' }),
        '{"total_matches":1,"content":"2:beta ERROR x","matches":[{"line_number":2,"byte_offset":11,"column":6}]}',
      );
      // More matches than the limit: `truncated` appears, true.
      assert.equal(
        await model(store, { handle: text, pattern: 'a', limit: 1 }),
        '{"total_matches":3,"truncated":true,"content":"1:alpha","matches":[{"line_number":1,"byte_offset":0,"column":1}]}',
      );
      assert.equal(
        await model(store, { handle: text, pattern: 'zzz' }),
        '{"total_matches":0,"content":"","matches":[]}',
      );
      // Binary content: `binary` stays (the text is escaped).
      const bin = await elided(store, Uint8Array.from([0x61, 0x0a, 0xff, 0xfe, 0x0a, 0x62]));
      assert.equal(
        await model(store, { handle: bin, pattern: 'a|\\xfe' }),
        '{"binary":true,"total_matches":2,"content":"1:a\\n2:\\\\xff\\\\xfe","matches":[{"line_number":1,"byte_offset":0,"column":1},{"line_number":2,"byte_offset":3,"column":2}]}',
      );
      // A long line shown as a window around its match: one match, one content line, the window in its entry
      // (the line goes on past the window, so the reply is `truncated`).
      const long = `${'x'.repeat(5000)}NEEDLE${'y'.repeat(5000)}\n`;
      const lh = await elided(store, long);
      const lr = await model(store, { handle: lh, pattern: 'NEEDLE' });
      const lw = (await store.readToolOutput({ handle: lh, pattern: 'NEEDLE' })).matches![0]!.window!;
      assert.equal(
        lr,
        JSON.stringify({
          total_matches: 1,
          truncated: true,
          content: `1:…${long.slice(lw.start, lw.end)}${LINE_CUT_MARKER}`,
          matches: [{ line_number: 1, byte_offset: 5000, column: 5001, window: lw }],
        }),
      );
      // A capped output: `kept_bytes` stays (every reply over it says which bytes exist).
      const capped = await openStore(dir, { blobs: new MemoryBlobStore(), captureCapBytes: 1024 });
      const run = await capped.startRun();
      const out = await run.runCommand('seq 1 1000', { cwd: dir });
      const stdout = out.record.attachments.find((a) => a.name === 'stdout')!;
      // seq prints 9 lines of 2 bytes and 89 of 3 before "99".
      assert.equal(
        await model(capped, { handle: stdout.handle, pattern: '^99$' }),
        '{"kept_bytes":{"start":0,"end":1024,"observed":3893},"total_matches":1,"content":"99:99","matches":[{"line_number":99,"byte_offset":285,"column":1}]}',
      );
    });
  });

  describe('bytes mode (rules of docs/contracts.md §1.3)', () => {
    it('returns exact windows and refuses a cut through a character', async () => {
      const text = 'héllo wörld\nsecond line\n';
      const handle = await elided(store, text);
      const r = await store.readToolOutput({ handle, bytes: { start: 7, end: 14 } });
      assert.deepEqual(
        [r.content, r.returned_lines, r.truncated, r.total_matches, r.matches],
        ['wörld\n', 1, true, null, null],
      );
      const all = await store.readToolOutput({ handle, bytes: { start: 0, end: Buffer.byteLength(text) } });
      assert.deepEqual([all.content, all.returned_lines, all.truncated], [text, 2, false]);
      await rejectsWith(
        store.readToolOutput({ handle, bytes: { start: 2, end: 4 } }),
        'rangeNotUtf8',
        'artifact range does not align to UTF-8 text',
      );
      await rejectsWith(
        store.readToolOutput({ handle, bytes: { start: 0, end: 27 } }),
        'exceedsStored',
        'artifact range exceeds the stored byte count',
      );
    });
  });

  describe('bounded reads through the line index', () => {
    it('reads a window at a high line offset without reading what precedes its chunk', async () => {
      const counting = new CountingStore(new MemoryBlobStore());
      const s = await openStore(dir, {
        blobs: counting,
        limits: { largeResultBytes: 16, previewBytes: 8 },
        offloadThresholdBytes: 1024,
      });
      const text = numberedLines(400_000); // ~5.4 MB
      const handle = await elided(s, text);
      const manifestBytes = encodeManifest(manifestOf(Buffer.from(text))).length;
      counting.bytesRead = 0;
      const r = await s.readToolOutput({ handle, offset: 390_000, limit: 3 });
      assert.equal(r.content, 'line 390000\nline 390001\nline 390002');
      assert.equal(r.total_lines, 400_000);
      // The manifest plus at most one 1 MiB window (the reads start at line 390,000's chunk).
      assert.ok(counting.bytesRead <= manifestBytes + 1024 * 1024, `read ${counting.bytesRead} of ${text.length}`);
    });

    it('skips the rest of a huge line through the index instead of reading it', async () => {
      const counting = new CountingStore(new MemoryBlobStore());
      const s = await openStore(dir, {
        blobs: counting,
        limits: { largeResultBytes: 16, previewBytes: 8 },
        offloadThresholdBytes: 1024,
      });
      const text = `${'q'.repeat(6 * 1024 * 1024)}\ntail\n`;
      const handle = await elided(s, text);
      counting.bytesRead = 0;
      const r = await s.readToolOutput({ handle, limit: 5 });
      assert.deepEqual(
        r.content.split('\n').map((l) => l.length),
        [2000, 4],
      );
      assert.equal(r.content.split('\n')[1], 'tail');
      assert.ok(counting.bytesRead < 2.5 * 1024 * 1024, `read ${counting.bytesRead} of ${text.length}`);
    });
  });

  for (const backend of ['memory', 'filesystem', 's3'] as const) {
    describe(`every storage shape reads alike, and faults are reported (${backend})`, function () {
      let server: S3Server | undefined;
      let blobs: BlobStore;
      before(async function () {
        if (backend === 's3') server = await startS3Server();
      });
      after(async () => {
        await server?.close();
      });
      beforeEach(async () => {
        if (backend === 'memory') blobs = new MemoryBlobStore();
        else if (backend === 'filesystem') blobs = await FsBlobStore.open(path.join(dir, 'blobs'));
        else
          blobs = new S3BlobStore({
            endpoint: server!.endpoint,
            bucket: server!.bucket,
            prefix: `p${Date.now()}`,
            credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
            maxAttempts: 1,
          });
      });
      afterEach(() => {
        blobs.dispose?.();
      });

      it('inline result, blob result and attachment give the same answers', async () => {
        const text = numberedLines(3000, (i) => (i % 250 === 0 ? ' MARK' : ''));
        writeFileSync(path.join(dir, 'out.txt'), text);
        const inlineStore = await openStore(dir, {
          blobs,
          limits: { largeResultBytes: 16, previewBytes: 8 },
          offloadThresholdBytes: 1_000_000,
        });
        const blobStore = await openStore(dir, {
          blobs,
          limits: { largeResultBytes: 16, previewBytes: 8 },
          offloadThresholdBytes: 1024,
        });
        const inlineRun = await inlineStore.startRun();
        const inl = await inlineRun.recordResult('t', {}, text);
        const blobRun = await blobStore.startRun();
        const blb = await blobRun.recordResult('t', {}, text);
        const cmd = await blobRun.runCommand('cat out.txt', { cwd: dir });
        assert.deepEqual(
          [inl.record.stored, blb.record.stored, cmd.record.attachments[0]!.stored],
          ['inline', 'blob', 'blob'],
        );
        const handles = [inl.handle!, blb.handle!, cmd.record.attachments[0]!.handle];
        const strip = (r: ReadToolOutputResult): Omit<ReadToolOutputResult, 'handle'> => {
          const { handle: _h, ...rest } = r;
          return rest;
        };
        for (const args of [
          {},
          { offset: 2990, limit: 20 },
          { pattern: 'MARK$', offset: 2, limit: 3 },
          { bytes: { start: 100, end: 300 } },
        ]) {
          const results = await Promise.all(handles.map((handle) => blobStore.readToolOutput({ handle, ...args })));
          assert.deepEqual(strip(results[1]!), strip(results[0]!));
          assert.deepEqual(strip(results[2]!), strip(results[0]!));
        }
      });

      it('a tampered blob, a changed size and a rewritten manifest are digest mismatches; a deleted blob is "missing"', async () => {
        const s = await openStore(dir, {
          blobs,
          limits: { largeResultBytes: 16, previewBytes: 8 },
          offloadThresholdBytes: 1024,
        });
        const run = await s.startRun();
        const text = numberedLines(20_000);
        const out = await run.recordResult('t', {}, text);
        const key = { tenant: 'tenant-a', runId: run.runId, callId: out.callId };
        const tampered = Buffer.from(text);
        tampered[200_000] = 0x21;
        await blobs.put(key, tampered);
        await rejectsWith(
          s.readToolOutput({ handle: out.handle!, pattern: 'line 1999' }),
          'digestMismatch',
          'artifact digest does not match its recorded identity',
        );
        await rejectsWith(
          s.readToolOutput({ handle: out.handle!, offset: 15_000 }),
          'digestMismatch',
          'artifact digest does not match its recorded identity',
        );
        // Bytes before the tampered chunk are still served: only verified chunks are returned.
        assert.equal((await s.readToolOutput({ handle: out.handle!, bytes: { start: 0, end: 6 } })).content, 'line 0');
        await blobs.put(key, Buffer.concat([Buffer.from(text), Buffer.from('x')]));
        await rejectsWith(
          s.readToolOutput({ handle: out.handle!, bytes: { start: 0, end: 6 } }),
          'digestMismatch',
          'artifact digest does not match its recorded identity',
        );
        await blobs.put(key, Buffer.from(text));
        assert.equal((await s.readToolOutput({ handle: out.handle!, limit: 1 })).content, 'line 0');
        await blobs.delete(key);
        await rejectsWith(s.readToolOutput({ handle: out.handle!, limit: 1 }), 'missing', 'stored bytes are missing');
        // A rewritten manifest sidecar, seen by a store that has not cached the old one.
        await blobs.put(key, tampered);
        await blobs.put(manifestKeyOf(key), encodeManifest(manifestOf(tampered)));
        const fresh = await openStore(dir, {
          blobs,
          limits: { largeResultBytes: 16, previewBytes: 8 },
          offloadThresholdBytes: 1024,
        });
        await rejectsWith(
          fresh.readToolOutput({ handle: out.handle!, limit: 1 }),
          'digestMismatch',
          'artifact digest does not match its recorded identity',
        );
        await blobs.delete(manifestKeyOf(key));
        const fresher = await openStore(dir, {
          blobs,
          limits: { largeResultBytes: 16, previewBytes: 8 },
          offloadThresholdBytes: 1024,
        });
        await rejectsWith(fresher.readToolOutput({ handle: out.handle! }), 'missing', 'stored bytes are missing');
        // The store that cached the verified manifest still refuses the tampered data.
        assert.equal(await (await s.openHandle(out.handle!)).verify(), false);
      });
    });
  }

  it('an inline record edited in the log is a digest mismatch, not data', async () => {
    const run = await store.startRun();
    const out = await run.recordResult('t', {}, 'original content here');
    await run.finish();
    const fs = await import('node:fs');
    const log = store.logPath(run.runId);
    fs.writeFileSync(
      log,
      fs.readFileSync(log, 'utf8').replace('"inline":"original content here"', '"inline":"forged content here!!"'),
    );
    const fresh = await openStore(dir, {
      blobs: new MemoryBlobStore(),
      limits: { largeResultBytes: 16, previewBytes: 8 },
    });
    await rejectsWith(
      fresh.readToolOutput({ handle: out.handle! }),
      'digestMismatch',
      'artifact digest does not match its recorded identity',
    );
  });

  it('openHandle gives verified ranges, streams and a full verification', async () => {
    const blobs = new MemoryBlobStore();
    const s = await openStore(dir, {
      blobs,
      limits: { largeResultBytes: 16, previewBytes: 8 },
      offloadThresholdBytes: 1024,
    });
    const run = await s.startRun();
    const text = numberedLines(50_000);
    const out = await run.recordResult('t', {}, text);
    const src = await s.openHandle(out.handle!);
    assert.deepEqual(
      [src.name, src.byteCount, src.lineCount, src.stored, src.binary],
      ['result', Buffer.byteLength(text), 50_000, 'blob', false],
    );
    assert.equal(Buffer.from(await src.readRange(7, 13)).toString(), 'line 1');
    let n = 0;
    for await (const p of src.stream()) n += p.length;
    assert.equal(n, Buffer.byteLength(text));
    assert.equal(await src.verify(), true);
    const key = { tenant: 'tenant-a', runId: run.runId, callId: out.callId };
    const raw = Buffer.from(blobs.rawObject(key)!);
    raw[raw.length - 3] = 0x30;
    blobs.setRawObject(key, raw);
    assert.equal(await src.verify(), false);
  });
});
