/**
 * `keep SPOOL STATUS`: the second half of a routed command (docs/contracts.md §6.1), recording the spool as the call
 * `capture` would have recorded and printing the bounded observation. Fail open: if anything goes wrong the spooled
 * bytes are printed as written, one line on stderr says evidence was not kept, and the exit code is 0. The spool
 * folder is removed either way.
 */
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { boundModelText, runLabel, withRun, type RunSource } from '../core/index.js';
import {
  givenBackWhole,
  SPOOL_COMMAND,
  SPOOL_DIR,
  SPOOL_META,
  SPOOL_STATUS,
  SPOOL_STDERR,
  SPOOL_STDOUT,
  type SpoolMeta,
} from '../core/reach/rewrite.js';
import { ownerPid, shellAlive } from './spoolOwner.js';
import { quoteShellWord } from '../core/reach/shellQuote.js';
import { UsageError } from './args.js';
import { CAPTURE_TOOL } from './capture.js';
import type { CliIo } from './io.js';
import { openSession, type CliSession } from './session.js';

function storageOfSpool(spool: string): string {
  const dir = path.resolve(spool);
  const id = path.basename(dir);
  const spools = path.dirname(dir);
  if (
    !/^[A-Za-z0-9_-]{1,80}$/.test(id) ||
    path.basename(spools) !== SPOOL_DIR ||
    path.basename(path.dirname(spools)) !== 'evidence'
  ) {
    throw new UsageError('the spool folder must be <storage>/evidence/spool/<id>');
  }
  return path.dirname(path.dirname(spools));
}

/** A missing or malformed one names an unknown agent rather than losing the output. */
async function readMeta(spool: string): Promise<SpoolMeta> {
  try {
    const v = JSON.parse(await fsp.readFile(path.join(spool, SPOOL_META), 'utf8')) as Record<string, unknown>;
    const str = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined);
    const sessionId = str(v.sessionId);
    const cwd = str(v.cwd);
    const read = str(v.read);
    return {
      agent: str(v.agent) ?? 'agent',
      routedAt: str(v.routedAt) ?? new Date().toISOString(),
      ...(sessionId ? { sessionId } : {}),
      ...(cwd ? { cwd } : {}),
      ...(read ? { read } : {}),
    };
  } catch {
    return { agent: 'agent', routedAt: new Date().toISOString() };
  }
}

/** For a client without `read_tool_output`: the model is told only a read it can make. */
export function readThroughShell(text: string, read: string): string {
  return text
    .replace(
      /^Read more: read_tool_output \{"handle":"([a-z0-9_]+)"\} with .*$/gm,
      (_l, h: string) => `Read more: ${read} ${h} with --pattern REGEX, --offset N --limit N or --bytes START-END`,
    )
    .replace(/^More: read_tool_output (\{.*\})$/gm, (line, json: string) => {
      try {
        const a = JSON.parse(json) as { handle: string; pattern: string; offset: number };
        return `More: ${read} ${a.handle} --pattern ${quoteShellWord(a.pattern)} --offset ${a.offset}`;
      } catch {
        return line;
      }
    });
}

/** A spool no shell ever wrote (the client never ran the routed command) is left for this long, then recorded. */
const UNSTARTED_SPOOL_MS = 24 * 3_600_000;
/** A spool whose command ended (its status written) is its recorder's for this long, then any keep's. */
const ENDED_SPOOL_MS = 60_000;

/** The stdout file of a spool (`1.<pid>`, or `1` as older hooks made it) and the pid of its shell. */
async function stdoutOf(spool: string): Promise<{ file: string; pid: number | undefined }> {
  const names = await fsp.readdir(spool).catch(() => [] as string[]);
  for (const name of names) {
    const pid = ownerPid(name);
    if (pid !== undefined) return { file: path.join(spool, name), pid };
  }
  return { file: path.join(spool, SPOOL_STDOUT), pid: undefined };
}

/** Throws when the store fails. `exit.aborted`: the shell ended before the command did. */
async function recordSpool(
  runs: CliSession['runs'],
  spool: string,
  exit: { code: number | null; aborted: boolean },
  cwd: string,
  upTo?: { out: number; err: number },
): Promise<{ text: string; runId: string; callId: string }> {
  const stdout = (await stdoutOf(spool)).file;
  // The first bytes only (`keep --interim`): the command is still writing.
  const bytes = (file: string, n: number | undefined): AsyncIterable<Uint8Array> =>
    n === undefined ? createReadStream(file) : n === 0 ? Readable.from([]) : createReadStream(file, { end: n - 1 });
  const command = await fsp.readFile(path.join(spool, SPOOL_COMMAND), 'utf8');
  const meta = await readMeta(spool);
  return recordAsRouted(runs, {
    ...meta,
    command,
    cwd: meta.cwd ?? cwd,
    stdout: bytes(stdout, upTo?.out),
    stderr: bytes(path.join(spool, SPOOL_STDERR), upTo?.err),
    exit,
  });
}

