/** The webview's pure modules (no DOM): inert text segments, list rows, formatting. */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import type { CallDto, RunDto } from '../../src/shared/protocol.js';
import { CallsModel, type Filters } from '../../webview/callsModel.js';
import { exactBytes, humanBytes } from '../../webview/format.js';
import { TextSegmenter, visibleControl } from '../../webview/text.js';

const seg = (t: string): [string, string][] => new TextSegmenter().segments(t).map((s) => [s.text, s.cls]);

describe('inspector webview: tool output as inert, visible text', () => {
  it('keeps markup as literal text (it is only ever put into textContent)', () => {
    for (const t of ['<script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=1">', '[x](javascript:alert(1))', 'javascript:alert(1)']) {
      assert.deepEqual(seg(t), [[t, '']]);
    }
  });

  it('shows NUL and other controls visibly, keeps tabs and newlines', () => {
    assert.deepEqual(seg('a\u0000b\tc\u0007\r'), [['a', ''], ['␀', 'ctl'], ['b\tc', ''], ['␇␍', 'ctl']]);
    assert.deepEqual(seg('\u007f\u0085'), [['␡⟨U+0085⟩', 'ctl']]);
  });

  it('makes bidi overrides and zero-width characters visible instead of obeyed', () => {
    assert.deepEqual(seg('abc\u202Efed\u202C'), [['abc', ''], ['⟨U+202E RLO⟩', 'ctl'], ['fed', ''], ['⟨U+202C PDF⟩', 'ctl']]);
    assert.deepEqual(seg('\u2066x\u2069\u200B\uFEFF'), [['⟨U+2066 LRI⟩', 'ctl'], ['x', ''], ['⟨U+2069 PDI⟩⟨U+200B ZWSP⟩⟨U+FEFF BOM⟩', 'ctl']]);
  });

  it('renders ANSI colours as classes and drops every other escape sequence', () => {
    assert.deepEqual(seg('\u001b[31mred\u001b[0m plain \u001b[1;92mbold green\u001b[39;22m x'), [
      ['red', 'a-fg1'], [' plain ', ''], ['bold green', 'a-fg10 a-b'], [' x', ''],
    ]);
    // Cursor moves, screen clears, OSC 8 hyperlinks and titles are dropped, their text kept.
    assert.deepEqual(seg('a\u001b[2J\u001b[10;5Hb\u001b]8;;javascript:alert(1)\u0007link\u001b]8;;\u0007c\u001b]0;title\u001b\\d'), [['ablinkcd', '']]);
    // 256-colour and true-colour arguments are skipped, not read as other codes.
    assert.deepEqual(seg('\u001b[38;5;196mx\u001b[48;2;1;2;3my'), [['xy', '']]);
    // A lone or unterminated ESC stays visible.
    assert.deepEqual(seg('a\u001b'), [['a', ''], ['␛', 'ctl']]);
    assert.deepEqual(seg('\u001b]8;;never-terminated'), [['␛', 'ctl'], [']8;;never-terminated', '']]);
  });

  it('carries colour across lines, as the terminal did', () => {
    const s = new TextSegmenter();
    s.segments('\u001b[33mwarn');
    assert.deepEqual(s.segments('still yellow'), [{ text: 'still yellow', cls: 'a-fg3' }]);
  });

  it('never yields a control, bidi or escape character, and only known classes', () => {
    const classes = /^(ctl|(a-fg\d+|a-bg\d+|a-b|a-i|a-u)( (a-fg\d+|a-bg\d+|a-b|a-i|a-u))*)?$/;
    const alphabet = fc.constantFrom('a', '<', '>', '"', '\u0000', '\u001b', '[', ']', ';', '3', '1', 'm', '\u0007', '\\', '\u202e', '\u2067', '\u200b', '\ufeff', '\u0085', '\r', '\t', '\n', 'é');
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')), (t) => {
      for (const s of new TextSegmenter().segments(t)) {
        assert.match(s.cls, classes);
        for (const ch of s.text) {
          const c = ch.codePointAt(0)!;
          if (c === 0x0a || c === 0x09) continue;
          assert.equal(visibleControl(c), undefined, `U+${c.toString(16)} reached the page in ${JSON.stringify(t)}`);
        }
      }
    }), { numRuns: 3000 });
  });
});

function call(i: number, runId: string, extra: Partial<CallDto> = {}): CallDto {
  const t = new Date(Date.UTC(2025, 0, 1, 0, 0, 0, i)).toISOString();
  return {
    runId, callId: `c${i}`, tool: i % 3 === 0 ? 'shell' : 'read', argsSummary: `{"i":${i}}`, status: 'ok', startedAt: t, finishedAt: t,
    result: { name: 'result', handle: `res_c${i}`, sizeBytes: (i * 7919) % 10_007, sha256: i.toString(16).padStart(64, '0'), stored: 'blob', binary: false, readable: true },
    attachments: i % 2 === 0 ? [{ name: 'stdout', handle: `out_c${i}_stdout`, sizeBytes: i, binary: false, readable: true, stored: 'inline' }] : [],
    ...extra,
  };
}

