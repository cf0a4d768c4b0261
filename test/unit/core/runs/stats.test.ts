/**
 * Savings (docs/contracts.md §2.14): the figures `usage` reads from the catalog's rollup
 * equal sums computed here, independently, over the raw run logs, for a recorded set of
 * calls made the way people make them: a capture of a large output (the command line), a
 * small one (shown whole: saves nothing), a routed agent command through `keep` (large,
 * and small given back as written), a capped capture (bytes lost), and reads back by
 * handle. The exact bytes shown are the bytes the caller printed.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../../src/cli/main.js';
import type { CliIo } from '../../../../src/cli/io.js';
import { openSession } from '../../../../src/cli/session.js';
import { sinceOf, statsTable } from '../../../../src/cli/stats.js';
import { localDay, USAGE_DIMENSIONS, type UsageFigures, type UsageReport } from '../../../../src/core/index.js';
import { commandWordOf } from '../../../../src/core/runs/catalog/rows.js';

function collect(env: NodeJS.ProcessEnv = {}, cwd = os.tmpdir()): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    cwd,
    env,
    async out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
    async tee(_s: 'stdout' | 'stderr', c: Uint8Array) {
      io.stdout += Buffer.from(c).toString('utf8');
    },
    async readStdin() {
      return '';
    },
    onInterrupt() {
      /* none */
    },
    offInterrupt() {
      /* none */
    },
  };
  return io;
}

type Rec = Record<string, unknown> & { type: string; callId?: string };
interface Att {
  name: string;
  sizeBytes: number;
  observedBytes: number;
  truncated: boolean;
  readable: boolean;
  binary: boolean;
  previewRange?: { headEnd: number; tailStart: number };
}

