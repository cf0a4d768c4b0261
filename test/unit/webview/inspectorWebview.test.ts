/** The webview's pure modules (no DOM): inert text segments, list rows, formatting. */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import type { CallDto, PageReply, RunDto } from '../../../src/shared/protocol.js';
import { CallsModel, PAGE_SIZE, queryOf } from '../../../webview/callsModel.js';
import { finishedDetail } from '../../../webview/finishedDetail.js';
import { exactAndHuman, exactBytes, humanBytes } from '../../../webview/format.js';
import { TextSegmenter, visibleControl } from '../../../webview/text.js';

const seg = (t: string): [string, string][] => new TextSegmenter().segments(t).map((s) => [s.text, s.cls]);

describe('inspector webview: tool output as inert, visible text', () => {
  it('keeps markup as literal text (it is only ever put into textContent)', () => {
    for (const t of [
      '<script>window.__pwned=1</script>',
      '<img src=x onerror="window.__pwned=1">',
      '[x](javascript:alert(1))',
      'javascript:alert(1)',
    ]) {
      assert.deepEqual(seg(t), [[t, '']]);
    }
  });

  it('shows NUL and other controls visibly, keeps tabs and newlines', () => {
    assert.deepEqual(seg('a\u0000b\tc\u0007\r'), [
      ['a', ''],
      ['␀', 'ctl'],
      ['b\tc', ''],
      ['␇␍', 'ctl'],
    ]);
    assert.deepEqual(seg('\u007f\u0085'), [['␡⟨U+0085⟩', 'ctl']]);
  });

  it('makes bidi overrides and zero-width characters visible instead of obeyed', () => {
    assert.deepEqual(seg('abc\u202Efed\u202C'), [
      ['abc', ''],
      ['⟨U+202E RLO⟩', 'ctl'],
      ['fed', ''],
      ['⟨U+202C PDF⟩', 'ctl'],
    ]);
    assert.deepEqual(seg('\u2066x\u2069\u200B\uFEFF'), [
      ['⟨U+2066 LRI⟩', 'ctl'],
      ['x', ''],
      ['⟨U+2069 PDI⟩⟨U+200B ZWSP⟩⟨U+FEFF BOM⟩', 'ctl'],
    ]);
  });

  it('renders ANSI colours as classes and drops every other escape sequence', () => {
    assert.deepEqual(seg('\u001b[31mred\u001b[0m plain \u001b[1;92mbold green\u001b[39;22m x'), [
      ['red', 'a-fg1'],
      [' plain ', ''],
      ['bold green', 'a-fg10 a-b'],
      [' x', ''],
    ]);
    // Cursor moves, screen clears, OSC 8 hyperlinks and titles are dropped, their text kept.
    assert.deepEqual(
      seg('a\u001b[2J\u001b[10;5Hb\u001b]8;;javascript:alert(1)\u0007link\u001b]8;;\u0007c\u001b]0;title\u001b\\d'),
      [['ablinkcd', '']],
    );
    // 256-colour and true-colour arguments are skipped, not read as other codes.
    assert.deepEqual(seg('\u001b[38;5;196mx\u001b[48;2;1;2;3my'), [['xy', '']]);
    // A lone or unterminated ESC stays visible.
    assert.deepEqual(seg('a\u001b'), [
      ['a', ''],
      ['␛', 'ctl'],
    ]);
    assert.deepEqual(seg('\u001b]8;;never-terminated'), [
      ['␛', 'ctl'],
      [']8;;never-terminated', ''],
    ]);
  });

  it('carries colour across lines, as the terminal did', () => {
    const s = new TextSegmenter();
    s.segments('\u001b[33mwarn');
    assert.deepEqual(s.segments('still yellow'), [{ text: 'still yellow', cls: 'a-fg3' }]);
  });

  it('never yields a control, bidi or escape character, and only known classes', () => {
    const classes = /^(ctl|(a-fg\d+|a-bg\d+|a-b|a-i|a-u)( (a-fg\d+|a-bg\d+|a-b|a-i|a-u))*)?$/;
    const alphabet = fc.constantFrom(
      'a',
      '<',
      '>',
      '"',
      '\u0000',
      '\u001b',
      '[',
      ']',
      ';',
      '3',
      '1',
      'm',
      '\u0007',
      '\\',
      '\u202e',
      '\u2067',
      '\u200b',
      '\ufeff',
      '\u0085',
      '\r',
      '\t',
      '\n',
      'é',
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')),
        (t) => {
          for (const s of new TextSegmenter().segments(t)) {
            assert.match(s.cls, classes);
            for (const ch of s.text) {
              const c = ch.codePointAt(0)!;
              if (c === 0x0a || c === 0x09) continue;
              assert.equal(
                visibleControl(c),
                undefined,
                `U+${c.toString(16)} reached the page in ${JSON.stringify(t)}`,
              );
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

function call(i: number, runId: string, extra: Partial<CallDto> = {}): CallDto {
  const t = new Date(Date.UTC(2025, 0, 1, 0, 0, 0, i)).toISOString();
  return {
    runId,
    callId: `c${i}`,
    tool: i % 3 === 0 ? 'shell' : 'read',
    argsSummary: `{"i":${i}}`,
    status: 'ok',
    startedAt: t,
    finishedAt: t,
    result: {
      name: 'result',
      handle: `res_c${i}`,
      sizeBytes: (i * 7919) % 10_007,
      sha256: i.toString(16).padStart(64, '0'),
      stored: 'blob',
      binary: false,
      readable: true,
    },
    attachments:
      i % 2 === 0
        ? [
            {
              name: 'stdout',
              handle: `out_c${i}_stdout`,
              sizeBytes: i,
              binary: false,
              readable: true,
              stored: 'inline',
            },
          ]
        : [],
    ...extra,
  };
}

const run = (runId: string, startedAt: string): RunDto => ({
  runId,
  startedAt,
  status: 'completed',
  pinned: false,
  callCount: 0,
  failedCalls: 0,
  totalBytes: 0,
  outputBytes: 0,
});

/** A page reply of calls `from .. from+n` (newest first: call numbers count down), runs a (even pages) and b. */
function reply(from: number, n: number, total: number, calls?: CallDto[]): PageReply {
  const list =
    calls ?? Array.from({ length: n }, (_, k) => call(total - 1 - (from + k), from + k < 150 ? 'run-b' : 'run-a'));
  return {
    type: 'page',
    id: 1,
    offset: from,
    total,
    all: total + 5,
    calls: list,
    runs: [run('run-a', '2025-01-01T00:00:00.000Z'), run('run-b', '2025-01-01T00:00:05.000Z')],
  };
}

describe('inspector webview: the calls list model over host pages', () => {
  it('lays out 100,000 calls from two pages: loading rows for the rest, made when asked for', () => {
    const m = new CallsModel();
    const total = 100_000;
    m.replace('q', [reply(0, PAGE_SIZE, total), reply(50_000, PAGE_SIZE, total)]);
    const rows = m.rows(new Set());
    // Page 0: run-b header, 100 calls, 50 stdout sub-rows; then 49,900 loading rows; page 500: header + 100 + 50; then the rest.
    const page0 = 1 + 100 + 50;
    assert.equal(rows.length, page0 + 49_900 + page0 + (total - 50_100));
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => rows.at(i).key),
      ['run:run-b:0', 'run-b/c99999', 'run-b/c99998', 'run-b/c99998#stdout'],
    );
    assert.deepEqual(
      [rows.at(page0).kind, rows.at(page0).index, rows.at(page0 + 49_899).index],
      ['pending', 100, 49_999],
    );
    assert.deepEqual([rows.at(page0 + 49_900).key, rows.at(page0 + 49_901).key], ['run:run-a:50000', 'run-a/c49999']);
    assert.deepEqual([rows.at(rows.length - 1).kind, rows.at(rows.length - 1).index], ['pending', 99_999]);
    assert.equal(rows.indexOfCall(50_000), page0 + 49_901);
    assert.equal(rows.indexOfCall(120), page0 + 20);
    assert.equal(rows.indexOfKey('run-a/c49999'), page0 + 49_901);
    assert.deepEqual([m.total, m.size, m.heldPages()], [total, total + 5, [0, 500]]);
    // No object per call not fetched: a loading row is made each time it is asked for, never held.
    assert.notEqual(rows.at(page0 + 10), rows.at(page0 + 10));
    assert.equal(rows.at(page0 + 10).key, rows.at(page0 + 10).key);
    // A loaded row is the one held.
    assert.equal(rows.at(1), rows.at(1));
  });

  it('a run header wherever the run changes between neighbouring calls, and collapsed runs hide their calls', () => {
    const m = new CallsModel();
    m.replace('q', [reply(100, PAGE_SIZE, 300)]);
    const keys = (collapsed: string[] = []): string[] => {
      const r = m.rows(new Set(collapsed));
      return Array.from({ length: r.length }, (_, i) => r.at(i).key);
    };
    const k = keys();
    // Calls 100–149 are run b's, 150–199 run a's.
    assert.deepEqual([k.slice(100, 103), k[103]], [['run:run-b:100', 'run-b/c199', 'run-b/c198'], 'run-b/c198#stdout']);
    assert.equal(k.filter((x) => x.startsWith('run:')).length, 2);
    assert.equal(k.indexOf('run:run-a:150'), 100 + 1 + 50 + 25);
    const folded = keys(['run-b']);
    assert.deepEqual(folded.slice(100, 103), ['run:run-b:100', 'run:run-a:150', 'run-a/c149']);
    const header = m.rows(new Set(['run-b'])).at(100);
    assert.ok(header.kind === 'run' && header.shown === 50 && header.collapsed);
  });

  it('takes pages of its own query only, and drops pages past a shrunk total', () => {
    const m = new CallsModel();
    m.replace('q1', [reply(0, PAGE_SIZE, 250)]);
    assert.equal(m.add('q2', reply(100, PAGE_SIZE, 250)), false);
    assert.equal(m.add('q1', reply(200, 50, 250)), true);
    assert.deepEqual(m.heldPages(), [0, 2]);
    // The list shrank to 120 calls: page 2 is gone, page 1 is short until asked.
    assert.equal(m.add('q1', reply(100, 20, 120)), true);
    assert.deepEqual(m.heldPages(), [0, 1]);
    m.replace('q3', [reply(0, 3, 3)]);
    assert.deepEqual([m.key, m.total, m.heldPages()], ['q3', 3, [0]]);
  });

  it('applies live records to held rows, never turning a finished call back to running, and says when to ask again', () => {
    const m = new CallsModel();
    m.replace('q', [reply(0, 2, 2, [call(1, 'run-a', { status: 'running' }), call(0, 'run-a')])]);
    // Held, same status: updated in place, nothing to ask.
    assert.equal(m.upsert([], [call(0, 'run-a', { argsSummary: 'new' })]), false);
    assert.equal(m.find({ runId: 'run-a', callId: 'c0', part: 'result' })?.call.argsSummary, 'new');
    // A finished call stays finished.
    assert.equal(m.upsert([], [call(0, 'run-a', { status: 'running' })]), false);
    assert.equal(m.find({ runId: 'run-a', callId: 'c0', part: 'result' })?.call.status, 'ok');
    // Finishing changes its status (it may leave a filter): ask again; its live sizes are dropped.
    m.applyLive([{ runId: 'run-a', callId: 'c1', stream: 'stdout', bytes: 5, tail: 'hello' }]);
    assert.deepEqual(m.liveOf('run-a', 'c1'), { stdout: { bytes: 5, tail: 'hello' } });
    assert.equal(m.upsert([], [call(1, 'run-a')]), true);
    assert.equal(m.liveOf('run-a', 'c1'), undefined);
    // Progress that arrives after the finish is dropped.
    m.applyLive([{ runId: 'run-a', callId: 'c1', stream: 'stdout', bytes: 9, tail: 'late' }]);
    assert.equal(m.liveOf('run-a', 'c1'), undefined);
    // A call not held (a new one): ask again.
    assert.equal(m.upsert([run('run-c', '2025-02-01T00:00:00.000Z')], [call(9, 'run-c', { status: 'running' })]), true);
    assert.equal(m.run('run-c')?.startedAt, '2025-02-01T00:00:00.000Z');
  });

  it('asks the host for the query the toolbar shows', () => {
    assert.deepEqual(queryOf({ tool: '', run: '', text: '  ', sort: 'time', outcome: '', source: '' }), {
      order: 'newest',
    });
    assert.deepEqual(
      queryOf({ tool: 'grep', run: 'r1', text: ' out_x ', sort: 'size', outcome: 'failed', source: 'hook' }),
      { order: 'largest', tool: 'grep', run: 'r1', outcome: 'failed', source: 'hook', text: 'out_x' },
    );
    assert.notEqual(
      CallsModel.keyOf(queryOf({ tool: 'a', run: '', text: '', sort: 'time' })),
      CallsModel.keyOf(queryOf({ tool: 'b', run: '', text: '', sort: 'time' })),
    );
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
    // Both only where they differ: never "46 bytes (46 bytes)".
    assert.equal(exactAndHuman(46), '46 bytes');
    assert.equal(exactAndHuman(3_162_168), '3,162,168 bytes (3.0 MiB)');
  });
});

describe('inspector webview: the detail of a call that finishes', () => {
  const result = { runId: 'r1', callId: 'c1', part: 'result' };
  const stdout = { runId: 'r1', callId: 'c1', part: 'stdout' };
  const other = { runId: 'r2', callId: 'c9', part: 'stdout' };
  const done = [{ runId: 'r1', callId: 'c1', status: 'completed' }];

  it('loads the selection again, not the part shown, when a reveal of the same call is still loading', () => {
    // Followed while running (its result shown), then revealed on its stdout as it ended: stdout wins.
    assert.deepEqual(finishedDetail(result, stdout, done), stdout);
    assert.deepEqual(finishedDetail(result, undefined, done), result);
  });

  it('loads nothing while the call runs, when another call finished, or when the selection moved on', () => {
    assert.equal(finishedDetail(result, stdout, [{ runId: 'r1', callId: 'c1', status: 'running' }]), undefined);
    assert.equal(finishedDetail(result, stdout, [{ runId: 'r2', callId: 'c9', status: 'completed' }]), undefined);
    assert.equal(finishedDetail(result, other, done), undefined);
    assert.equal(finishedDetail(undefined, stdout, done), undefined);
  });
});
