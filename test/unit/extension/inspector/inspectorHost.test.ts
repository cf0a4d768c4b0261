import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fc from 'fast-check';
import { EvidenceError, ErrorText, type HandleSource } from '../../../../src/core/index.js';
import { buildExcerpt, fenceFor, hexDump } from '../../../../src/extension/inspector/excerpt.js';
import { LineIndex, lineIndexStride } from '../../../../src/extension/inspector/lineIndex.js';
import { splitPreview, summarizeArgs } from '../../../../src/extension/inspector/mapping.js';
import { inspectorLimits, parseWebviewMessage } from '../../../../src/extension/inspector/validate.js';
import { resolveBytes, resolveLines, type IndexGetter } from '../../../../src/extension/inspector/windows.js';

const enc = new TextEncoder();
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** An in-memory handle that counts the bytes it is asked for (to prove windows never read everything). */
function memHandle(bytes: Uint8Array, opts: { binary?: boolean } = {}): HandleSource & { bytesRead: number } {
  let nl = 0;
  for (const b of bytes) if (b === 10) nl++;
  const lineCount = nl + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0);
  const h = {
    handle: 'res_test',
    runId: 'r1',
    callId: 'c1',
    name: 'result',
    byteCount: bytes.length,
    sha256: sha(bytes),
    binary: opts.binary ?? false,
    contentType: 'text/plain; charset=utf-8',
    lineCount,
    stored: 'blob' as const,
    bytesRead: 0,
    async readRange(s: number, e: number): Promise<Uint8Array> {
      if (!(0 <= s && s < e)) throw new EvidenceError('rangeOrder');
      if (e > bytes.length) throw new EvidenceError('exceedsStored');
      h.bytesRead += e - s;
      return bytes.slice(s, e);
    },
    async *stream(s = 0, e = bytes.length): AsyncIterable<Uint8Array> {
      for (let p = s; p < e; p += 10_000) yield bytes.slice(p, Math.min(e, p + 10_000));
    },
    async verify(): Promise<boolean> {
      return true;
    },
  };
  return h;
}

function indexOf(src: HandleSource): IndexGetter {
  let p: Promise<LineIndex> | undefined;
  return async () => (p ??= LineIndex.build(src));
}