/** A command that ran in the client's shell, recorded as a routed one: a spool's, or the client's own result. */
export async function recordAsRouted(
  runs: CliSession['runs'],
  c: {
    agent: string;
    sessionId?: string | undefined;
    command: string;
    cwd: string;
    read?: string | undefined;
    stdout: AsyncIterable<Uint8Array>;
    stderr: AsyncIterable<Uint8Array>;
    exit: { code: number | null; aborted: boolean };
  },
): Promise<{ text: string; runId: string; callId: string }> {
  const source: RunSource = {
    kind: 'hook',
    agent: c.agent,
    ...(c.sessionId !== undefined ? { sessionId: c.sessionId } : {}),
  };
  return withRun(
    runs,
    { label: runLabel(`${c.agent} terminal`, c.command), source },
    async (run, finishAs) => {
      const outcome = await run.recordCommand(
        c.command,
        { cwd: c.cwd, tool: CAPTURE_TOOL },
        {
          stdout: c.stdout,
          stderr: c.stderr,
          exit: Promise.resolve({
            code: c.exit.code,
            signal: null,
            timedOut: false,
            aborted: c.exit.aborted,
            spawnFailed: false,
            strays: [],
            pipesAbandoned: false,
          }),
          kill: () => undefined,
        },
      );
      if (outcome.status === 'failed')
        throw new Error(outcome.record.error?.message ?? 'the output could not be stored');
      finishAs(c.exit.aborted ? 'cancelled' : 'completed');
      const text = c.read ? readThroughShell(outcome.modelText, c.read) : outcome.modelText;
      return { text: boundModelText(text), runId: run.runId, callId: outcome.callId };
    },
    () => undefined,
  );
}

/**
 * What a spool left beside ours is (docs/contracts.md §6.1): `wait` while its shell may still run the command (or its
 * recorder is at work), `killed` when the shell is gone (or is ours, which has moved on: a shell runs one group at a
 * time) before the command ended, `ended` (with the status) when the command ended but nothing recorded it.
 */
async function leftSpool(
  spool: string,
  ours: number | undefined,
  now: number,
): Promise<{ kind: 'wait' } | { kind: 'killed' } | { kind: 'ended'; code: number }> {
  const mtime = (f: string): Promise<number | undefined> =>
    fsp.stat(f).then(
      (st) => st.mtimeMs,
      () => undefined,
    );
  const status = path.join(spool, SPOOL_STATUS);
  const ended = await mtime(status);
  if (ended !== undefined) {
    if (now - ended < ENDED_SPOOL_MS) return { kind: 'wait' };
    const code = Number((await fsp.readFile(status, 'utf8').catch(() => '')).trim());
    return Number.isInteger(code) && code >= 0 && code <= 255 ? { kind: 'ended', code } : { kind: 'killed' };
  }
  const out = await stdoutOf(spool);
  const times = await Promise.all(
    [out.file, path.join(spool, SPOOL_STDERR), path.join(spool, SPOOL_COMMAND)].map(mtime),
  );
  const last = Math.max(...times.map((t) => t ?? 0));
  if (out.pid === undefined) return now - last >= UNSTARTED_SPOOL_MS ? { kind: 'killed' } : { kind: 'wait' };
  if (out.pid === ours || !shellAlive(out.pid, last) || now - last >= UNSTARTED_SPOOL_MS) return { kind: 'killed' };
  return { kind: 'wait' };
}

/**
 * A shell killed mid-command (an agent's own time limit, a closed terminal) never reaches `keep`, and a recorder can
 * die before it records: their spools stay. Each `keep` records the spools `leftSpool` finds killed (as calls that
 * ended without an exit status: cancelled) or ended, so their bytes are evidence too, then removes them.
 */
