/**
 * The command line (src/cli): every subcommand and its exit codes, in the process with
 * the real stores on a temporary storage folder (`runCli` with an io that collects what
 * is printed), and as a separate process (`node --import tsx src/cli/main.ts`) for the
 * hook's rewritten command run by /bin/sh, signals, and a 1 GB output in bounded memory.
 * Texts are compared with what the MCP server's evidence_runCommand and the core's
 * read_tool_output reply give on the same storage.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { runCli } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/io.js';
import { openSession } from '../../../src/cli/session.js';
import { NODE_FLAGS } from '../../../src/core/reach/shim.js';
import { createEvidenceMcpServer } from '../../../src/mcp/server.js';
import { readFitted } from '../../../src/core/index.js';

const REPO = path.resolve(__dirname, '..', '..', '..');
const MAIN = path.join(REPO, 'src', 'cli', 'main.ts');
/** tsx's loader by path: the CLI runs in folders where the bare name `tsx` does not resolve. */
const TSX = pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const sha = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** An io that collects stdout and stderr; stdin is given. */
function collect(
  over: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): CliIo & { stdout: string; stderr: string; teed: Buffer[] } {
  const io = {
    stdout: '',
    stderr: '',
    teed: [] as Buffer[],
    cwd: over.cwd ?? os.tmpdir(),
    env: over.env ?? {},
    async out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
    async tee(_s: 'stdout' | 'stderr', c: Uint8Array) {
      io.teed.push(Buffer.from(c));
    },
    async readStdin() {
      return over.stdin ?? '';
    },
    onInterrupt() {
      /* no signals in the process under test */
    },
    offInterrupt() {
      /* idem */
    },
  };
  return io;
}

