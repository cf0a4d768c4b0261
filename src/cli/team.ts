/**
 * Team stores on the command line (docs/contracts.md §7). No credential is ever taken from a flag or written
 * anywhere: the SDK's default chain provides them.
 */
import * as path from 'node:path';
import {
  configuredTeamStores,
  EvidenceError,
  publishRun,
  TeamStore,
  teamStoreOf,
  teamUri,
  type NamedTeamStore,
  type PublishReport,
} from '../core/index.js';
import { parseFlags, UsageError } from './args.js';
import type { CliIo } from './io.js';
import { openSession, storageDirOf, type CliSession } from './session.js';

export const TEAM_FLAGS = {
  endpoint: { type: 'string' },
  region: { type: 'string' },
  profile: { type: 'string' },
  'path-style': { type: 'boolean' },
} as const;

interface TeamFlagValues {
  readonly endpoint?: string;
  readonly region?: string;
  readonly profile?: string;
  readonly 'path-style'?: boolean;
}

/** A bad one is a usage error. */
export function teamTarget(value: string, flags: TeamFlagValues, env: NodeJS.ProcessEnv): NamedTeamStore {
  try {
    return teamStoreOf(value, env, {
      ...(flags.endpoint !== undefined && { endpoint: flags.endpoint }),
      ...(flags.region !== undefined && { region: flags.region }),
      ...(flags.profile !== undefined && { profile: flags.profile }),
      ...(flags['path-style'] === true && { pathStyle: true }),
    });
  } catch (e) {
    if (e instanceof EvidenceError) throw new UsageError(e.message);
    throw e;
  }
}

export function openTeamStore(session: CliSession, target: NamedTeamStore): Promise<TeamStore> {
  return TeamStore.open({
    name: target.name,
    location: target.location,
    teamDir: path.join(session.storage.root, 'team'),
    reader: { maxByteWindow: session.settings.maxRangeBytes },
  });
}

/** Not listed: a handle they lack lists them. */
export async function configuredTeams(session: CliSession, env: NodeJS.ProcessEnv): Promise<TeamStore[]> {
  let named: NamedTeamStore[];
  try {
    named = configuredTeamStores(env);
  } catch (e) {
    if (e instanceof EvidenceError) throw new UsageError(e.message);
    throw e;
  }
  return Promise.all(named.map((t) => openTeamStore(session, t)));
}

function reportLine(r: PublishReport, target: NamedTeamStore): string {
  const where = teamUri(target.location);
  if (r.run === 'present')
    return `${r.runId} was already in ${where} (${r.blobsUploaded} missing blob(s) uploaded, ${r.bytesUploaded} bytes)`;
  return (
    `published ${r.runId} to ${where}: ${r.blobsUploaded} blob(s) uploaded, ${r.blobsPresent} already there, ` +
    `${r.bytesUploaded} bytes`
  );
}

/** True when every run is in the bucket. */
export async function publishRuns(
  session: CliSession,
  target: NamedTeamStore,
  runIds: readonly string[],
  io: CliIo,
): Promise<boolean> {
  const { TeamBucket } = await import('../core/team/teamBucket.js');
  const bucket = new TeamBucket(target.location);
  const source = { logsDir: session.storage.logsDir, tenant: session.storage.tenant, blobs: session.blobs };
  let ok = true;
  try {
    for (const runId of runIds) {
      try {
        await io.out(`${reportLine(await publishRun(source, bucket, runId), target)}\n`);
      } catch (e) {
        ok = false;
        const why = e instanceof EvidenceError ? e.message : e instanceof Error ? e.message.split('\n')[0] : String(e);
        io.err(`bounded-evidence: ${runId.slice(0, 80)} was not published to ${teamUri(target.location)}: ${why}\n`);
      }
    }
  } finally {
    bucket.dispose();
  }
  return ok;
}

export async function publish(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { storage: { type: 'string' }, to: { type: 'string' }, ...TEAM_FLAGS },
    { min: 1, max: 1000, name: 'RUN_ID' },
  );
  if (values.to === undefined) throw new UsageError('--to s3://BUCKET/PREFIX (or a configured team store) is needed');
  const target = teamTarget(values.to, values, io.env);
  const session = await openSession(storageDirOf(values.storage, io.env, io.cwd));
  return (await publishRuns(session, target, positionals, io)) ? 0 : 1;
}