async function recordLeftSpools(
  runs: CliSession['runs'],
  own: string,
  ours: number | undefined,
  cwd: string,
): Promise<void> {
  const now = Date.now();
  const spools = path.dirname(own);
  for (const name of await fsp.readdir(spools)) {
    if (name.includes('.orphan-') || name === path.basename(own)) continue;
    const spool = path.join(spools, name);
    const left = await leftSpool(spool, ours, now);
    if (left.kind === 'wait') continue;
    // Claimed by a rename first: two keeps never record one spool twice.
    const claimed = `${spool}.orphan-${process.pid}`;
    if (
      !(await fsp.rename(spool, claimed).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const exit = left.kind === 'ended' ? { code: left.code, aborted: false } : { code: null, aborted: true };
    await recordSpool(runs, claimed, exit, cwd).catch(() => undefined);
    await fsp.rm(claimed, { recursive: true, force: true });
  }
}

/** Bounded memory. */
async function giveBack(file: string, stream: 'stdout' | 'stderr', io: CliIo): Promise<void> {
  for await (const chunk of createReadStream(file)) await io.tee(stream, chunk as Buffer);
}

/**
 * `keep SPOOL STATUS WHOLE` exits with STATUS; `keep --quiet SPOOL STATUS` (the shim's background recording of an
 * output it already printed) prints nothing.
 */
export async function recordSpoolCommand(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === '--killed' || argv[0] === '--interim') return recordRunning(argv, io);
  const quiet = argv[0] === '--quiet';
  const args = quiet ? argv.slice(1) : argv;
  if (args.length !== (quiet ? 2 : 3) || !/^\d{1,3}$/.test(args[1]!) || (!quiet && !/^\d{1,9}$/.test(args[2]!))) {
    throw new UsageError(
      'usage: bounded-evidence keep SPOOL STATUS WHOLE, or keep --quiet SPOOL STATUS (written by the hook)',
    );
  }
  const spool = path.resolve(io.cwd, args[0]!);
  const storage = storageOfSpool(spool);
  const status = Number(args[1]);
  const done = quiet ? 0 : status;
  const { file: out, pid: shell } = await stdoutOf(spool);
  const err = path.join(spool, SPOOL_STDERR);
  const sizes = await Promise.all([fsp.stat(out), fsp.stat(err)]).catch(() => undefined);
  if (!sizes) {
    if (!quiet) io.err('bounded-evidence: evidence not kept (the spooled output is gone); the command ran unrouted\n');
    return done;
  }
  // Small: the output exactly as the command wrote it, then recorded.
  const whole = !quiet && givenBackWhole(sizes[0].size, sizes[1].size, Number(args[2]));
  if (whole) {
    await giveBack(out, 'stdout', io);
    await giveBack(err, 'stderr', io);
  }
  try {
    const session = await openSession(storage);
    const kept = await recordSpool(session.runs, spool, { code: status, aborted: false }, io.cwd);
    // What the agent was handed (docs/contracts.md §2.14).
    if (!quiet && !whole) {
      const printed = kept.text.endsWith('\n') ? kept.text : `${kept.text}\n`;
      await io.out(printed);
      await session.runs.recordShown({ view: 'answer', runId: kept.runId, callId: kept.callId, text: printed });
    } else {
      await session.runs.recordShown({
        view: 'answer',
        runId: kept.runId,
        callId: kept.callId,
        text: sizes[0].size + sizes[1].size,
        whole: true,
      });
    }
    await recordLeftSpools(session.runs, spool, shell, io.cwd).catch(() => undefined);
  } catch (e) {
    if (quiet || whole) return done;
    const reason = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 200);
    await giveBack(out, 'stdout', io);
    await giveBack(err, 'stderr', io);
    io.err(`bounded-evidence: evidence not kept (${reason}); the output above is the command's own\n`);
  } finally {
    await fsp.rm(spool, { recursive: true, force: true }).catch(() => undefined);
  }
  return done;
}

/**
 * The shim's `watch` (src/core/reach/shim.sh): `keep --killed SPOOL` records the spool of a shell the client killed
 * (cancelled), claimed by a rename first as `recordLeftSpools` claims; `keep --interim SPOOL OUT ERR` records the
 * first OUT and ERR bytes of a command still running at the client's time limit and prints their observation, the
 * spool left to its command.
 */
async function recordRunning(argv: readonly string[], io: CliIo): Promise<number> {
  const interim = argv[0] === '--interim';
  if (argv.length !== (interim ? 4 : 2) || (interim && !argv.slice(2).every((a) => /^\d{1,12}$/.test(a))))
    throw new UsageError('usage: bounded-evidence keep --killed SPOOL, or keep --interim SPOOL OUT ERR');
  const spool = path.resolve(io.cwd, argv[1]!);
  const session = await openSession(storageOfSpool(spool));
  if (interim) {
    const kept = await recordSpool(session.runs, spool, { code: null, aborted: true }, io.cwd, {
      out: Number(argv[2]),
      err: Number(argv[3]),
    });
    const text = kept.text.replace(/^killed: cancelled$/m, 'still running at the time limit: the output so far');
    await io.out(text.endsWith('\n') ? text : `${text}\n`);
    return 0;
  }
  const claimed = `${spool}.orphan-${process.pid}`;
  if (
    !(await fsp.rename(spool, claimed).then(
      () => true,
      () => false,
    ))
  )
    return 0;
  try {
    await recordSpool(session.runs, claimed, { code: null, aborted: true }, io.cwd);
  } finally {
    await fsp.rm(claimed, { recursive: true, force: true });
  }
  return 0;
}