describe('command line', function () {
  this.timeout(180_000);
  let dir: string;
  let storage: string;
  let work: string;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, BOUNDED_EVIDENCE_STORAGE: storage });
  const runCount = async (): Promise<number> => (await (await openSession(storage)).runs.listRuns()).length;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-cli-'));
    storage = path.join(dir, 'storage');
    work = path.join(dir, 'work');
    mkdirSync(work);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('--help on the command line and on every subcommand exits 0; no command or an unknown one exits 2', async () => {
    for (const sub of ['capture', 'read', 'search', 'import', 'list', 'verify', 'stats', 'hook']) {
      const io = collect();
      assert.equal(await runCli([sub, '--help'], io, []), 0, sub);
      assert.match(io.stdout, new RegExp(`^Usage: bounded-evidence ${sub}`), sub);
    }
    const top = collect();
    assert.equal(await runCli(['--help'], top, []), 0);
    assert.match(top.stdout, /capture {3}run a command/);
    assert.equal(await runCli([], collect(), []), 2);
    const bad = collect();
    assert.equal(await runCli(['frobnicate'], bad, []), 2);
    assert.equal(bad.stderr, 'bounded-evidence: unknown command "frobnicate" (try bounded-evidence --help)\n');
  });

  it('without storage: one line saying how to get one, exit 2, nothing created', async () => {
    const io = collect({ env: {} });
    assert.equal(await runCli(['capture', '--', 'echo', 'hi'], io, []), 2);
    assert.equal(io.stderr.split('\n').length, 2);
    assert.match(
      io.stderr,
      /^bounded-evidence capture: no evidence storage: pass --storage DIR or set BOUNDED_EVIDENCE_STORAGE/,
    );
    assert.equal(io.stdout, '');
    assert.deepEqual(readdirSync(dir), ['work']);
  });

  it('bad input: one line on stderr, exit 2, no run recorded', async () => {
    const cases: string[][] = [
      ['capture', '--bogus', '--', 'ls'],
      ['capture'],
      ['capture', '--shell', 'ls', '--', 'ls'],
      ['capture', '--shell', '  '],
      ['capture', '--timeout-ms', '0', '--shell', 'ls'],
      ['capture', '--workspace', path.join(dir, 'missing'), '--shell', 'ls'],
      ['read'],
      ['read', 'out_x_stdout', '--offset', '-1'],
      ['read', 'out_x_stdout', '--bytes', '5'],
      ['read', 'a', 'b'],
      ['read', 'out_x_stdout', '--limit', '0'],
      ['import'],
      ['import', path.join(dir, 'nope.txt')],
      ['list', 'extra'],
      ['verify'],
    ];
    for (const argv of cases) {
      const io = collect({ env: env(), cwd: work });
      assert.equal(await runCli(argv, io, []), 2, argv.join(' '));
      assert.equal(io.stderr.split('\n').length, 2, `${argv.join(' ')}: ${io.stderr}`);
      assert.match(io.stderr, new RegExp(`^bounded-evidence ${argv[0]}: `));
      assert.equal(io.stdout, '');
    }
    assert.equal(await runCount(), 0);
  });

  it("capture prints exactly the text the MCP server's evidence_runCommand returns, exits with the exit code, and records a cli run", async () => {
    const command = `printf 'out\\n'; printf 'err\\n' >&2; exit 3`;
    const io = collect({ env: env(), cwd: work });
    assert.equal(await runCli(['capture', '--shell', command], io, []), 3);
    const mcp = await createEvidenceMcpServer({ storageDir: storage, workspaceFolder: work, log: () => undefined });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    mcp.serve(a);
    await client.connect(b);
    const reply = await client.callTool({ name: 'evidence_runCommand', arguments: { command } });
    await client.close();
    await mcp.close();
    const mcpText = (reply.content as { text: string }[])[0]!.text;
    // Printed as is, plus a final newline only when the text has none (this one ends with stderr's own).
    assert.equal(io.stdout, mcpText);
    assert.equal(
      io.stdout,
      `$ ${command}\nexit code 3\nstdout: 4 bytes, 1 line:\nout\n\nstderr: 4 bytes, 1 line:\nerr\n`,
    );
    const runs = await (await openSession(storage)).runs.listRuns();
    const cli = runs.find((r) => r.source?.kind === 'cli')!;
    assert.deepEqual(cli.source, { kind: 'cli' });
    assert.equal(cli.label, `cli run: ${command}`);
    assert.equal(cli.status, 'completed');
    // `--` words are quoted for /bin/sh: the arguments arrive as given.
    const words = collect({ env: env(), cwd: work });
    assert.equal(
      await runCli(['capture', '--label', 'words', '--', 'printf', '%s|', 'a b', `it's`, '$HOME'], words, []),
      0,
    );
    assert.equal(
      words.stdout,
      `$ printf '%s|' 'a b' 'it'\\''s' '$HOME'\nexit code 0\nstdout: 15 bytes, 1 line:\na b|it's|$HOME|\nstderr: empty\n`,
    );
  });

  it('capture of a large output prints the bounded observation with a handle; read, verify and list use it', async () => {
    const io = collect({ env: env(), cwd: work });
    assert.equal(await runCli(['capture', '--shell', 'seq 1 20000; echo needle-line; seq 1 20000'], io, []), 0);
    assert.ok(Buffer.byteLength(io.stdout) < 8192);
    const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(io.stdout)![1]!;
    const read = collect({ env: env() });
    assert.equal(await runCli(['read', handle, '--pattern', 'needle'], read, []), 0);
    const session = await openSession(storage);
    const expected = await readFitted(
      session.runs,
      { handle, pattern: 'needle' },
      session.settings.maxRangeBytes,
      () => undefined,
    );
    assert.equal(read.stdout, `${expected}\n`);
    // The model's pattern reply, byte for byte: no echo of the call, no count the matches give, no `truncated: false` (docs/contracts.md §2.5).
    assert.equal(
      read.stdout,
      '{"total_matches":1,"content":"20001:needle-line","matches":[{"line_number":20001,"byte_offset":108894,"column":1}]}\n',
    );
    const reply = JSON.parse(read.stdout) as {
      matches: { line_number: number; byte_offset: number; column: number }[];
      content: string;
      total_matches: number;
    };
    // seq 1 20000 prints 108,894 bytes before the needle line.
    assert.deepEqual(
      [reply.matches, reply.content, reply.total_matches],
      [[{ line_number: 20001, byte_offset: 108894, column: 1 }], '20001:needle-line', 1],
    );
    // search: evidence_search's reply, byte for byte, over every output.
    const found = collect({ env: env() });
    assert.equal(await runCli(['search', 'needle', '--limit', '5'], found, []), 0);
    const all = JSON.parse(found.stdout) as {
      total_matches: number;
      matches: { handle: string; line_number: number; byte_offset: number }[];
    };
    assert.deepEqual(
      [all.total_matches, all.matches.map((m) => [m.handle, m.line_number, m.byte_offset])],
      [1, [[handle, 20001, 108894]]],
    );
    const badSearch = collect({ env: env() });
    assert.equal(await runCli(['search', 'x', '--limit', '0'], badSearch, []), 2);
    const lines = collect({ env: env() });
    assert.equal(await runCli(['read', handle, '--offset', '19999', '--limit', '2'], lines, []), 0);
    assert.equal(
      lines.stdout,
      `${await readFitted(session.runs, { handle, offset: 19999, limit: 2 }, session.settings.maxRangeBytes, () => undefined)}\n`,
    );
    const bytes = collect({ env: env() });
    assert.equal(await runCli(['read', handle, '--bytes', '0-6'], bytes, []), 0);
    assert.match(bytes.stdout, /"content":"1\\n2\\n3\\n"/);
    const refused = collect({ env: env() });
    assert.equal(await runCli(['read', 'out_0000000000-1_stdout'], refused, []), 1);
    assert.match(refused.stdout, /^error: /);
    const ok = collect({ env: env() });
    assert.equal(await runCli(['verify', handle], ok, []), 0);
    assert.match(ok.stdout, new RegExp(`^verified ${handle}: 217800 bytes, sha256 [0-9a-f]{64}\\n$`));
    const listed = collect({ env: env() });
    assert.equal(await runCli(['list'], listed, []), 0);
    assert.match(
      listed.stdout,
      /^run-\S+\tcompleted\t\S+\t1 call\t\d+ B\tcli\tcli run: seq 1 20000; echo needle-line; seq 1 20000\n$/,
    );
    const json = collect({ env: env() });
    assert.equal(await runCli(['list', '--json'], json, []), 0);
    assert.deepEqual(
      (JSON.parse(json.stdout) as { source: unknown }[]).map((r) => r.source),
      [{ kind: 'cli' }],
    );
  });

  it('a subcommand answers without the start-up sweep a long-lived process makes; list makes it', async () => {
    const io = collect({ env: env(), cwd: work });
    assert.equal(await runCli(['capture', '--shell', 'seq 1 20000'], io, []), 0);
    const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(io.stdout)![1]!;
    const blobs = path.join(storage, 'evidence', 'blobs');
    const [tenant] = readdirSync(blobs).filter((n) => !n.startsWith('.'));
    const runDir = path.join(
      blobs,
      tenant!,
      readdirSync(path.join(blobs, tenant!)).find((n) => n.startsWith('run-'))!,
    );
    // What a killed writer leaves: a temporary file named after a pid that no process has.
    const left = path.join(runDir, 'c9~999999999.0123456789ab.tmp');
    writeFileSync(left, 'x');
    assert.equal(await runCli(['read', handle, '--pattern', '^20000$'], collect({ env: env() }), []), 0);
    assert.equal(await runCli(['capture', '--shell', 'true'], collect({ env: env(), cwd: work }), []), 0);
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(
      readdirSync(runDir).includes(path.basename(left)),
      'read and capture leave the sweep to long-lived processes',
    );
    assert.equal(await runCli(['list'], collect({ env: env() }), []), 0);
    for (const end = Date.now() + 60_000; readdirSync(runDir).includes(path.basename(left)) && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(!readdirSync(runDir).includes(path.basename(left)), 'list swept it');
  });

  it('verify says MISMATCH and exits 1 when a stored blob was altered', async () => {
    const io = collect({ env: env(), cwd: work });
    await runCli(['capture', '--shell', 'seq 1 50000'], io, []);
    const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(io.stdout)![1]!;
    const blobs = path.join(storage, 'evidence', 'blobs');
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else files.push(path.join(d, e.name));
      }
    };
    walk(blobs);
    const big = files.map((f) => [f, readFileSync(f)] as const).sort((x, y) => y[1].length - x[1].length)[0]!;
    const altered = Buffer.from(big[1]);
    altered[100] = altered[100]! ^ 1;
    writeFileSync(big[0], altered);
    const v = collect({ env: env() });
    assert.equal(await runCli(['verify', handle], v, []), 1);
    assert.match(v.stdout, /^(MISMATCH|error: )/);
  });

  it('--tee hands every byte to the terminal as well; --timeout-ms kills the group (exit 124); import keeps a file by its sha256', async () => {
    const io = collect({ env: env(), cwd: work });
    assert.equal(await runCli(['capture', '--tee', '--shell', 'seq 1 30000'], io, []), 0);
    const expected = spawnSync('seq', ['1', '30000']).stdout;
    assert.deepEqual(Buffer.concat(io.teed), expected);
    const slow = collect({ env: env(), cwd: work });
    // Order, not time: `late` would be written only had the command run to its end.
    assert.equal(
      await runCli(['capture', '--timeout-ms', '300', '--shell', 'sleep 30 & sleep 30; wait; echo > late'], slow, []),
      124,
    );
    assert.equal(existsSync(path.join(work, 'late')), false);
    assert.match(slow.stdout, /\nkilled: timed out after 300 ms\n/);
    const file = path.join(work, 'data.bin');
    const data = Buffer.alloc(300_000, 7);
    writeFileSync(file, data);
    const imp = collect({ env: env(), cwd: work });
    assert.equal(await runCli(['import', 'data.bin'], imp, []), 0);
    const r = JSON.parse(imp.stdout) as { handle: string; byteCount: number; sha256: string; binary: boolean };
    assert.equal(r.byteCount, 300_000);
    assert.equal(r.sha256, sha(data));
    const v = collect({ env: env() });
    assert.equal(await runCli(['verify', r.handle], v, []), 0);
  });

  it('hook: a Claude Code Bash event is answered with the command run in the same shell, its small output given back as it was and recorded with the session', async () => {
    const event = {
      session_id: 'sess-42',
      cwd: work,
      permission_mode: 'bypassPermissions',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: `echo "it's $((6*7))" && pwd`, description: 'd' },
      tool_use_id: 't',
    };
    // The hook routes into an existing storage folder only (a missing one fails open, test/unit/core/reach/routing.test.ts).
    mkdirSync(storage);
    const io = collect({ env: { BOUNDED_EVIDENCE_STORAGE: storage }, stdin: JSON.stringify(event) });
    assert.equal(await runCli(['hook'], io, [process.execPath, '--import', TSX, MAIN]), 0);
    const answer = JSON.parse(io.stdout) as {
      hookSpecificOutput: { updatedInput: { command: string; description: string } };
    };
    assert.equal(answer.hookSpecificOutput.updatedInput.description, 'd');
    const routed = answer.hookSpecificOutput.updatedInput.command;
    const run = spawnSync('/bin/sh', ['-c', routed], {
      cwd: work,
      env: { ...process.env, BOUNDED_EVIDENCE_STORAGE: '' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `it's 42\n${work}\n`);
    assert.equal(run.stderr, '');
    // Recorded in the background (`keep --quiet`): wait for the run.
    let runs = await (await openSession(storage)).runs.listRuns();
    // A bound on waiting: the background `keep` is a Node start, slow on a loaded machine.
    for (const end = Date.now() + 60_000; runs.length === 0 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 50));
      runs = await (await openSession(storage)).runs.listRuns();
    }
    assert.deepEqual(
      runs.map((r) => r.source),
      [{ kind: 'hook', agent: 'claude', sessionId: 'sess-42' }],
    );
    // No storage anywhere: no answer, exit 0 (the agent runs its command as if there were no hook).
    const none = collect({ env: {}, stdin: JSON.stringify(event) });
    assert.equal(await runCli(['hook'], none, []), 0);
    assert.equal(none.stdout, '');
    // Not JSON: no answer, exit 0, one line for the person.
    const junk = collect({ env: { BOUNDED_EVIDENCE_STORAGE: storage }, stdin: '{"tool_name":' });
    assert.equal(await runCli(['hook'], junk, []), 0);
    assert.equal(junk.stdout, '');
    assert.match(junk.stderr, /^bounded-evidence hook: stdin is not one JSON event/);
    // PostToolUse with recording on: a run per event, tagged with the session.
    const post = collect({
      env: { BOUNDED_EVIDENCE_STORAGE: storage },
      stdin: JSON.stringify({
        ...event,
        hook_event_name: 'PostToolUse',
        tool_name: 'Read',
        tool_response: 'z'.repeat(10_000),
      }),
    });
    assert.equal(await runCli(['hook', '--record-post-tool-use'], post, []), 0);
    assert.equal(post.stdout, '');
    const after = await (await openSession(storage)).runs.listRuns();
    assert.equal(after.length, 2);
    assert.deepEqual(after[0]!.source, { kind: 'hook', agent: 'claude', sessionId: 'sess-42' });
    // A hook's flags it cannot parse: exit 1 (non-blocking for every client), never 2.
    assert.equal(await runCli(['hook', '--nope'], collect({ stdin: '{}' }), []), 1);
  });

  it('a separate process: exit code of a signal (128+N), and a 1 GB output in bounded memory', async function () {
    const base = { ...process.env, BOUNDED_EVIDENCE_STORAGE: storage };
    const sig = spawnSync(process.execPath, ['--import', TSX, MAIN, 'capture', '--shell', 'kill -TERM $$'], {
      cwd: work,
      env: base,
      encoding: 'utf8',
    });
    assert.equal(sig.status, 143, sig.stderr);
    assert.match(sig.stdout, /\nkilled by SIGTERM\n/);
    // Started by the shim as Electron-run-as-Node: the captured command sees the terminal's environment, not the shim's.
    const shimmed = spawnSync(
      process.execPath,
      [
        '--import',
        TSX,
        MAIN,
        'capture',
        '--shell',
        'echo "[${ELECTRON_RUN_AS_NODE-unset}][${BOUNDED_EVIDENCE_ELECTRON_WAS-unset}]"',
      ],
      {
        cwd: work,
        env: { ...base, ELECTRON_RUN_AS_NODE: '1', BOUNDED_EVIDENCE_ELECTRON_WAS: '' },
        encoding: 'utf8',
      },
    );
    assert.match(shimmed.stdout, /\n\[unset\]\[unset\]\n/);
    // 1 GB of output (1,000,000,000 bytes) through capture: kept whole (no cap by default), every byte counted,
    // memory stays flat. The baseline is the same process capturing a one-line output (start-up, tsx, stores).
    const small = await peakRss(['capture', '--shell', 'echo small'], base);
    const huge = await peakRss(['capture', '--shell', 'head -c 1000000000 /dev/zero | tr "\\0" "x"'], base);
    assert.equal(small.code, 0);
    assert.equal(huge.code, 0);
    assert.match(huge.out, /\nstdout: 1000000000 bytes, 1 line, handle out_[a-z2-7]{26}\. Preview:\n/);
    // 100 MB: the peak there and at 1 GB differ by the heap's sizing under load (3 GB peaks as 1 GB does), so the
    // bound is the target's: 1 GB within 32 MiB of a one-line capture, a retained 3.5% of the bytes would fail it.
    const mid = await peakRss(['capture', '--shell', 'head -c 100000000 /dev/zero | tr "\\0" "x"'], base);
    assert.equal(mid.code, 0);
    const withSize = huge.peak - mid.peak;
    console.log(
      `      100 MB capture: peak ${(mid.peak / 2 ** 20).toFixed(1)} MiB; 1 GB over 100 MB: ${(withSize / 2 ** 20).toFixed(1)} MiB`,
    );
    const growth = huge.peak - small.peak;
    console.log(
      `      1 GB capture: ${huge.samples} RSS samples over ${(huge.ms / 1000).toFixed(1)} s; peak ${(huge.peak / 2 ** 20).toFixed(1)} MiB vs ${(small.peak / 2 ** 20).toFixed(1)} MiB for a one-line output: growth ${(growth / 2 ** 20).toFixed(1)} MiB`,
    );
    assert.ok(huge.samples > 10, 'the capture ran long enough to be sampled');
    assert.ok(growth < 32 * 2 ** 20, `RSS grew by ${growth} bytes (${withSize} of them from 100 MB to 1 GB)`);
  });

  it('mcp: the MCP server as a subcommand, storage from the environment, reading a handle capture minted', async () => {
    const io = collect({ env: env(), cwd: work });
    assert.equal(await runCli(['capture', '--shell', 'seq 1 9000'], io, []), 0);
    const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})/.exec(io.stdout)![1]!;
    const read = collect({ env: env() });
    await runCli(['read', handle, '--pattern', '^8999$'], read, []);
    const help = spawnSync(process.execPath, ['--import', TSX, MAIN, 'mcp', '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: node dist\/mcp\.js --storage <dir>/);
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const client = new Client({ name: 'cli-mcp', version: '1' });
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env())) if (v !== undefined) childEnv[k] = v;
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', TSX, MAIN, 'mcp', '--workspace', work],
        env: childEnv,
        stderr: 'ignore',
      }),
    );
    try {
      // The MCP server's own list (dist/mcp.js serves the same): at least the three evidence tools.
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const n of ['evidence_readFile', 'evidence_runCommand', 'read_tool_output']) assert.ok(names.includes(n), n);
      const reply = await client.callTool({ name: 'read_tool_output', arguments: { handle, pattern: '^8999$' } });
      assert.equal(`${(reply.content as { text: string }[])[0]!.text}\n`, read.stdout);
    } finally {
      await client.close();
    }
  });

  /** Runs the command line as a process and samples its resident memory every 50 ms. */
  async function peakRss(
    args: string[],
    childEnv: NodeJS.ProcessEnv,
  ): Promise<{ code: number | null; out: string; peak: number; samples: number; ms: number }> {
    const t0 = Date.now();
    // Started as the shim starts it (src/core/reach/shim.ts NODE_FLAGS).
    const child = spawn(process.execPath, [...NODE_FLAGS, '--import', TSX, MAIN, ...args], {
      cwd: work,
      env: childEnv,
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    let peak = 0;
    let samples = 0;
    const timer = setInterval(() => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) {
          peak = Math.max(peak, Number(m[1]) * 1024);
          samples++;
        }
      } catch {
        /* exited */
      }
    }, 50);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(timer);
    return { code, out, peak, samples, ms: Date.now() - t0 };
  }
});
