import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { blobRangeSource } from '../../../../src/core/blobs/verifiedBlobs.js';
import { manifestOf, type RangeSource } from '../../../../src/core/integrity/integrity.js';
import { clearVerifiedChunks } from '../../../../src/core/integrity/verifiedChunks.js';
import {
  cannotMatchNewline,
  MAX_MATCH_LINE_BYTES,
  requiredLiteral,
  searchPattern,
  type PatternMatch,
  type PatternSearchOptions,
  type PatternSearchResult,
} from '../../../../src/core/runs/search/patternSearch.js';
import { utf8BytePattern } from '../../../../src/core/runs/search/patternAnalysis.js';
import { mergeLanes } from '../../../../src/core/runs/search/patternMerge.js';
import { PatternMatcher } from '../../../../src/core/runs/search/patternWorker.js';

const isCont = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;
const escapeBin = (t: string): string =>
  [...t]
    .map((c) =>
      c === '\\' ? '\\\\' : c >= ' ' && c < '\x7f' ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    )
    .join('');

/**
 * The contract's pattern mode, written as plainly as possible over the whole content at
 * once: split into lines; a line of at most `cap` bytes is tested whole, a longer one in
 * windows of `cap` bytes starting every `cap - floor(cap / 4)` bytes (aligned to
 * characters; after the first, one character of context before the window, where no
 * match may start; a window that is not the last accepts a match only if it starts before
 * the next window and ends before its own end); the first accepted match is the line's;
 * its shown text is the line when whole and short, else a window around the match.
 */
function naiveSearch(
  bytes: Buffer,
  o: PatternSearchOptions,
  cap = MAX_MATCH_LINE_BYTES,
  binary = false,
): PatternSearchResult {
  const step = cap - Math.floor(cap / 4);
  const decode = (a: number, b: number): string =>
    binary ? bytes.toString('latin1', a, b) : new TextDecoder().decode(bytes.subarray(a, b));
  const lines: [number, number][] = [];
  for (let ls = 0; ls < bytes.length;) {
    let le = bytes.indexOf(10, ls);
    if (le === -1) le = bytes.length;
    lines.push([ls, le]);
    ls = le + 1;
  }
  const matches: PatternMatch[] = [];
  let total = 0;
  let chars = 0;
  let collecting = true;
  let cut = false;
  lines.forEach(([ls, le], i) => {
    let hit: { text: string; from: number; textOff: number; index: number; final: boolean; we: number } | undefined;
    for (let w = ls; ; w += step) {
      const final = le - w <= cap;
      let ws = w;
      let we = final ? le : w + cap;
      if (!binary) {
        while (ws < we && isCont(bytes[ws])) ws++;
        if (!final) while (we > ws && isCont(bytes[we])) we--;
      }
      let ps = ws;
      if (w !== ls) {
        ps--;
        if (!binary) while (ps > 0 && isCont(bytes[ps])) ps--;
      }
      const text = decode(ps, we);
      const from = decode(ps, ws).length;
      // Binary: a non-ASCII character stands for its UTF-8 bytes (tested on its own below).
      const re = new RegExp(binary ? utf8BytePattern(o.pattern) : o.pattern, 'g');
      re.lastIndex = from;
      const m = re.exec(text);
      const byteAt = (k: number): number => ps + (binary ? k : Buffer.byteLength(text.slice(0, k)));
      if (m && (final || (byteAt(m.index) < w + step && m.index + m[0].length < text.length))) {
        hit = { text, from, textOff: ps, index: m.index, final, we };
        break;
      }
      if (final) break;
    }
    if (!hit) return;
    total++;
    if (!collecting || total <= o.offset) return;
    const { text, from, textOff, index } = hit;
    const byteAt = (k: number): number => textOff + (binary ? k : Buffer.byteLength(text.slice(0, k)));
    const show = (t: string): string => (binary ? escapeBin(t) : t);
    let shown: string;
    let window: { start: number; end: number } | undefined;
    if (from === 0 && textOff === ls && hit.final && show(text).length <= o.maxLineChars) shown = show(text);
    else {
      let a = 0;
      let b = 0;
      for (const room of [o.maxLineChars - o.cutMarker.length, o.maxLineChars - o.cutMarker.length - 1]) {
        const budget = Math.max(1, Math.floor(room / (binary ? 4 : 1)));
        a = Math.max(from, index - Math.floor(budget / 3));
        b = Math.min(text.length, a + budget);
        a = Math.max(from, b - budget);
        if (!binary) {
          if (a > 0 && a < text.length && /[\udc00-\udfff]/.test(text[a]!)) a++;
          if (b < text.length && /[\udc00-\udfff]/.test(text[b]!)) b--;
        }
        if (byteAt(a) === ls) break; // no `…` before: the full room
      }
      const start = byteAt(a);
      const end = byteAt(b);
      const head = start > ls ? '…' : '';
      const tail = !hit.final || end < le ? o.cutMarker : '';
      shown = head + show(text.slice(a, b)) + tail;
      if (head || tail) {
        window = { start, end };
        cut = true;
      }
    }
    const need = (matches.length ? 1 : 0) + `${i + 1}:`.length + shown.length;
    if (chars + need > o.maxContentChars) {
      collecting = false;
      cut = true;
      return;
    }
    chars += need;
    const offset = byteAt(index);
    matches.push({
      line_number: i + 1,
      byte_offset: offset,
      column: offset - ls + 1,
      text: shown,
      ...(window && { window }),
    });
    if (matches.length >= o.limit) collecting = false;
  });
  return { totalMatches: total, matches, cut };
}