/** Per-call figures from the raw records, written without the catalog's code. */
function independent(
  logsDir: string,
): { key: Record<'agent' | 'tool' | 'command' | 'day', string>; f: UsageFigures }[] {
  const out: { key: Record<'agent' | 'tool' | 'command' | 'day', string>; f: UsageFigures }[] = [];
  for (const name of readdirSync(logsDir).filter((n) => n.endsWith('.jsonl'))) {
    const recs = readFileSync(path.join(logsDir, name), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec);
    const src = (recs[0]!.source ?? { kind: 'tool' }) as { kind: string; agent?: string };
    for (const fin of recs.filter((r) => r.type === 'call_finished')) {
      const shown = recs.filter((r) => r.type === 'call_shown' && r.callId === fin.callId);
      const answers = shown.filter((r) => r.view === 'answer');
      const reads = shown.filter((r) => r.view === 'read');
      const atts = (fin.attachments as Att[]).filter((a) => a.name === 'stdout' || a.name === 'stderr');
      let outBytes: number;
      let kept: number;
      let lost: number;
      let whole: boolean;
      if (atts.length) {
        outBytes = atts.reduce((s, a) => s + a.observedBytes, 0);
        kept = atts.reduce((s, a) => s + (a.readable ? a.sizeBytes : 0), 0);
        lost = atts.reduce((s, a) => s + (a.observedBytes - a.sizeBytes), 0);
        whole = atts.every(
          (a) => a.observedBytes === 0 || (!a.truncated && !a.binary && a.readable && a.previewRange === undefined),
        );
      } else {
        outBytes = fin.resultBytes as number;
        kept = outBytes;
        lost = 0;
        whole = fin.elided === false;
      }
      whole ||= answers.some((a) => a.whole === true);
      const shownBytes = answers.reduce((s, r) => s + (r.bytes as number), 0);
      const readBytes = reads.reduce((s, r) => s + (r.bytes as number), 0);
      const saved = whole || answers.length === 0 ? 0 : Math.max(0, outBytes - shownBytes - readBytes);
      const line = (fin.arguments as { command?: unknown }).command;
      // The first word that is not an assignment, without its folder.
      const command =
        typeof line === 'string'
          ? (
              line
                .trim()
                .split(/\s+/)
                .find((w) => !w.includes('=')) ?? ''
            ).replace(/^.*\//, '')
          : '';
      out.push({
        key: {
          agent: src.agent ?? src.kind,
          tool: fin.tool as string,
          command,
          day: localDay(Date.parse(fin.startedAt as string)),
        },
        f: {
          outputs: 1,
          outputBytes: outBytes,
          keptBytes: kept,
          lostOutputs: lost > 0 ? 1 : 0,
          lostBytes: lost,
          shownOutputs: answers.length > 0 ? 1 : 0,
          shownBytes,
          wholeOutputs: whole ? 1 : 0,
          reads: reads.length,
          readBytes,
          recalledOutputs: reads.length > 0 ? 1 : 0,
          savedBytes: saved,
          unreachedOutputs: answers.length === 0 && reads.length === 0 ? 1 : 0,
          unreachedBytes: answers.length === 0 && reads.length === 0 ? outBytes : 0,
        },
      });
    }
  }
  return out;
}

function sum(fs: UsageFigures[]): UsageFigures {
  const o: Record<string, number> = {};
  for (const f of fs) for (const [k, v] of Object.entries(f)) o[k] = (o[k] ?? 0) + v;
  return o as unknown as UsageFigures;
}

describe('savings (usage) against the raw records', function () {
  this.timeout(120_000);
  let dir: string;
  let storage: string;
  let work: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-stats-'));
    storage = path.join(dir, 'storage');
    work = path.join(dir, 'work');
    mkdirSync(work);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A spool as the hook leaves it, then `keep` as the routed command line runs it. */
  async function routed(command: string, stdout: string, agent = 'claude'): Promise<string> {
    const spool = path.join(storage, 'evidence', 'spool', `s${Math.random().toString(36).slice(2)}`);
    mkdirSync(spool, { recursive: true });
    writeFileSync(path.join(spool, '1'), stdout);
    writeFileSync(path.join(spool, '2'), '');
    writeFileSync(path.join(spool, 'command'), command);
    writeFileSync(
      path.join(spool, 'meta.json'),
      JSON.stringify({ agent, sessionId: 'sess-1', routedAt: new Date().toISOString(), cwd: work }),
    );
    const io = collect({}, work);
    assert.equal(await runCli(['keep', spool, '0', '4096'], io, []), 0, io.stderr);
    return io.stdout;
  }

  it('equals the sums over the logs, per agent, tool, command and day, and the bytes printed', async () => {
    const cli = async (...argv: string[]): Promise<{ code: number; stdout: string }> => {
      const io = collect({ BOUNDED_EVIDENCE_STORAGE: storage }, work);
      const code = await runCli(argv, io, []);
      return { code, stdout: io.stdout };
    };
    // A large capture (elided: an observation with handles) and a small one (shown whole).
    const big = await cli('capture', '--shell', 'seq 1 30000');
    assert.equal(big.code, 0);
    const small = await cli('capture', '--shell', 'echo hi');
    assert.equal(small.stdout.includes('hi\n'), true);
    // Routed through keep: a large output (observation) and a small one (given back as written).
    const routedBig = await routed('npm test', 'x'.repeat(50_000) + '\nFAIL line\n');
    assert.match(routedBig, /handle out_/);
    const routedSmall = await routed('FOO=1 ./node_modules/.bin/tsc -p .', 'ok\n');
    assert.equal(routedSmall, 'ok\n');
    // A capped capture: bytes past the cap are lost, and the answer says so.
    const session = await openSession(storage);
    const run = await session.runs.startRun({ source: { kind: 'mcp' } });
    const capped = await run.runCommand('seq 1 100000', { cwd: work, captureCapBytes: 10_000 });
    await session.runs.recordShown({ view: 'answer', runId: run.runId, callId: capped.callId, text: capped.modelText });
    await run.finish();
    assert.match(capped.modelText, /let go/);
    // Reads back by handle (the command line's read: the reply read_tool_output gives a model).
    const bigHandle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(big.stdout)![1]!;
    const routedHandle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(routedBig)![1]!;
    const r1 = await cli('read', bigHandle, '--pattern', '^2999[0-9]$');
    const r2 = await cli('read', routedHandle, '--pattern', 'FAIL');
    const r3 = await cli('read', routedHandle, '--offset', '1', '--limit', '1');
    assert.deepEqual([r1.code, r2.code, r3.code], [0, 0, 0]);
    // A refused read notes nothing.
    assert.equal((await cli('read', 'out_nope-1_stdout')).code, 1);

    const report = await session.runs.usage({ by: 'command' });
    const logsDir = path.join(session.storage.logsDir, session.storage.tenant);
    const calls = independent(logsDir);
    assert.equal(calls.length, 5);
    assert.deepEqual(report.total, sum(calls.map((c) => c.f)));
    // The exact bytes: what each caller printed is what was counted as shown.
    const byte = (s: string): number => Buffer.byteLength(s, 'utf8');
    assert.equal(
      report.total.shownBytes,
      byte(big.stdout) + byte(small.stdout) + byte(routedBig) + byte(routedSmall) + byte(capped.modelText),
    );
    assert.equal(report.total.readBytes, byte(r1.stdout) + byte(r2.stdout) + byte(r3.stdout) - 3);
    assert.equal(report.total.reads, 3);
    assert.equal(report.total.recalledOutputs, 2);
    assert.equal(report.total.lostOutputs, 1);
    assert.equal(report.total.wholeOutputs, 2);
    // Saved: the two large outputs less every byte shown of them; the capped one less its answer; whole ones nothing.
    const bigOut = byte(Array.from({ length: 30000 }, (_, i) => `${i + 1}\n`).join(''));
    const routedOut = 50_000 + byte('\nFAIL line\n');
    const cappedOut = byte(Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(''));
    assert.equal(
      report.total.savedBytes,
      bigOut -
        byte(big.stdout) -
        (byte(r1.stdout) - 1) +
        (routedOut - byte(routedBig) - (byte(r2.stdout) + byte(r3.stdout) - 2)) +
        (cappedOut - byte(capped.modelText)),
    );
    for (const by of USAGE_DIMENSIONS) {
      const r = await session.runs.usage({ by });
      const want = new Map<string, UsageFigures[]>();
      for (const c of calls) want.set(c.key[by], [...(want.get(c.key[by]) ?? []), c.f]);
      const got = Object.fromEntries(r.groups.filter((g) => g.outputs > 0).map(({ key, ...f }) => [key, f]));
      assert.deepEqual(got, Object.fromEntries([...want].map(([k, fs]) => [k, sum(fs)])), by);
    }
    assert.deepEqual(
      Object.keys(Object.fromEntries((await session.runs.usage({ by: 'agent' })).groups.map((g) => [g.key, 1]))).sort(),
      ['claude', 'cli', 'mcp'],
    );
    assert.deepEqual((await session.runs.usage({ by: 'command' })).groups.map((g) => g.key).sort(), [
      'echo',
      'npm',
      'seq',
      'tsc',
    ]);
    // A range that ends before the calls holds nothing.
    const before = await session.runs.usage({ untilMs: Date.now() - 2 * 3_600_000 });
    assert.equal(before.total.outputs, 0);
    // The command line's --json is the same report.
    const json = await cli('stats', '--json', '--by', 'agent', '--since', 'all');
    assert.deepEqual((JSON.parse(json.stdout) as UsageReport).total, report.total);
    const table = await cli('stats', '--since', '7d');
    assert.equal(table.code, 0);
    assert.match(table.stdout, /^Bounded Evidence savings, last 7d/);
    assert.match(table.stdout, /\nnpm +1 +/);
  });

  it('survives a rebuild from the logs: the rollup is made from the same rows', async () => {
    const session = await openSession(storage);
    const run = await session.runs.startRun();
    const o = await run.runCommand('seq 1 20000', { cwd: work });
    await session.runs.recordShown({ view: 'answer', runId: run.runId, callId: o.callId, text: o.modelText });
    await session.runs.recordShown({ view: 'read', handle: o.record.attachments[0]!.handle, text: 'abc' });
    await run.finish();
    const before = await session.runs.usage();
    session.runs.close();
    const db = path.join(session.storage.logsDir, session.storage.tenant, '.catalog.sqlite');
    rmSync(db);
    const again = await openSession(storage, { maintenance: true });
    await again.runs.catalogSettled();
    assert.deepEqual((await again.runs.usage()).total, before.total);
    assert.equal(before.total.reads, 1);
    assert.equal(before.total.readBytes, 3);
    again.runs.close();
  });

  it('bad input: a clear error, nothing changed', async () => {
    const session = await openSession(storage);
    await assert.rejects(session.runs.usage({ by: 'week' as never }), /by must be one of agent, tool, command, day/);
    await assert.rejects(session.runs.usage({ sinceMs: -1 }), /sinceMs must be a time/);
    await assert.rejects(session.runs.usage({ limit: 0 }), /limit must be an integer from 1 to 1000/);
    assert.throws(() => sinceOf('yesterday', Date.now()), /--since must be like/);
    const io = collect({ BOUNDED_EVIDENCE_STORAGE: storage });
    assert.equal(await runCli(['stats', '--by', 'week'], io, []), 2);
    assert.equal(io.stderr, 'bounded-evidence stats: --by must be one of agent, tool, command, day\n');
    // A read of an unknown handle notes nothing; an empty store reports zeros.
    await session.runs.recordShown({ view: 'read', handle: 'res_nope-1', text: 'x' });
    const r = await session.runs.usage({ by: 'day', sinceMs: Date.now() - 3 * 86_400_000 });
    assert.equal(r.total.outputs, 0);
    assert.ok(r.groups.length >= 3 && r.groups.length <= 5, String(r.groups.length));
    assert.match(statsTable(await session.runs.usage(), 'all time'), /Nothing recorded in this range/);
  });

  it('command words', () => {
    assert.equal(commandWordOf('npm test'), 'npm');
    assert.equal(commandWordOf('  FOO=1 BAR=2 /usr/bin/pytest -q'), 'pytest');
    assert.equal(commandWordOf('cd packages/a && tsc -p .'), 'tsc');
    assert.equal(commandWordOf(undefined), '');
  });
});
