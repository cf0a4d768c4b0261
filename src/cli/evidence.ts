/**
 * `read`, `search`, `import`, `list` and `verify`: the core's reader and stores, with the texts
 * the editor shows (`read` prints exactly what `read_tool_output` returns a model).
 */
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { checkReadToolOutput, EvidenceError, runToolCall, withRun, type RunSource } from '../core/index.js';
import { checkSearch } from '../core/tools/search.js';
import { parseFlags, UsageError, wholeNumber } from './args.js';
import type { CliIo } from './io.js';
import { openSession, storageDirOf } from './session.js';

/** The record's tool name for imports (the editor's Import File as Evidence records the same). */
const IMPORT_TOOL = 'import_file';

/** `--bytes START-END` as the byte window `{ start, end }`. */
function byteWindow(raw: string | undefined): { start: number; end: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^([0-9]+)-([0-9]+)$/.exec(raw);
  if (!m) throw new UsageError('--bytes must be START-END (whole numbers, END exclusive)');
  return { start: Number(m[1]), end: Number(m[2]) };
}

/** `read HANDLE …`: exit 0 with the reply, 1 when the reply is a refusal (`error: …`). */
export async function read(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      storage: { type: 'string' },
      offset: { type: 'string' },
      limit: { type: 'string' },
      pattern: { type: 'string' },
      bytes: { type: 'string' },
    },
    { min: 1, max: 1, name: 'HANDLE' },
  );
  const input: Record<string, unknown> = { handle: positionals[0] };
  const offset = wholeNumber('offset', values.offset);
  const limit = wholeNumber('limit', values.limit, 1);
  if (offset !== undefined) input.offset = offset;
  if (limit !== undefined) input.limit = limit;
  if (values.pattern !== undefined) input.pattern = values.pattern;
  const bytes = byteWindow(values.bytes);
  if (bytes) input.bytes = bytes;
  // The table's validator first: what it refuses is bad input here (exit 2, nothing opened).
  const checked = checkReadToolOutput(input);
  if (!checked.ok) throw new UsageError(checked.error);
  return readOnlyCall('read_tool_output', input, values.storage, io);
}

/**
 * A read-only tool through the core's call runner, as the editor and the MCP server run
 * it: the same reply, byte for byte; exit 1 when the reply is a refusal.
 */
async function readOnlyCall(
  name: 'read_tool_output' | 'evidence_search',
  input: Record<string, unknown>,
  storage: string | undefined,
  io: CliIo,
): Promise<number> {
  const session = await openSession(storageDirOf(storage, io.env, io.cwd));
  const answer = await runToolCall(name, input, {
    runs: session.runs,
    artifacts: session.artifacts,
    files: undefined,
    folder: undefined,
    settings: session.settings,
    signal: new AbortController().signal,
    log: (message, e) => io.err(`bounded-evidence: ${message}: ${String(e)}\n`),
  });
  await io.out(`${answer.text}\n`);
  return answer.isError ? 1 : 0;
}

/** `search PATTERN …`: evidence_search over every kept output (docs/contracts.md §2.11). */
export async function search(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { storage: { type: 'string' }, tool: { type: 'string' }, run: { type: 'string' }, limit: { type: 'string' } },
    { min: 1, max: 1, name: 'PATTERN' },
  );
  const input: Record<string, unknown> = { pattern: positionals[0] };
  const limit = wholeNumber('limit', values.limit, 1);
  if (limit !== undefined) input.limit = limit;
  if (values.tool !== undefined) input.tool = values.tool;
  if (values.run !== undefined) input.run = values.run;
  const checked = checkSearch(input);
  if (!checked.ok) throw new UsageError(checked.error);
  return readOnlyCall('evidence_search', input, values.storage, io);
}

/** `import FILE`: streams the file into a run of its own and prints the result as JSON. */
export async function importFile(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { storage: { type: 'string' }, label: { type: 'string' } },
    { min: 1, max: 1, name: 'FILE' },
  );
  const file = path.resolve(io.cwd, positionals[0]!);
  const st = await fsp.stat(file).catch(() => undefined);
  if (!st?.isFile()) throw new UsageError(`${positionals[0]!.slice(0, 200)} is not a readable file`);
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  const name = path.basename(file);
  const source: RunSource = { kind: 'cli' };
  return withRun(session.runs, { label: values.label ?? `import: ${name}`, source }, async (run, finishAs) => {
    // The record names the file by its base name only, as the editor's import does (no host path in records).
    const outcome = await run.recordStream(
      IMPORT_TOOL,
      { file: name, sizeBytes: st.size },
      createReadStream(file, { highWaterMark: 1024 * 1024 }),
    );
    finishAs(outcome.status === 'failed' ? 'failed' : 'completed');
    const r = outcome.record;
    await io.out(
      JSON.stringify({
        runId: run.runId,
        callId: outcome.callId,
        status: outcome.status,
        ...(outcome.handle ? { handle: outcome.handle } : {}),
        byteCount: r.resultBytes,
        sha256: r.sha256,
        binary: r.binary,
        stored: r.stored,
      }) + '\n',
    );
    return outcome.status === 'ok' ? 0 : 1;
  });
}

/** `list [--json]`: the runs, newest first. */
export async function list(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { storage: { type: 'string' }, json: { type: 'boolean' } },
    { min: 0, max: 0, name: 'argument' },
  );
  // `list` reads every run anyway: it also does the start-up checks the other subcommands skip.
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd), { maintenance: true });
  const runs = await session.runs.listRuns();
  if (values.json) {
    await io.out(`${JSON.stringify(runs)}\n`);
    return 0;
  }
  const lines = runs.map((r) => {
    const src = r.source ? `${r.source.kind}${r.source.agent ? `:${r.source.agent}` : ''}` : 'tool';
    return [
      r.runId,
      r.status,
      r.startedAt,
      `${r.callCount} call${r.callCount === 1 ? '' : 's'}`,
      `${r.totalBytes} B`,
      src,
      r.label ?? '',
    ].join('\t');
  });
  await io.out(lines.length ? `${lines.join('\n')}\n` : 'no runs recorded yet\n');
  return 0;
}

/** `verify HANDLE`: exit 0 when every byte matches its record, 1 when not or when the handle is refused. */
export async function verify(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { storage: { type: 'string' } }, { min: 1, max: 1, name: 'HANDLE' });
  const handle = positionals[0]!;
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  let src;
  try {
    src = await session.runs.openHandle(handle);
  } catch (e) {
    if (e instanceof EvidenceError) {
      await io.out(`error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const ok = await src.verify().catch(() => false);
  await io.out(
    ok
      ? `verified ${handle}: ${src.byteCount} bytes, sha256 ${src.sha256}\n`
      : `MISMATCH ${handle}: the stored bytes do not match sha256 ${src.sha256}\n`,
  );
  return ok ? 0 : 1;
}