const run = (runId: string, startedAt: string): RunDto => ({ runId, startedAt, status: 'completed', pinned: false, callCount: 0, totalBytes: 0 });
const all: Filters = { tool: '', run: '', text: '', sort: 'time' };

describe('inspector webview: the calls list model', () => {
  it('groups 10,000 calls by run, newest first, with attachments as sub-rows, quickly', () => {
    const m = new CallsModel();
    const calls = Array.from({ length: 10_000 }, (_, i) => call(i, i < 5000 ? 'run-a' : 'run-b'));
    m.setAll([run('run-a', '2025-01-01T00:00:00.000Z'), run('run-b', '2025-01-01T00:00:05.000Z')], calls);
    const t0 = performance.now();
    const rows = m.rows(all, new Set());
    const ms = performance.now() - t0;
    assert.equal(rows.length, 2 + 10_000 + 5000);
    assert.deepEqual(rows.slice(0, 4).map((r) => r.key), ['run:run-b', 'run-b/c9999', 'run-b/c9998', 'run-b/c9998#stdout']);
    assert.equal(rows[1 + 5000 + 2500]!.key, 'run:run-a');
    assert.ok(ms < 500, `rows took ${ms} ms`);
  });

  it('filters by tool, run and text, sorts by size, and collapses runs', () => {
    const m = new CallsModel();
    m.setAll([run('run-a', '2025-01-01T00:00:00.000Z'), run('run-b', '2025-01-02T00:00:00.000Z')], [call(1, 'run-a'), call(2, 'run-a'), call(3, 'run-b'), call(4, 'run-b')]);
    const keys = (f: Partial<Filters>, collapsed: string[] = []): string[] => m.rows({ ...all, ...f }, new Set(collapsed)).map((r) => r.key);
    assert.deepEqual(keys({ tool: 'shell' }), ['run:run-b', 'run-b/c3']);
    assert.deepEqual(keys({ run: 'run-a' }), ['run:run-a', 'run-a/c2', 'run-a/c2#stdout', 'run-a/c1']);
    assert.deepEqual(keys({ text: 'OUT_C4' }), ['run:run-b', 'run-b/c4', 'run-b/c4#stdout']);
    assert.deepEqual(keys({ text: '0'.repeat(63) + '1' }), ['run:run-a', 'run-a/c1']);
    // Sizes: c1 7919, c2 5831, c3 3743, c4 1655 (mod 10007): the largest call's run comes first.
    assert.deepEqual(keys({ sort: 'size' }), ['run:run-a', 'run-a/c1', 'run-a/c2', 'run-a/c2#stdout', 'run:run-b', 'run-b/c3', 'run-b/c4', 'run-b/c4#stdout']);
    assert.deepEqual(keys({}, ['run-b']), ['run:run-b', 'run:run-a', 'run-a/c2', 'run-a/c2#stdout', 'run-a/c1']);
    // A run with no calls (yet) shows as a header, unless a tool or text filter is on.
    m.upsert([run('run-c', '2025-01-03T00:00:00.000Z')], []);
    assert.deepEqual(keys({ run: 'run-c' }), ['run:run-c']);
    assert.deepEqual(keys({}).slice(0, 2), ['run:run-c', 'run:run-b']);
    assert.deepEqual(keys({ tool: 'shell' }), ['run:run-b', 'run-b/c3']);
  });

  it('applies live upserts, never turning a finished call back into a running one', () => {
    const m = new CallsModel();
    m.setAll([], [call(1, 'run-a')]);
    m.upsert([], [call(1, 'run-a', { status: 'running' }), call(2, 'run-a', { status: 'running' })]);
    assert.deepEqual(m.rows(all, new Set()).map((r) => (r.kind === 'call' ? r.call.status : r.kind)), ['run', 'running', 'part', 'ok']);
    m.upsert([], [call(2, 'run-a')]);
    assert.equal(m.find({ runId: 'run-a', callId: 'c2', part: 'result' })?.call.status, 'ok');
    assert.deepEqual(m.findHandle('out_c2_stdout'), { runId: 'run-a', callId: 'c2', part: 'stdout' });
    assert.deepEqual(m.newestOfRun('run-a'), { runId: 'run-a', callId: 'c2', part: 'result' });
  });
});

describe('inspector webview: sizes', () => {
  it('shows human and exact sizes', () => {
    assert.equal(exactBytes(5_242_880), '5,242,880 bytes');
    assert.equal(exactBytes(1), '1 byte');
    assert.equal(humanBytes(5_242_880), '5.0 MiB');
    assert.equal(humanBytes(1023), '1,023 bytes');
    assert.equal(humanBytes(1536), '1.5 KiB');
    assert.equal(humanBytes(200 * 1024 * 1024), '200 MiB');
  });
});