/** A source over bytes, with or without `readInto` (both paths of `streamVerifiedInto`). */
function source(bytes: Uint8Array, withReadInto: boolean): RangeSource {
  return {
    size: async () => bytes.length,
    read: async (s, e) => bytes.slice(s, e),
    ...(withReadInto && {
      readInto: async (s: number, e: number, t: Uint8Array) => {
        t.set(bytes.subarray(s, e));
        return Math.min(e, bytes.length) - s;
      },
    }),
  };
}

/**
 * Runs the worker's matcher in this thread (no isolate start, so thousands of cases
 * stay fast), fed the way `searchPattern` feeds it: consecutive verified pieces of whole
 * chunks, then `end`.
 */
function inProcess(
  bytes: Uint8Array,
  chunkSize: number,
  pieceChunks: number,
  o: PatternSearchOptions,
  maxLineBytes?: number,
  binary = false,
): PatternSearchResult {
  const m = manifestOf(bytes, chunkSize);
  const pieceBytes = pieceChunks * chunkSize;
  // A small line cap reaches the cut-line paths that take a 1 MiB line otherwise.
  const matcher = new PatternMatcher({
    pattern: o.pattern,
    offset: o.offset,
    limit: o.limit,
    maxLineChars: o.maxLineChars,
    maxContentChars: o.maxContentChars,
    maxLineBytes: maxLineBytes ?? MAX_MATCH_LINE_BYTES,
    cutMarker: o.cutMarker,
    chunkSize,
    chunkNewlines: m.chunkNewlines,
    binary,
  });
  const slot = Buffer.alloc(pieceBytes);
  for (let start = 0; start < bytes.length; start += pieceBytes) {
    const length = Math.min(pieceBytes, bytes.length - start);
    slot.set(bytes.subarray(start, start + length));
    matcher.piece(slot.subarray(0, length), start);
  }
  return matcher.end();
}

/**
 * The same content searched in two lanes split at chunk `split` (docs/contracts.md §2.10):
 * the first lane over [0, B) then only its pending line on; the second from B, passing
 * over the line the boundary falls in; their pages merged.
 */
function inProcessSplit(
  bytes: Uint8Array,
  chunkSize: number,
  pieceChunks: number,
  o: PatternSearchOptions,
  split: number,
  maxLineBytes?: number,
  binary = false,
): PatternSearchResult {
  const m = manifestOf(bytes, chunkSize);
  const setup = {
    pattern: o.pattern,
    offset: 0,
    limit: o.limit,
    maxLineChars: o.maxLineChars,
    maxContentChars: o.maxContentChars,
    maxLineBytes: maxLineBytes ?? MAX_MATCH_LINE_BYTES,
    cutMarker: o.cutMarker,
    chunkSize,
    chunkNewlines: m.chunkNewlines,
    binary,
  };
  const B = Math.min(split * chunkSize, bytes.length);
  const pieceBytes = pieceChunks * chunkSize;
  const buf = Buffer.from(bytes);
  const a = new PatternMatcher(setup);
  for (let start = 0; start < B; start += pieceBytes)
    a.piece(buf.subarray(start, Math.min(B, start + pieceBytes)), start);
  for (let start = B; start < bytes.length; start += pieceBytes)
    if (a.finishPending(buf.subarray(start, Math.min(bytes.length, start + pieceBytes)))) break;
  const b = new PatternMatcher(setup);
  let before = 0;
  for (let c = 0; c * chunkSize < B; c++) before += m.chunkNewlines[c]!;
  b.startAt(before, B > 0 && bytes[B - 1] !== 10);
  for (let start = B; start < bytes.length; start += pieceBytes)
    b.piece(buf.subarray(start, Math.min(bytes.length, start + pieceBytes)), start);
  const ra = a.end();
  const rb = b.end();
  return mergeLanes(
    { ...ra, stoppedByBudget: a.stoppedByBudget },
    { ...rb, stoppedByBudget: b.stoppedByBudget },
    o.limit,
    o.maxContentChars,
  );
}