describe('inspector: message validation', () => {
  it('accepts every well-formed request', () => {
    const good = [
      { type: 'ready' },
      { type: 'problem', message: 'csp' },
      { type: 'refresh', id: 1 },
      { type: 'detail', id: 2, ref: { runId: 'r', callId: 'c', part: 'stdout' } },
      { type: 'fetchBytes', id: 3, handle: 'res_c', start: 0, end: 65536, snap: false },
      { type: 'fetchLines', id: 4, handle: 'res_c', offset: 0, count: 1000 },
      { type: 'findPattern', id: 5, handle: 'res_c', pattern: 'x'.repeat(1024), offset: 0, limit: 1000 },
      { type: 'copyText', id: 6, text: 'abc' },
      { type: 'copyExcerpt', id: 7, handle: 'res_c', range: { kind: 'bytes', start: 1, end: 2 } },
      { type: 'sendToChat', id: 8, handle: 'res_c', range: { kind: 'lines', offset: 3, count: 4 } },
      { type: 'verify', id: 9, handle: 'h'.repeat(256) },
      { type: 'openInEditor', id: 10, handle: 'res_c', byteOffset: 0 },
      { type: 'startAction', id: 11, action: 'captureDemo' },
      { type: 'searchOutputs', id: 12, pattern: 'ERROR', limit: 100 },
      { type: 'searchOutputs', id: 13, pattern: 'x', limit: 1, tool: 'shell', run: 'run-1' },
      { type: 'cancelSearch', searchId: 12 },
      { type: 'page', id: 14, offset: 0, limit: 1000, query: { order: 'newest' } },
      {
        type: 'page',
        id: 15,
        offset: 99_900,
        limit: 100,
        query: {
          order: 'largest',
          tool: 'run_command',
          run: 'run-1',
          outcome: 'failed',
          source: 'hook:claude',
          text: 'x'.repeat(1024),
        },
        facets: true,
      },
      { type: 'pickRuns', id: 16, text: '', limit: 200 },
      { type: 'pickRuns', id: 17, text: 'build', limit: 20 },
      { type: 'locate', id: 18, handle: 'out_abc-1_stdout' },
      { type: 'locate', id: 19, runId: 'run-1' },
      {
        type: 'locate',
        id: 21,
        handle: 'res_abc-1',
        query: {
          order: 'largest',
          tool: 'run_command',
          run: 'run-1',
          outcome: 'failed',
          source: 'hook:claude',
          text: 'x'.repeat(1024),
        },
      },
      { type: 'locate', id: 22, runId: 'run-1', query: { order: 'newest' } },
      { type: 'page', id: 23, offset: 0, limit: 100, query: { order: 'newest', source: 'team:ci-main_2.x' } },
      {
        type: 'compareWindows',
        id: 20,
        left: { handle: 'out_a', start: 0, end: 65536 },
        right: { handle: 'out_b', start: 7, end: 9 },
      },
    ];
    for (const m of good) assert.deepEqual(parseWebviewMessage(m), { ok: true, message: m }, JSON.stringify(m));
  });

  it('refuses bad shapes, types and bounds with an error naming the request id', () => {
    const bad: [unknown, number | null, string][] = [
      [null, null, 'not an object'],
      [[1], null, 'not an object'],
      [{ type: 7 }, null, '"type" must be a string'],
      [{ type: 'nope', id: 1 }, 1, 'unknown message type "nope"'],
      [{ type: 'refresh' }, null, '"id" must be a safe integer'],
      [{ type: 'refresh', id: -1 }, null, '"id" must be between 0'],
      [{ type: 'refresh', id: 1, extra: true }, 1, 'unexpected field "extra"'],
      [{ type: 'fetchBytes', id: 2, handle: 'h', start: 0, end: 65537, snap: false }, 2, 'at most 65536 bytes'],
      [{ type: 'fetchBytes', id: 2, handle: 'h', start: 5, end: 5, snap: false }, 2, '0 <= start < end'],
      [
        { type: 'fetchBytes', id: 2, handle: 'h', start: 0.5, end: 5, snap: false },
        2,
        '"start" must be a safe integer',
      ],
      [{ type: 'fetchBytes', id: 2, handle: 'h', start: 0, end: 5, snap: 'yes' }, 2, '"snap" must be a boolean'],
      [{ type: 'fetchBytes', id: 2, handle: '', start: 0, end: 5, snap: true }, 2, '"handle" must be 1–256 characters'],
      [{ type: 'fetchLines', id: 3, handle: 'h', offset: 0, count: 1001 }, 3, '"count" must be between 1 and 1000'],
      [{ type: 'findPattern', id: 4, handle: 'h', pattern: '', offset: 0, limit: 1 }, 4, '"pattern" must be 1–1024'],
      [
        { type: 'findPattern', id: 4, handle: 'h', pattern: 'x'.repeat(1025), offset: 0, limit: 1 },
        4,
        '"pattern" must be 1–1024',
      ],
      [{ type: 'copyText', id: 5, text: 'x'.repeat(1025) }, 5, '"text" must be 1–1024'],
      [{ type: 'copyExcerpt', id: 6, handle: 'h', range: { kind: 'all' } }, 6, '"range.kind"'],
      [
        { type: 'copyExcerpt', id: 6, handle: 'h', range: { kind: 'bytes', start: 0, end: 1, x: 1 } },
        6,
        'unexpected field "x"',
      ],
      [{ type: 'detail', id: 7, ref: { runId: 'r', callId: 'c' } }, 7, '"part" must be a string'],
      [
        { type: 'openInEditor', id: 8, handle: 'h', byteOffset: Number.MAX_SAFE_INTEGER + 2 },
        8,
        '"byteOffset" must be a safe integer',
      ],
      [{ type: 'ready', id: 1 }, 1, 'unexpected field "id"'],
      // The page names one of three actions, never a command id.
      [
        { type: 'startAction', id: 9, action: 'workbench.action.terminal.sendSequence' },
        9,
        '"action" must be runCommandAndCapture, importFile or captureDemo',
      ],
      [{ type: 'startAction', id: 9, action: 'captureDemo', args: ['x'] }, 9, 'unexpected field "args"'],
      // Search across outputs: bounded reply, bounded pattern, string scope only.
      [{ type: 'searchOutputs', id: 10, pattern: 'x', limit: 101 }, 10, '"limit" must be between 1 and 100'],
      [{ type: 'searchOutputs', id: 10, pattern: '', limit: 5 }, 10, '"pattern" must be 1–1024'],
      [{ type: 'searchOutputs', id: 10, pattern: 'x', limit: 5, tool: 3 }, 10, '"tool" must be a string'],
      [{ type: 'searchOutputs', id: 10, pattern: 'x', limit: 5, run: '' }, 10, '"run" must be 1–256'],
      [{ type: 'searchOutputs', id: 10, pattern: 'x', limit: 5, path: '/etc' }, 10, 'unexpected field "path"'],
      // List pages: bounded, filters from their sets, no field the host does not know.
      [
        { type: 'page', id: 11, offset: 0, limit: 1001, query: { order: 'newest' } },
        11,
        '"limit" must be between 1 and 1000',
      ],
      [{ type: 'page', id: 11, offset: -1, limit: 10, query: { order: 'newest' } }, 11, '"offset" must be between 0'],
      [{ type: 'page', id: 11, offset: 0, limit: 10 }, 11, '"query" must be an object'],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'random' } },
        11,
        '"query.order" must be "newest" or "largest"',
      ],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest', outcome: 'maybe' } },
        11,
        '"query.outcome" must be',
      ],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest', source: 'root' } },
        11,
        '"query.source" is not a known source',
      ],
      // A team store is a source by its name only: nothing else rides on `team:`.
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest', source: 'team:../ci' } },
        11,
        '"query.source" is not a known source',
      ],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest', text: '' } },
        11,
        '"text" must be 1–1024',
      ],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest', text: 'x'.repeat(1025) } },
        11,
        '"text" must be 1–1024',
      ],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest', run: 5 } },
        11,
        '"run" must be a string',
      ],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest', sql: '1=1' } },
        11,
        'unexpected field "sql"',
      ],
      [
        { type: 'page', id: 11, offset: 0, limit: 10, query: { order: 'newest' }, facets: 1 },
        11,
        '"facets" must be a boolean',
      ],
      [{ type: 'pickRuns', id: 12, text: 'x', limit: 201 }, 12, '"limit" must be between 1 and 200'],
      [{ type: 'pickRuns', id: 12, limit: 5 }, 12, '"text" must be a string'],
      [{ type: 'locate', id: 13 }, 13, 'needs exactly one of "handle" and "runId"'],
      [{ type: 'locate', id: 13, handle: 'res_a', runId: 'r' }, 13, 'needs exactly one of "handle" and "runId"'],
      [{ type: 'locate', id: 13, handle: 'h'.repeat(257) }, 13, '"handle" must be 1–256 characters'],
      // The list's query a reveal carries is checked as a page's is.
      [{ type: 'locate', id: 14, handle: 'res_a', query: 'newest' }, 14, '"query" must be an object'],
      [
        { type: 'locate', id: 14, handle: 'res_a', query: { order: 'oldest' } },
        14,
        '"query.order" must be "newest" or "largest"',
      ],
      [
        { type: 'locate', id: 14, handle: 'res_a', query: { order: 'newest', outcome: 'maybe' } },
        14,
        '"query.outcome" must be',
      ],
      [
        { type: 'locate', id: 14, handle: 'res_a', query: { order: 'newest', text: 'x'.repeat(1025) } },
        14,
        '"text" must be 1–1024',
      ],
      [
        { type: 'locate', id: 14, handle: 'res_a', query: { order: 'newest', offset: 3 } },
        14,
        'unexpected field "offset"',
      ],
      [{ type: 'locate', id: 14, handle: 'res_a', index: 3 }, 14, 'unexpected field "index"'],
      [{ type: 'cancelSearch', searchId: -1 }, null, '"searchId" must be between 0'],
      [{ type: 'cancelSearch', searchId: 1, id: 2 }, 2, 'unexpected field "id"'],
      // Compare: two byte windows of at most one panel window each, nothing else.
      [
        {
          type: 'compareWindows',
          id: 11,
          left: { handle: 'a', start: 0, end: 65537 },
          right: { handle: 'b', start: 0, end: 1 },
        },
        11,
        'at most 65536 bytes',
      ],
      [{ type: 'compareWindows', id: 11, left: { handle: 'a', start: 0, end: 1 } }, 11, '"right" must be an object'],
      [
        {
          type: 'compareWindows',
          id: 11,
          left: { handle: 'a', start: 0, end: 1 },
          right: { handle: '', start: 0, end: 1 },
        },
        11,
        '"handle" must be 1–256 characters',
      ],
      [
        {
          type: 'compareWindows',
          id: 11,
          left: { handle: 'a', start: 0, end: 1, uri: 'file:///etc/passwd' },
          right: { handle: 'b', start: 0, end: 1 },
        },
        11,
        'unexpected field "uri"',
      ],
      [
        {
          type: 'compareWindows',
          id: 11,
          left: { handle: 'a', start: 3, end: 2 },
          right: { handle: 'b', start: 0, end: 1 },
        },
        11,
        '0 <= start < end',
      ],
    ];
    for (const [m, id, text] of bad) {
      const r = parseWebviewMessage(m);
      assert.equal(r.ok, false, JSON.stringify(m));
      if (r.ok) continue;
      assert.equal(r.id, id, JSON.stringify(m));
      assert.ok(!r.error.startsWith('invalid message') && r.error.includes(text), `${JSON.stringify(m)} -> ${r.error}`);
    }
  });

  it('never throws, whatever arrives', () => {
    fc.assert(
      fc.property(fc.anything(), (m) => {
        parseWebviewMessage(m);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.record(
          {
            type: fc.constantFrom('fetchBytes', 'findPattern', 'copyExcerpt', 'detail'),
            id: fc.anything(),
            handle: fc.anything(),
            start: fc.anything(),
            end: fc.anything(),
            range: fc.anything(),
            ref: fc.anything(),
          },
          { requiredKeys: ['type'] },
        ),
        (m) => {
          const r = parseWebviewMessage(m);
          if (r.ok) assert.equal(r.message.type, m.type);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('publishes the contract caps', () => {
    assert.deepEqual(inspectorLimits, {
      maxWindowBytes: 65536,
      maxLines: 1000,
      maxMatches: 1000,
      maxPatternChars: 1024,
      maxHandleChars: 256,
      maxSearchMatches: 100,
    });
  });
});

describe('inspector: excerpts and hex dumps', () => {
  it('chooses a fence longer than any backtick run inside', () => {
    assert.equal(fenceFor('plain'), '```');
    assert.equal(fenceFor('a ``` b'), '````');
    assert.equal(fenceFor('`````x``'), '``````');
  });

  it('builds the fenced text and its provenance', () => {
    const bytes = enc.encode('a\n```\nb');
    const md = buildExcerpt({
      handle: 'res_c1',
      start: 10,
      end: 10 + bytes.length,
      totalBytes: 100,
      sha256: 'f'.repeat(64),
      bytes,
      text: 'a\n```\nb',
      encoding: 'text',
      firstLine: 4,
      lineSpan: 3,
    });
    assert.equal(
      md,
      [
        '````text',
        'a',
        '```',
        'b',
        '````',
        '',
        'Evidence excerpt (exact text):',
        '- handle: `res_c1`',
        `- range: bytes [10, ${10 + bytes.length}), lines 5–7`,
        `- excerpt: ${bytes.length} bytes, sha256 ${sha(bytes)}`,
        `- artifact: 100 bytes, sha256 ${'f'.repeat(64)}`,
        `- open: <vscode://bounded-evidence.bounded-evidence/open?handle=res_c1&bytes=10-${10 + bytes.length}>`,
        '',
      ].join('\n'),
    );
  });

  it('dumps bytes with absolute offsets and printable ASCII only', () => {
    const bytes = Uint8Array.from([
      0x3c, 0x73, 0x00, 0xff, 0x0a, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c,
    ]);
    assert.equal(
      hexDump(bytes, 0x1000),
      [
        '00001000  3c 73 00 ff 0a 41 42 43  44 45 46 47 48 49 4a 4b  |<s...ABCDEFGHIJK|',
        '00001010  4c                                                |L|',
      ].join('\n'),
    );
  });
});

describe('inspector: line index and windows', () => {
  // Lines of varying length crossing several 64 KiB strides, multi-byte characters included.
  const lines: string[] = [];
  for (let i = 0; i < 9000; i++) lines.push(`line ${i} ${'é€'.repeat(i % 17)}${'x'.repeat(i % 29)}`);
  const text = `${lines.join('\n')}\n`;
  const bytes = enc.encode(text);
  const starts: number[] = [];
  {
    let p = 0;
    for (const l of lines) {
      starts.push(p);
      p += enc.encode(l).length + 1;
    }
  }

  it('finds the exact byte range of any line window', async () => {
    assert.ok(bytes.length > 4 * lineIndexStride);
    const src = memHandle(bytes);
    const idx = await LineIndex.build(src);
    assert.equal(idx.lineCount, 9000);
    for (const [off, count] of [
      [0, 1],
      [1, 3],
      [4321, 10],
      [8990, 50],
      [8999, 1],
    ] as const) {
      const r = await idx.linesRange(off, count);
      const last = Math.min(off + count, 9000);
      assert.deepEqual(r, { start: starts[off], end: last === 9000 ? bytes.length : starts[last], lines: last - off });
    }
    assert.equal(await idx.linesRange(9000, 1), undefined);
    for (const line of [0, 1, 17, 5000, 8999]) {
      assert.equal(await idx.lineAt(starts[line]!), line);
      assert.equal(await idx.lineAt(starts[line]! + 3), line);
    }
    assert.equal(await idx.lineAt(bytes.length), 9000);
  });

  it('counts a last line without a newline, and an empty artifact', async () => {
    const a = await LineIndex.build(memHandle(enc.encode('a\nb')));
    assert.equal(a.lineCount, 2);
    assert.deepEqual(await a.linesRange(1, 5), { start: 2, end: 3, lines: 1 });
    const e = await LineIndex.build(memHandle(new Uint8Array(0)));
    assert.equal(e.lineCount, 0);
    assert.equal(await e.linesRange(0, 1), undefined);
  });

  it('returns exactly the requested bytes, with the line they start on', async () => {
    const src = memHandle(bytes);
    const w = await resolveBytes(src, starts[4321]!, starts[4321]! + 16384, true, indexOf(src));
    assert.equal(w.start, starts[4321]);
    assert.ok(w.end <= starts[4321]! + 16384 && w.end > starts[4321]! + 16380);
    assert.deepEqual(w.bytes, bytes.slice(w.start, w.end));
    assert.equal(w.text, new TextDecoder().decode(bytes.slice(w.start, w.end)));
    assert.equal(w.firstLine, 4321);
  });

  it('answers a range cutting a character with the contract sentence, or snaps it when asked', async () => {
    const src = memHandle(enc.encode('aé€b'));
    await assert.rejects(resolveBytes(src, 0, 2, false, indexOf(src)), { message: ErrorText.rangeNotUtf8 });
    const w = await resolveBytes(src, 2, 5, true, indexOf(src));
    assert.deepEqual([w.start, w.end, w.text], [3, 3 + 3, '€']);
    assert.match(w.note ?? '', /adjusted from \[2, 5\)/);
    // Past the end: the sentence gives the size, so the range can be corrected from it.
    await assert.rejects(resolveBytes(src, 0, 99, false, indexOf(src)), {
      message: 'byte 99 is past the end: the output holds 7 bytes',
    });
    await assert.rejects(resolveBytes(src, 7, 9, true, indexOf(src)), {
      message: 'byte 7 is past the end: the output holds 7 bytes',
    });
  });

  it('fetches line windows by exact byte position, cut to whole lines at the cap', async () => {
    const src = memHandle(bytes);
    const w = await resolveLines(src, 100, 5, 65536, indexOf(src));
    assert.deepEqual([w.start, w.end, w.firstLine, w.lineSpan, w.truncated], [starts[100], starts[105], 100, 5, false]);
    assert.equal(w.text, `${lines.slice(100, 105).join('\n')}\n`);
    const cut = await resolveLines(src, 0, 1000, 4096, indexOf(src));
    assert.equal(cut.truncated, true);
    assert.ok(cut.end - cut.start <= 4096);
    assert.equal(cut.text.endsWith('\n'), true);
    assert.equal(cut.text, new TextDecoder().decode(bytes.slice(0, cut.end)));
    const past = await resolveLines(src, 9000, 5, 65536, indexOf(src));
    assert.deepEqual([past.text, past.note], ['', 'past the end: the output has 9000 lines']);
  });

  it('reads only the window and one index pass, never the artifact per request', async () => {
    const src = memHandle(bytes);
    const get = indexOf(src);
    await get({ required: true });
    src.bytesRead = 0;
    await resolveLines(src, 8000, 10, 65536, get);
    assert.ok(src.bytesRead < 3 * lineIndexStride + 65536, `read ${src.bytesRead}`);
  });

  it('shows binary windows as a hex dump and refuses lines for them', async () => {
    const src = memHandle(Uint8Array.from([0, 1, 2, 0xff, 10, 0x41]), { binary: true });
    const w = await resolveBytes(src, 2, 6, true, indexOf(src));
    assert.deepEqual(
      [w.encoding, w.text],
      ['hex', '00000002  02 ff 0a 41                                       |...A|'],
    );
    await assert.rejects(resolveLines(src, 0, 1, 100, indexOf(src)), /binary content has no lines/);
  });
});

describe('inspector: mapping', () => {
  it('splits the preview into head and tail by their byte ranges', () => {
    const head = 'héad';
    const tail = 'tä';
    const preview = `${head}\n…[90 bytes omitted]…\n${tail}`;
    const size = 100;
    const p = splitPreview(
      preview,
      { headEnd: enc.encode(head).length, tailStart: size - enc.encode(tail).length },
      size,
    );
    assert.deepEqual(p, { text: preview, head, tail, headEnd: 5, tailStart: 97 });
    assert.deepEqual(splitPreview('whole', undefined, 5), { text: 'whole' });
    assert.deepEqual(splitPreview('short', { headEnd: 10, tailStart: 90 }, 100), { text: 'short' });
    // The error lines the first view showed (docs/contracts.md §2.13) travel with the preview, without the pattern.
    const errors = {
      total: 4,
      pattern: 'error TS\\d+',
      lines: [{ lineNumber: 12, byteOffset: 300, text: 'a.ts(1,1): error TS1: x', window: { start: 290, end: 313 } }],
    };
    assert.deepEqual(splitPreview(preview, { headEnd: 5, tailStart: 97 }, size, errors), {
      ...p,
      errorLines: { total: 4, lines: [{ lineNumber: 12, byteOffset: 300, text: 'a.ts(1,1): error TS1: x' }] },
    });
  });

  it('summarises arguments on one short line', () => {
    assert.equal(summarizeArgs({ command: 'ls' }), '{"command":"ls"}');
    assert.equal(summarizeArgs({ s: 'x'.repeat(500) }).length, 160);
  });
});
