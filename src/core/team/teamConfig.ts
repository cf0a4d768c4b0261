/**
 * The team stores a person added, for the command line and the MCP server (docs/contracts.md §7.3): the environment
 * variable `BOUNDED_EVIDENCE_TEAM_STORES`, `NAME=s3://BUCKET/PREFIX` separated by commas. It is read from the
 * process's environment only, never from a file in a repository: a clone cannot point anyone's agent at a bucket.
 * The connection (endpoint, region, profile, credentials) is the AWS environment's.
 */
import { EvidenceError } from '../errors.js';
import { ENV } from '../processEnv.js';
import { teamLocation, type TeamConnection, type TeamLocation } from './teamLocation.js';

/** A named team store. */
export interface NamedTeamStore {
  readonly name: string;
  readonly location: TeamLocation;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** The stores `BOUNDED_EVIDENCE_TEAM_STORES` names; throws a sentence naming the bad entry's position. */
export function configuredTeamStores(env: NodeJS.ProcessEnv): NamedTeamStore[] {
  const raw = env[ENV.teamStores]?.trim() ?? '';
  if (raw === '') return [];
  return raw.split(',').map((entry, i) => {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq).trim();
    if (eq < 0 || !NAME.test(name))
      throw new EvidenceError('invalidArgument', `${ENV.teamStores}: entry ${i + 1} is not NAME=s3://BUCKET/PREFIX`);
    return { name, location: teamLocation(entry.slice(eq + 1).trim(), env) };
  });
}

/** `--from`/`--to`: an `s3://` URI (with the flags' connection), or the name of a configured store. */
export function teamStoreOf(value: string, env: NodeJS.ProcessEnv, given: TeamConnection = {}): NamedTeamStore {
  if (value.startsWith('s3://')) return { name: value.replace(/\/$/, ''), location: teamLocation(value, env, given) };
  const found = configuredTeamStores(env).find((s) => s.name === value);
  if (!found)
    throw new EvidenceError('invalidArgument', `no team store named ${value.slice(0, 64)} (see ${ENV.teamStores})`);
  return found;
}
