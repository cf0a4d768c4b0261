/**
 * The team stores a person added (docs/contracts.md §7.3), from the process's environment only: a clone cannot point
 * anyone's agent at a bucket.
 */
import { EvidenceError } from '../errors.js';
import { ENV } from '../processEnv.js';
import { teamLocation, type TeamConnection, type TeamLocation } from './teamLocation.js';

export interface NamedTeamStore {
  readonly name: string;
  readonly location: TeamLocation;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Throws a sentence naming the bad entry's position. */
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

export function teamStoreOf(value: string, env: NodeJS.ProcessEnv, given: TeamConnection = {}): NamedTeamStore {
  if (value.startsWith('s3://')) return { name: value.replace(/\/$/, ''), location: teamLocation(value, env, given) };
  const found = configuredTeamStores(env).find((s) => s.name === value);
  if (!found)
    throw new EvidenceError('invalidArgument', `no team store named ${value.slice(0, 64)} (see ${ENV.teamStores})`);
  return found;
}
