/** `read`, `search`, `import`, `list` and `verify`, with the texts the editor shows. */
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import {
  checkReadToolOutput,
  ErrorText,
  EvidenceError,
  runToolCall,
  withRun,
  type HandleSource,
  type RunSource,
  type RunSummary,
} from '../core/index.js';
import { checkSearch } from '../core/tools/search.js';
import { parseFlags, UsageError, wholeNumber } from './args.js';
import type { CliIo } from './io.js';
import { openSession, storageDirOf, type CliSession } from './session.js';
import { configuredTeams, openTeamStore, TEAM_FLAGS, teamTarget } from './team.js';
import type { HandleReader, RunStore, TeamStore } from '../core/index.js';
import { readThrough } from '../core/index.js';

/** The editor's Import File as Evidence records the same. */
const IMPORT_TOOL = 'import_file';

function byteWindow(raw: string | undefined): { start: number; end: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^([0-9]+)-([0-9]+)$/.exec(raw);
  if (!m) throw new UsageError('--bytes must be START-END (whole numbers, END exclusive)');
  return { start: Number(m[1]), end: Number(m[2]) };
}

/** Exit 1 when the reply is a refusal. */
export async function read(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      storage: { type: 'string' },
      offset: { type: 'string' },
      limit: { type: 'string' },
      pattern: { type: 'string' },
      bytes: { type: 'string' },
      from: { type: 'string' },
      ...TEAM_FLAGS,
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
  const target = values.from !== undefined ? teamTarget(values.from, values, io.env) : undefined;
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  // --from: that store alone; else this storage, then the configured team stores (docs/contracts.md §7.2).
  const teams = target ? [await syncedTeam(session, target, io)] : await configuredTeams(session, io.env);
  try {
    const handles = target ? teams[0]! : readThrough(session.runs, teams);
    return await readOnlyCall('read_tool_output', input, session, io, { handles });
  } finally {
    for (const t of teams) t.close();
  }
}

/** New runs fetched and indexed. */
async function syncedTeam(session: CliSession, target: ReturnType<typeof teamTarget>, io: CliIo): Promise<TeamStore> {
  const team = await openTeamStore(session, target);
  try {
    const report = await team.sync();
    for (const runId of report.refused)
      io.err(`bounded-evidence: ${runId} in ${target.name} was refused: ${ErrorText.digestMismatch}\n`);
  } catch (e) {
    team.close();
    throw e;
  }
  return team;
}

/** Through the core's call runner, so the reply is the editor's byte for byte. */
async function readOnlyCall(
  name: 'read_tool_output' | 'evidence_search',
  input: Record<string, unknown>,
  session: CliSession,
  io: CliIo,
  over: { handles?: HandleReader; runs?: RunStore; searchAlso?: () => Promise<RunStore[]> } = {},
): Promise<number> {
  const answer = await runToolCall(name, input, {
    runs: over.runs ?? session.runs,
    ...(over.handles && { handles: over.handles }),
    ...(over.searchAlso && { searchAlso: over.searchAlso }),
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

/** docs/contracts.md §2.11. */
export async function search(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      storage: { type: 'string' },
      tool: { type: 'string' },
      run: { type: 'string' },
      limit: { type: 'string' },
      from: { type: 'string' },
      ...TEAM_FLAGS,
    },
    { min: 1, max: 1, name: 'PATTERN' },
  );
  const input: Record<string, unknown> = { pattern: positionals[0] };
  const limit = wholeNumber('limit', values.limit, 1);
  if (limit !== undefined) input.limit = limit;
  if (values.tool !== undefined) input.tool = values.tool;
  if (values.run !== undefined) input.run = values.run;
  const checked = checkSearch(input);
  if (!checked.ok) throw new UsageError(checked.error);
  const target = values.from !== undefined ? teamTarget(values.from, values, io.env) : undefined;
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  if (!target) {
    // This storage, then the configured team stores, as the MCP server's search.
    const teams = await configuredTeams(session, io.env);
    const searchAlso = async (): Promise<RunStore[]> => {
      for (const t of teams)
        await t.sync().catch((e: unknown) => io.err(`bounded-evidence: ${t.name} could not be listed: ${String(e)}\n`));
      return teams.flatMap((t) => t.runStores());
    };
    try {
      return await readOnlyCall('evidence_search', input, session, io, { searchAlso });
    } finally {
      for (const t of teams) t.close();
    }
  }
  const team = await syncedTeam(session, target, io);
  try {
    // One answer per publishing storage (CI's, each teammate's).
    let code = 0;
    for (const runs of team.runStores())
      code = Math.max(code, await readOnlyCall('evidence_search', input, session, io, { runs }));
    if (team.runStores().length === 0) await io.out(`no runs in ${target.name}\n`);
    return code;
  } finally {
    team.close();
  }
}

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
    // By base name only, as the editor's import does: no host path in records.
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

export async function list(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { storage: { type: 'string' }, json: { type: 'boolean' }, from: { type: 'string' }, ...TEAM_FLAGS },
    { min: 0, max: 0, name: 'argument' },
  );
  if (values.from !== undefined) return listTeam(teamTarget(values.from, values, io.env), values, io);
  // `list` reads every run anyway: it also does the start-up checks the other subcommands skip.
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd), { maintenance: true });
  const runs = await session.runs.listRuns();
  if (values.json) {
    await io.out(`${JSON.stringify(runs)}\n`);
    return 0;
  }
  await io.out(runs.length ? `${runs.map(runLine).join('\n')}\n` : 'no runs recorded yet\n');
  return 0;
}

function runLine(r: RunSummary): string {
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
}

async function listTeam(
  target: ReturnType<typeof teamTarget>,
  values: { storage?: string; json?: boolean },
  io: CliIo,
): Promise<number> {
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  const team = await syncedTeam(session, target, io);
  try {
    const runs = await team.listRuns();
    const refused = [...team.refused];
    if (values.json) {
      await io.out(`${JSON.stringify({ runs, refused })}\n`);
      return 0;
    }
    const lines = [...runs.map(runLine), ...refused.map((id) => `${id}\trefused\t${ErrorText.digestMismatch}`)];
    await io.out(lines.length ? `${lines.join('\n')}\n` : `no runs in ${target.name}\n`);
    return refused.length > 0 ? 1 : 0;
  } finally {
    team.close();
  }
}

export async function verify(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { storage: { type: 'string' }, from: { type: 'string' }, ...TEAM_FLAGS },
    { min: 1, max: 1, name: 'HANDLE' },
  );
  const handle = positionals[0]!;
  const target = values.from !== undefined ? teamTarget(values.from, values, io.env) : undefined;
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  // As `read`: --from that store only; else this storage, then the configured team stores.
  const teams = target ? [await syncedTeam(session, target, io)] : await configuredTeams(session, io.env);
  try {
    let src;
    try {
      src = await openThrough(target ? [] : [session.runs], teams, handle);
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
  } finally {
    for (const t of teams) t.close();
  }
}

/** There is always one store, so the last one's access denied answers when none mints it. */
async function openThrough(
  locals: readonly RunStore[],
  teams: readonly TeamStore[],
  handle: string,
): Promise<HandleSource> {
  let denied: unknown;
  for (const store of [...locals, ...teams]) {
    try {
      return await store.openHandle(handle);
    } catch (e) {
      if (!(e instanceof EvidenceError) || e.code !== 'accessDenied') throw e;
      denied = e;
    }
  }
  throw denied;
}