const isValid = (p: string): boolean => {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
};

// A small regex grammar that reaches every prefilter: literals (ASCII, é, a surrogate
// pair), classes that can and cannot match \n, anchors, \b, lookarounds, backreferences,
// groups, alternation and quantifiers.
const atom = fc.constantFrom(
  'a',
  'b',
  'E',
  ' ',
  'é',
  '😀',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '\\S',
  '\\W',
  '\\D',
  '\\b',
  '\\B',
  '\\n',
  '\\r',
  '\\.',
  '^',
  '$',
  '[ab]',
  '[^a]',
  '[ -b]',
  '[\\t-\\r]',
  '[\\s]',
  '[]',
  '(?=a)',
  '(?!b)',
  '(?<=a)',
  '(?<!b)',
  '(a)\\1',
  '(?:a|b)',
  '(?<n>b)',
);
const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '{1,2}', '*?', '+?');
const sequence = fc
  .array(
    fc.tuple(atom, quantifier).map(([a, q]) => a + q),
    { minLength: 1, maxLength: 4 },
  )
  .map((xs) => xs.join(''));
const pattern = fc
  .oneof(
    { weight: 3, arbitrary: sequence },
    { weight: 1, arbitrary: fc.tuple(sequence, sequence).map(([a, b]) => `${a}|${b}`) },
    { weight: 1, arbitrary: fc.tuple(sequence, sequence, quantifier).map(([a, b, q]) => `x(${a}|${b})${q}`) },
  )
  .filter(isValid);
const line = fc
  .array(fc.constantFrom('a', 'b', 'E', ' ', 'é', '→', '😀', '\r', '1', '-', '\t'), { maxLength: 14 })
  .map((cs) => cs.join(''));

const content = fc
  .tuple(fc.array(line, { maxLength: 60 }), fc.boolean())
  .map(([lines, trailing]) => lines.join('\n') + (trailing && lines.length ? '\n' : ''));
const page = fc.record({
  offset: fc.nat(4),
  limit: fc.integer({ min: 1, max: 6 }),
  maxLineChars: fc.integer({ min: 2, max: 16 }),
  maxContentChars: fc.integer({ min: 8, max: 200 }),
});
const optionsOf = (p: string, pg: typeof page extends fc.Arbitrary<infer T> ? T : never): PatternSearchOptions => ({
  pattern: p,
  ...pg,
  budgetMs: 10_000,
  cutMarker: '…',
});

