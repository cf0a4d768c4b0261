/**
 * `keep SPOOL STATUS`: the second half of a routed command (docs/contracts.md §6.1). The command
 * ran in the agent's own shell with its stdout and stderr in the spool folder the hook made
 * (`<storage>/evidence/spool/<id>/`, src/core/reach/rewrite.ts); its output was too large to give
 * back whole, so this records it as the `evidence_runCommand` call `capture` would have recorded
 * (the run store's `recordCommand`: same attachments, handles and summary) and prints the
 * bounded observation the model gets instead of the output.
 *
 * Fail open: a routed command never fails because of the product. If anything goes wrong
 * (the storage cannot be opened or written, a disk fills), the spooled bytes are printed as the
 * command wrote them, then one line on stderr says evidence was not kept, and the exit code is
 * 0; only when not even the spool can be read is it 1, and the wrapper then prints the spool
 * itself. The spool folder is removed either way.
 */
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { boundModelText, runLabel, type RunSource } from '../core/index.js';
import { SPOOL_COMMAND, SPOOL_DIR, SPOOL_META, SPOOL_STDERR, SPOOL_STDOUT, type SpoolMeta } from '../core/reach/rewrite.js';
import { UsageError } from './args.js';
import { CAPTURE_TOOL } from './capture.js';
import type { CliIo } from './io.js';
import { openSession } from './session.js';


/** The storage folder a spool lies in: `<storage>/evidence/spool/<id>`, or a usage error. */
export function storageOfSpool(spool: string): string {
  const dir = path.resolve(spool);
  const id = path.basename(dir);
  const spools = path.dirname(dir);
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(id) || path.basename(spools) !== SPOOL_DIR || path.basename(path.dirname(spools)) !== 'evidence') {
    throw new UsageError('the spool folder must be <storage>/evidence/spool/<id>');
  }
  return path.dirname(path.dirname(spools));
}

/** Reads the meta file; a missing or malformed one names an unknown agent rather than losing the output. */
async function readMeta(spool: string): Promise<SpoolMeta> {
  try {
    const v = JSON.parse(await fsp.readFile(path.join(spool, SPOOL_META), 'utf8')) as Record<string, unknown>;
    const str = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined);
    const sessionId = str(v.sessionId);
    const cwd = str(v.cwd);
    return { agent: str(v.agent) ?? 'agent', routedAt: str(v.routedAt) ?? new Date().toISOString(), ...(sessionId ? { sessionId } : {}), ...(cwd ? { cwd } : {}) };
  } catch {
    return { agent: 'agent', routedAt: new Date().toISOString() };
  }
}

/** Copies one spooled stream to this process's stdout or stderr, in pieces (any size, bounded memory). */
async function giveBack(file: string, stream: 'stdout' | 'stderr', io: CliIo): Promise<void> {
  for await (const chunk of createReadStream(file)) await io.tee(stream, chunk as Buffer);
}

/**
 * The `keep` subcommand: `keep SPOOL STATUS WHOLE` (the wrapper's; exits with STATUS) or
 * `keep --quiet SPOOL STATUS` (the shim's background recording of a small output it already
 * printed; prints nothing, exits 0).
 */
export async function keep(argv: readonly string[], io: CliIo): Promise<number> {
  const quiet = argv[0] === '--quiet';
  const args = quiet ? argv.slice(1) : argv;
  if (args.length !== (quiet ? 2 : 3) || !/^\d{1,3}$/.test(args[1]!) || (!quiet && !/^\d{1,9}$/.test(args[2]!))) {
    throw new UsageError('usage: bounded-evidence keep SPOOL STATUS WHOLE, or keep --quiet SPOOL STATUS (written by the hook)');
  }
  const spool = path.resolve(io.cwd, args[0]!);
  const storage = storageOfSpool(spool);
  const status = Number(args[1]);
  const done = quiet ? 0 : status;
  const out = path.join(spool, SPOOL_STDOUT);
  const err = path.join(spool, SPOOL_STDERR);
  const sizes = await Promise.all([fsp.stat(out), fsp.stat(err)]).catch(() => undefined);
  if (!sizes) {
    if (!quiet) io.err('bounded-evidence: evidence not kept (the spooled output is gone); the command ran unrouted\n');
    return done;
  }
  // Small: the output exactly as the command wrote it, then recorded (no observation).
  const whole = !quiet && sizes[0].size + sizes[1].size <= Number(args[2]);
  if (whole) {
    await giveBack(out, 'stdout', io);
    await giveBack(err, 'stderr', io);
  }
  try {
    const command = await fsp.readFile(path.join(spool, SPOOL_COMMAND), 'utf8');
    const meta = await readMeta(spool);
    const session = await openSession(storage);
    const source: RunSource = { kind: 'hook', agent: meta.agent, ...(meta.sessionId !== undefined ? { sessionId: meta.sessionId } : {}) };
    const run = await session.runs.startRun({ label: runLabel(`${meta.agent} terminal`, command), source });
    let ok = false;
    try {
      const outcome = await run.recordCommand(command, { cwd: meta.cwd ?? io.cwd, tool: CAPTURE_TOOL }, {
        stdout: createReadStream(out),
        stderr: createReadStream(err),
        exit: Promise.resolve({ code: status, signal: null, timedOut: false, aborted: false, spawnFailed: false, strays: [], pipesAbandoned: false }),
        kill: () => undefined,
      });
      if (outcome.status === 'failed') throw new Error(outcome.record.error?.message ?? 'the output could not be stored');
      const text = boundModelText(outcome.modelText);
      if (!quiet && !whole) await io.out(text.endsWith('\n') ? text : `${text}\n`);
      ok = true;
    } finally {
      await run.finish(ok ? 'completed' : 'failed').catch(() => undefined);
    }
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
