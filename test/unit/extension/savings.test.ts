/**
 * The Savings view's host side and the status bar's words, without an editor: every message
 * the page may send is validated (a webview is untrusted), the report is the core's figures,
 * and the status bar's text, tooltip and label are exact.
 */
import * as assert from 'node:assert/strict';
import { EMPTY_FIGURES, type UsageFigures, type UsageQuery, type UsageReport } from '../../../src/core/index.js';
import { parseSavingsMessage, savingsReport } from '../../../src/extension/savings/savingsMessages.js';
import { savedShare, savedWords } from '../../../src/shared/savedWords.js';
import { formatBytes } from '../../../src/shared/bytes.js';
import { savingsLine, statusTexts } from '../../../src/extension/views/statusText.js';

const week: UsageFigures = {
  ...EMPTY_FIGURES,
  outputs: 3,
  outputBytes: 3 * 1024 * 1024,
  shownBytes: 2048,
  reads: 2,
  readBytes: 900,
  savedBytes: 3 * 1024 * 1024 - 2948,
  lostOutputs: 1,
};

describe('Savings view host side and status bar words', () => {
  it('accepts ready and the offered ranges only; anything else is refused with a reason', () => {
    assert.deepEqual(parseSavingsMessage({ type: 'ready' }), { ok: true, message: { type: 'ready' } });
    assert.deepEqual(parseSavingsMessage({ type: 'range', days: 30 }), {
      ok: true,
      message: { type: 'range', days: 30 },
    });
    assert.deepEqual(parseSavingsMessage({ type: 'range', days: 8 }), {
      ok: false,
      error: '"days" must be one of 7, 30, 90',
    });
    assert.deepEqual(parseSavingsMessage({ type: 'range', days: '7' }), {
      ok: false,
      error: '"days" must be one of 7, 30, 90',
    });
    assert.deepEqual(parseSavingsMessage({ type: 'ready', html: '<b>' }), {
      ok: false,
      error: 'unexpected field "html"',
    });
    assert.deepEqual(parseSavingsMessage({ type: 'delete' }), { ok: false, error: 'unknown message type' });
    assert.deepEqual(parseSavingsMessage(null), { ok: false, error: 'a message must be an object' });
    assert.deepEqual(parseSavingsMessage([]), { ok: false, error: 'a message must be an object' });
  });

  it("reports the core's figures: days in order, top commands by saved and by reads", async () => {
    const asked: UsageQuery[] = [];
    const g = (key: string, f: Partial<UsageFigures>): UsageReport['groups'][number] => ({
      ...EMPTY_FIGURES,
      ...f,
      key,
    });
    const runs = {
      async usage(q: UsageQuery): Promise<UsageReport> {
        asked.push(q);
        const groups =
          q.by === 'day'
            ? [g('2026-11-30', {}), g('2026-12-01', { outputs: 1, outputBytes: 10 })]
            : [
                g('npm', { outputs: 2, savedBytes: 500, reads: 1 }),
                g('tsc', { outputs: 1, savedBytes: 100, reads: 4 }),
                g('echo', { outputs: 1 }),
              ];
        return {
          by: q.by!,
          since: '2026-11-25T10:00:00.000Z',
          until: '2026-12-02T10:00:00.000Z',
          total: { ...EMPTY_FIGURES, outputs: 4 },
          groups,
          more: 0,
        };
      },
    };
    const r = await savingsReport(runs, 7, Date.parse('2026-12-02T10:00:00Z'));
    assert.deepEqual(
      asked.map((q) => [q.by, q.sinceMs, q.untilMs]),
      [
        ['day', Date.parse('2026-11-25T10:00:00Z'), Date.parse('2026-12-02T10:00:00Z')],
        ['command', Date.parse('2026-11-25T10:00:00Z'), Date.parse('2026-12-02T10:00:00Z')],
      ],
    );
    assert.equal(r.type, 'report');
    if (r.type !== 'report') return;
    assert.deepEqual(
      r.byDay.map((d) => d.key),
      ['2026-11-30', '2026-12-01'],
    );
    assert.deepEqual(
      r.topSaved.map((d) => d.key),
      ['npm', 'tsc'],
    );
    assert.deepEqual(
      r.topRecalled.map((d) => [d.key, d.reads]),
      [
        ['tsc', 4],
        ['npm', 1],
      ],
    );
    assert.equal(r.total.outputs, 4);
  });

  it("status bar: counts from the catalog's totals, the week's savings in tooltip and label", () => {
    const t = statusTexts({ runs: 23, bytes: 5 * 1024 * 1024, calls: 23 }, week, 0);
    assert.equal(t.text, '$(database) 23 runs · 5.0 MiB');
    assert.equal(
      t.tooltip,
      'Bounded Evidence: 23 runs · 5.0 MiB (23 calls) of evidence stored. Last 7 days: 3 outputs (3.0 MiB); a model was shown 2.0 KiB and read back 900 bytes in 2 reads; saved 3.0 MiB; 1 output lost bytes past a cap. Click to open the inspector.',
    );
    assert.equal(
      t.label,
      'Bounded Evidence: 23 runs · 5.0 MiB stored. Last 7 days: 3 outputs (3.0 MiB); a model was shown 2.0 KiB and read back 900 bytes in 2 reads; saved 3.0 MiB; 1 output lost bytes past a cap. Open the inspector.',
    );
    assert.equal(statusTexts({ runs: 1, bytes: 10 }, undefined, 2).text, '$(sync~spin) Capturing… · 1 run · 10 bytes');
    assert.equal(savingsLine(EMPTY_FIGURES), 'No outputs recorded in the last 7 days.');
    // Nothing stored is said so, not as "0 runs · 4.0 KiB" (the catalog's own bytes).
    // With team stores each figure says whose it is: bytes and the week are local, team runs counted apart.
    const withTeam = statusTexts({ runs: 23, bytes: 5 * 1024 * 1024, calls: 23, teamRuns: 4, teamCalls: 9 }, week, 0);
    assert.equal(withTeam.text, '$(database) 23 local runs · 5.0 MiB · 4 team runs');
    assert.equal(
      withTeam.tooltip,
      'Bounded Evidence: 23 local runs · 5.0 MiB (23 calls) of evidence stored. 4 team runs (9 calls) listed read-only from team stores. Local, last 7 days: 3 outputs (3.0 MiB); a model was shown 2.0 KiB and read back 900 bytes in 2 reads; saved 3.0 MiB; 1 output lost bytes past a cap. Click to open the inspector.',
    );
    assert.equal(
      statusTexts({ runs: 0, bytes: 4096, calls: 0, teamRuns: 1, teamCalls: 1 }, undefined, 0).text,
      '$(database) No local runs · 1 team run',
    );
    const none = statusTexts({ runs: 0, bytes: 4096, calls: 0 }, EMPTY_FIGURES, 0);
    assert.equal(none.text, '$(database) Nothing stored');
    assert.match(none.tooltip, /^Bounded Evidence: no evidence stored\./);
  });

  it("the saved sentence states its denominator and counts a person's own captures apart", () => {
    // One agent's output of 1 MiB, 1.5 KiB of it shown; two captures of a person (14 MiB) no model reached.
    const f = {
      outputs: 3,
      outputBytes: 15 * 1024 * 1024,
      savedBytes: 1024 * 1024 - 1536,
      unreachedOutputs: 2,
      unreachedBytes: 14 * 1024 * 1024,
    };
    assert.equal(
      savedWords(f, formatBytes),
      "1023 KiB (99.9% of the 1.0 MiB of output a model reached; 14 MiB in 2 outputs no model reached (a person's own captures) counted apart)",
    );
    assert.equal(savedShare(f), '99.9%');
    // Every output reached a model: nothing to count apart.
    assert.equal(
      savedWords({ ...f, outputs: 1, outputBytes: 1024 * 1024, unreachedOutputs: 0, unreachedBytes: 0 }, formatBytes),
      '1023 KiB (99.9% of the 1.0 MiB of output a model reached)',
    );
    // A person's own captures only: nothing reached a model, and that is the sentence (not "0 bytes (0.0%)").
    assert.equal(
      savedWords({ ...f, savedBytes: 0, unreachedOutputs: 3, unreachedBytes: f.outputBytes }, formatBytes),
      "0 bytes: none of the 3 outputs (15 MiB) reached a model; a person's own captures save nothing",
    );
    assert.equal(savedShare({ ...f, unreachedBytes: f.outputBytes, savedBytes: 0 }), '–');
    assert.equal(savedWords({ ...f, outputs: 0 }, formatBytes), '0 bytes: nothing was recorded in this range');
  });
});
