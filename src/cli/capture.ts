/**
 * `capture`: runs a command exactly as `evidence_runCommand` does, in a run of its own, prints the same bounded text
 * and exits with the command's exit code.
 */
import { promises as fsp } from 'node:fs';
import { constants as osConstants } from 'node:os';
import * as path from 'node:path';
import { boundModelText, runLabel, withRun, type RunSource } from '../core/index.js';
import { shellCommandLine } from '../core/reach/shellQuote.js';
import { parseFlags, UsageError, wholeNumber } from './args.js';
import { openSession, storageDirOf } from './session.js';
import type { CliIo } from './io.js';
import { publishRuns, TEAM_FLAGS, teamTarget } from './team.js';

/** The call is the one `evidence_runCommand` makes. */
export const CAPTURE_TOOL = 'evidence_runCommand';

/** Where the hook leaves commands too long for one argument. */
const PENDING_DIR = 'pending';

/** Exit codes a shell would give for a command that did not exit by itself. */
const EXIT = { usage: 2, timedOut: 124, couldNotStart: 127, interrupted: 130, storageFailed: 1 } as const;

function exitCodeOf(
  value: { code: number | null; signal: string | null; timedOut: boolean; aborted: boolean } | undefined,
  status: string,
): number {
  if (status === 'failed' || value === undefined) return EXIT.storageFailed;
  if (value.timedOut) return EXIT.timedOut;
  if (value.aborted) return EXIT.interrupted;
  if (value.code !== null) return value.code;
  const n = value.signal ? (osConstants.signals as Record<string, number>)[value.signal] : undefined;
  return n !== undefined ? 128 + n : EXIT.couldNotStart;
}

/** Deleted only when it lies in the storage's pending folder. */
async function readShellFile(file: string, storageRoot: string): Promise<string> {
  const text = await fsp.readFile(file, 'utf8').catch(() => {
    throw new UsageError(`--shell-file ${file.slice(0, 200)} cannot be read`);
  });
  const pending = path.join(storageRoot, PENDING_DIR);
  if (path.dirname(path.resolve(file)) === pending) await fsp.rm(file, { force: true });
  return text;
}

export async function capture(argv: readonly string[], io: CliIo): Promise<number> {
  const dash = argv.indexOf('--');
  const flagsPart = dash === -1 ? argv : argv.slice(0, dash);
  const words = dash === -1 ? [] : argv.slice(dash + 1);
  const { values } = parseFlags(
    flagsPart,
    {
      storage: { type: 'string' },
      workspace: { type: 'string' },
      label: { type: 'string' },
      tee: { type: 'boolean' },
      shell: { type: 'string' },
      'shell-file': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'hook-agent': { type: 'string' },
      'hook-session': { type: 'string' },
      publish: { type: 'string' },
      ...TEAM_FLAGS,
    },
    { min: 0, max: 0, name: 'argument' },
  );
  // Checked before the command runs: a bad target is a usage error, nothing recorded.
  const target = values.publish !== undefined ? teamTarget(values.publish, values, io.env) : undefined;
  const given = [values.shell !== undefined, values['shell-file'] !== undefined, words.length > 0].filter(
    Boolean,
  ).length;
  if (given !== 1)
    throw new UsageError('give the command once: after "--", or as --shell STRING, or as --shell-file FILE');
  if (values.shell !== undefined && values.shell.trim() === '') throw new UsageError('--shell needs a command');
  const timeoutMs = wholeNumber('timeout-ms', values['timeout-ms'], 1);
  const cwd = path.resolve(io.cwd, values.workspace ?? '.');
  const st = await fsp.stat(cwd).catch(() => undefined);
  if (!st?.isDirectory()) throw new UsageError(`--workspace ${cwd.slice(0, 200)} is not a folder`);
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  const command =
    values.shell ??
    (values['shell-file'] !== undefined
      ? await readShellFile(values['shell-file'], session.storage.root)
      : shellCommandLine(words));
  if (command.trim() === '') throw new UsageError('the command is empty');
  const agent = values['hook-agent'];
  const source: RunSource =
    agent !== undefined
      ? { kind: 'hook', agent, ...(values['hook-session'] !== undefined ? { sessionId: values['hook-session'] } : {}) }
      : { kind: 'cli' };
  let runId: string | undefined;
  let finished = true;
  try {
    return await withRun(
      session.runs,
      { label: values.label ?? runLabel(agent !== undefined ? `${agent} terminal` : 'cli run', command), source },
      async (run, finishAs) => {
        runId = run.runId;
        const abort = new AbortController();
        const onSignal = (): void => abort.abort();
        io.onInterrupt(onSignal);
        try {
          const outcome = await run.runCommand(command, {
            cwd,
            tool: CAPTURE_TOOL,
            timeoutMs: timeoutMs ?? session.settings.commandTimeoutMs,
            signal: abort.signal,
            env: io.env,
            ...(values.tee
              ? { onOutput: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => io.tee(stream, chunk) }
              : {}),
          });
          finishAs(abort.signal.aborted ? 'cancelled' : outcome.status === 'failed' ? 'failed' : 'completed');
          const text = boundModelText(outcome.modelText);
          const printed = text.endsWith('\n') ? text : `${text}\n`;
          await io.out(printed);
          // What the caller was handed (docs/contracts.md §2.14).
          await session.runs.recordShown({ view: 'answer', runId: run.runId, callId: outcome.callId, text: printed });
          const valueAttachment = outcome.record.attachments.find((a) => a.name === 'value');
          const value =
            valueAttachment?.inline !== undefined
              ? (JSON.parse(valueAttachment.inline) as Parameters<typeof exitCodeOf>[0])
              : undefined;
          if (outcome.record.error?.code === 'spawn_failed') return EXIT.couldNotStart;
          return exitCodeOf(value, outcome.status);
        } finally {
          io.offInterrupt(onSignal);
        }
      },
      (e) => {
        finished = false;
        io.err(`bounded-evidence: the run could not be finished: ${String(e)}\n`);
      },
    );
  } finally {
    // After the run is finished: the exit code stays the command's, and a failed publish says so in one line and
    // leaves the run here.
    if (target && finished && runId !== undefined) {
      const published = runId;
      const toStderr = { ...io, out: async (t: string) => io.err(t) };
      await publishRuns(session, target, [published], toStderr).catch((e: unknown) =>
        io.err(`bounded-evidence: ${published} was not published: ${e instanceof Error ? e.message : String(e)}\n`),
      );
    }
  }
}