describe('pattern search: optimised scan vs a naive per-line reference', () => {
  it('the worker returns exactly what the naive reference returns (random lines, patterns, chunk and piece sizes, pages)', () => {
    // A small line cap reaches the windowed long-line paths that take a 1 MiB line otherwise.
    const cap = fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined });
    fc.assert(
      fc.property(
        content,
        pattern,
        fc.constantFrom(1, 2, 3, 7, 16, 64),
        fc.integer({ min: 1, max: 5 }),
        cap,
        page,
        fc.boolean(),
        (text, p, chunkSize, pieceChunks, maxLineBytes, pg, binary) => {
          const o = optionsOf(p, pg);
          const bytes = Buffer.from(text, 'utf8');
          assert.deepEqual(
            inProcess(bytes, chunkSize, pieceChunks, o, maxLineBytes, binary),
            naiveSearch(bytes, o, maxLineBytes, binary),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('two lanes split at any chunk boundary and merged return exactly what the reference returns for a first page', () => {
    const cap = fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined });
    fc.assert(
      fc.property(
        content,
        pattern,
        fc.constantFrom(1, 2, 3, 7, 16, 64),
        fc.integer({ min: 1, max: 5 }),
        cap,
        page,
        fc.boolean(),
        fc.nat(200),
        (text, p, chunkSize, pieceChunks, maxLineBytes, pg, binary, split) => {
          const o = optionsOf(p, { ...pg, offset: 0 });
          const bytes = Buffer.from(text, 'utf8');
          const chunks = Math.ceil(bytes.length / chunkSize);
          assert.deepEqual(
            inProcessSplit(bytes, chunkSize, pieceChunks, o, split % (chunks + 1), maxLineBytes, binary),
            naiveSearch(bytes, o, maxLineBytes, binary),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('searchPattern (worker thread, slots, acknowledgements) agrees too, with and without readInto', async function () {
    this.timeout(60_000);
    // One isolate per search: few runs here, the many run in-process above.
    await fc.assert(
      fc.asyncProperty(
        content,
        pattern,
        fc.constantFrom(1, 3, 16, 65536),
        fc.boolean(),
        page,
        async (text, p, chunkSize, readInto, pg) => {
          const bytes = Buffer.from(text, 'utf8');
          const o = optionsOf(p, pg);
          assert.deepEqual(
            await searchPattern(source(bytes, readInto), manifestOf(bytes, chunkSize), o),
            naiveSearch(bytes, o),
          );
        },
      ),
      { numRuns: 15 },
    );
  });

  it("a small text output without the pattern's required literal has no match (the main thread's check is sound), and searchPattern answers it so", async () => {
    // Soundness over many cases, in this thread: the literal absent from the bytes means no line matches.
    let absent = 0;
    fc.assert(
      fc.property(content, pattern, (text, p) => {
        const literal = requiredLiteral(p);
        const bytes = Buffer.from(text, 'utf8');
        if (literal === null || bytes.includes(Buffer.from(literal, 'utf8'))) return;
        absent++;
        assert.equal(
          naiveSearch(bytes, optionsOf(p, { offset: 0, limit: 5, maxLineChars: 16, maxContentChars: 200 }))
            .totalMatches,
          0,
          `${p} over ${JSON.stringify(text)}`,
        );
      }),
      { numRuns: 3000 },
    );
    assert.ok(absent > 300, `only ${absent} cases had a literal absent`);
    // Through searchPattern: every byte still verified (a changed byte fails), and the answer is the reference's.
    const bytes = Buffer.from('plain é line\nanother 😀 line\n');
    const m = manifestOf(bytes, 16);
    for (const p of ['ERROR', 'é line$', '😀 li']) {
      const o = optionsOf(p, { offset: 0, limit: 5, maxLineChars: 40, maxContentChars: 400 });
      assert.deepEqual(await searchPattern(source(bytes, false), m, o), naiveSearch(bytes, o), p);
    }
    const tampered = Buffer.from(bytes);
    tampered[3] = tampered[3]! ^ 1;
    await assert.rejects(
      searchPattern(
        source(tampered, false),
        m,
        optionsOf('ERROR', { offset: 0, limit: 5, maxLineChars: 40, maxContentChars: 400 }),
      ),
      /artifact digest does not match its recorded identity/,
    );
  });

  it('uses no byte before it is verified: a changed byte or a short source fails the search, on both read paths', async () => {
    const text = 'ok\n'.repeat(5000) + 'ERROR here\n';
    const bytes = Buffer.from(text);
    const m = manifestOf(bytes, 1024);
    const o = optionsOf('ERROR', { offset: 0, limit: 5, maxLineChars: 100, maxContentChars: 1000 });
    for (const readInto of [true, false]) {
      assert.equal((await searchPattern(source(bytes, readInto), m, o)).totalMatches, 1);
      const tampered = Buffer.from(bytes);
      tampered[12_000] = 0x45; // 'E' inside a chunk far from the match
      await assert.rejects(
        searchPattern(source(tampered, readInto), m, o),
        /artifact digest does not match its recorded identity/,
      );
      await assert.rejects(
        searchPattern(source(bytes.subarray(0, bytes.length - 1), readInto), m, o),
        /artifact digest does not match its recorded identity/,
      );
    }
  });

  describe('over a local file (the worker reads it by descriptor, both threads hash)', () => {
    let dir: string;
    let store: FsBlobStore;
    let n = 0;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pattern-file-'));
      store = await FsBlobStore.open(dir);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    /** A real file in a filesystem blob store holding `bytes`, and its source (which has `openFile`). */
    const fileSource = async (bytes: Uint8Array): Promise<RangeSource> => {
      const key = { tenant: 't', runId: 'r', callId: `c${n++}` };
      await store.put(key, bytes);
      const src = blobRangeSource(store, key);
      assert.ok(src.openFile, 'a filesystem blob opens as a file');
      return src;
    };

    it('agrees with the reference (random lines, patterns, chunk sizes, pages)', async function () {
      this.timeout(120_000);
      await fc.assert(
        fc.asyncProperty(content, pattern, fc.constantFrom(1, 3, 16, 65536), page, async (text, p, chunkSize, pg) => {
          const bytes = Buffer.from(text, 'utf8');
          const o = optionsOf(p, pg);
          clearVerifiedChunks();
          const src = await fileSource(bytes);
          const m = manifestOf(bytes, chunkSize);
          assert.deepEqual(await searchPattern(src, m, o), naiveSearch(bytes, o));
          // Again with every chunk in the verified-chunk cache: the same answer.
          assert.deepEqual(await searchPattern(src, m, o), naiveSearch(bytes, o));
        }),
        { numRuns: 40 },
      );
    });

    it('a byte changed in any chunk (hashed by the worker or by the main thread) or a short file fails the first search', async () => {
      const bytes = Buffer.from('ok\n'.repeat(5000) + 'ERROR here\n');
      const m = manifestOf(bytes, 1024); // 15 chunks: the worker hashes the first 40 %, the main thread the rest
      const o = optionsOf('ERROR', { offset: 0, limit: 5, maxLineChars: 100, maxContentChars: 1000 });
      clearVerifiedChunks();
      assert.equal((await searchPattern(await fileSource(bytes), m, o)).totalMatches, 1);
      for (const at of [0, 2_500, 5_000, 9_000, 12_000, bytes.length - 1]) {
        clearVerifiedChunks();
        const tampered = Buffer.from(bytes);
        tampered[at] = tampered[at]! ^ 1;
        await assert.rejects(
          searchPattern(await fileSource(tampered), m, o),
          /artifact digest does not match its recorded identity/,
          `byte ${at}`,
        );
      }
      clearVerifiedChunks();
      await assert.rejects(
        searchPattern(await fileSource(bytes.subarray(0, bytes.length - 1)), m, o),
        /artifact digest does not match its recorded identity/,
      );
    });

    it('a first page over a file of 8 MiB or more is searched in two lanes: the same answer as one matcher, a changed byte in either lane caught', async function () {
      this.timeout(120_000);
      // ~10 MiB of varied lines; a 3 MiB line straddles the middle chunk boundary (where
      // the lanes meet) with needles before, inside and after that boundary.
      const parts: string[] = [];
      for (let i = 0, n = 0; n < 3_500_000; i++)
        n += parts[parts.push(`${i} alpha ${i % 7 === 0 ? 'NEEDLE ' : ''}beta ${'x'.repeat(i % 50)}\n`) - 1]!.length;
      const head = parts.join('');
      const long = `${'y'.repeat(1_000_000)}NEEDLE-in-long${'z'.repeat(2_000_000)}\n`;
      const tail = head.replace(/alpha/g, 'gamma');
      const text = head + long + tail;
      const bytes = Buffer.from(text);
      const m = manifestOf(bytes);
      const middle = Math.floor(Math.ceil(bytes.length / 65536) / 2) * 65536;
      assert.ok(
        head.length < middle && middle < head.length + long.length,
        "the long line crosses the lanes' boundary",
      );
      const src = await fileSource(bytes);
      for (const [p, limit, maxContentChars] of [
        ['NEEDLE', 5, 10_000],
        ['NEEDLE', 1000, 10_000],
        ['NEEDLE', 1000, 900],
        ['^\\d+ gamma', 3, 10_000],
        ['z{3}$', 5, 10_000],
        ['y\\d', 5, 10_000],
        ['beta x{49}$', 1000, 10_000],
      ] as const) {
        const o = optionsOf(p, { offset: 0, limit, maxLineChars: 200, maxContentChars });
        clearVerifiedChunks();
        const expected = await searchPattern(source(bytes, true), m, o);
        assert.deepEqual(await searchPattern(src, m, o), expected, `${p} cold`);
        assert.deepEqual(await searchPattern(src, m, o), expected, `${p} warm`);
      }
      for (const at of [100, middle - 1, middle, bytes.length - 2]) {
        clearVerifiedChunks();
        const tampered = Buffer.from(bytes);
        tampered[at] = tampered[at]! ^ 1;
        await assert.rejects(
          searchPattern(
            await fileSource(tampered),
            m,
            optionsOf('NEEDLE', { offset: 0, limit: 5, maxLineChars: 200, maxContentChars: 10_000 }),
          ),
          /artifact digest does not match its recorded identity/,
          `byte ${at}`,
        );
      }
    });

    it('a file whose identity changes during the search fails it, and nothing is remembered', async () => {
      // Over 64 KiB: a smaller output is first checked for the required literal on the main thread (hashed once more).
      const bytes = Buffer.from('ok\n'.repeat(30_000) + 'ERROR here\n');
      const m = manifestOf(bytes, 1024);
      const o = optionsOf('ERROR', { offset: 0, limit: 5, maxLineChars: 100, maxContentChars: 1000 });
      clearVerifiedChunks();
      const real = await fileSource(bytes);
      let stats = 0;
      // The open file reports another identity the second time it is asked (after the scan).
      const changing: RangeSource = {
        ...real,
        openFile: async () => {
          const f = (await real.openFile!())!;
          return {
            ...f,
            stat: async () => {
              const s = await f.stat();
              return stats++ % 2 === 0 ? s : { ...s, identity: `${s.identity}:changed` };
            },
          };
        },
      };
      await assert.rejects(searchPattern(changing, m, o), /artifact digest does not match its recorded identity/);
      const { verifiedChunkStats } = await import('../../../../src/core/integrity/verifiedChunks.js');
      const hashed = verifiedChunkStats.hashed;
      assert.equal((await searchPattern(real, m, o)).totalMatches, 1);
      assert.equal(
        verifiedChunkStats.hashed - hashed,
        Math.ceil(bytes.length / 1024),
        'no chunk was remembered from the failed search',
      );
    });
  });

  it('on binary content, a non-ASCII character of the pattern finds its UTF-8 bytes; escapes and classes name single bytes', async () => {
    assert.equal(utf8BytePattern('naïve'), 'na(?:\\xc3\\xaf)ve');
    assert.equal(utf8BytePattern('😀+'), '(?:\\xf0\\x9f\\x98\\x80)+');
    assert.equal(utf8BytePattern('na\\xefve [é] \\é'), 'na\\xefve [é] \\é');
    // A NUL-studded blob (binary) holding "naïve" in UTF-8 at 1000 and the Latin-1 byte 0xEF at 3000.
    const bytes = Buffer.alloc(4000, 0);
    Buffer.from('naïve', 'utf8').copy(bytes, 1000);
    Buffer.from('na\xefve', 'latin1').copy(bytes, 3000);
    const m = manifestOf(bytes, 1024);
    assert.equal(m.utf8, false);
    const o = { ...optionsOf('', { offset: 0, limit: 5, maxLineChars: 100, maxContentChars: 1000 }), binary: true };
    const at = async (p: string): Promise<number[]> =>
      (await searchPattern(source(bytes, true), m, { ...o, pattern: p })).matches.map((x) => x.byte_offset);
    assert.deepEqual(await at('naïve'), [1000]);
    assert.deepEqual(await at('na\\xefve'), [3000]);
    assert.deepEqual(await at('na[ï]ve'), [3000]);
  });

  it('proves "cannot match a newline" only for patterns that cannot, and says so for the common ones', () => {
    const proven = [
      'ERROR',
      'E.ROR',
      '^\\d+ ms$',
      '\\bword\\b',
      '[a-z]+',
      '[ -~]',
      '(?:a|b)+',
      '(?<n>x)y',
      '\\.log',
      '\\t\\r',
      '[\\t\\r]',
      '[]',
    ];
    const notProven = [
      '\\s',
      '\\S+',
      '\\W',
      '\\D',
      '\\n',
      '[^a]',
      '[\\s]',
      '[\\t-\\r]',
      '[\\0-z]',
      '[\t-\r]',
      'a(?=b)',
      '(?<!a)b',
      '(a)\\1',
      '\\x0a',
      '\\u000a',
      '\\cJ',
      '(?s:.)',
      'a\nb',
      '\\k<n>',
    ];
    for (const p of proven) assert.equal(cannotMatchNewline(p), true, p);
    for (const p of notProven) assert.equal(cannotMatchNewline(p), false, p);
    // Against the engine: a proven pattern's match at any position of a text with newlines
    // never contains one.
    const sample = 'a\nb\n\n é😀\r\n E1-\t\nab\n';
    fc.assert(
      fc.property(pattern, (p) => {
        if (!cannotMatchNewline(p)) return;
        const re = new RegExp(p, 'ym');
        for (let i = 0; i <= sample.length; i++) {
          re.lastIndex = i;
          assert.ok(!re.exec(sample)?.[0].includes('\n'), `${p} at ${i}`);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
