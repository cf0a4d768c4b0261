/**
 * `boundedEvidence.teamStores` and the answers of **Add Team Evidence…**, checked (docs/contracts.md §7.3).
 * Editor-free, so the rules are unit-tested in plain Node. Only the user's (or the default) value counts: a
 * repository's workspace settings could otherwise point the editor at a bucket of its choosing, so a workspace value
 * is ignored and said so.
 */
import { EvidenceError, teamLocation, type TeamLocation } from '../../core/index.js';

/** How a team store's requests are signed: the AWS default chain, a named profile, or keys kept in SecretStorage. */
export type TeamCredentialChoice = 'default' | 'profile' | 'secretStorage';

/** One entry of `boundedEvidence.teamStores`, as written to user settings. */
export interface TeamStoreSetting {
  readonly name: string;
  /** `s3://BUCKET/PREFIX`. */
  readonly uri: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly pathStyle?: boolean;
  readonly credentials: TeamCredentialChoice;
  /** With `credentials: "profile"`. */
  readonly profile?: string;
}

/** A checked entry and where it points. */
export interface CheckedTeamStore {
  readonly setting: TeamStoreSetting;
  readonly location: TeamLocation;
}

/** What `WorkspaceConfiguration.inspect` returns for the setting (the parts read here). */
export interface InspectedSetting {
  readonly defaultValue?: unknown;
  readonly globalValue?: unknown;
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
}

/** SecretStorage key of one team store's access keys (JSON `{ accessKeyId, secretAccessKey }`). */
export function teamSecretKey(name: string): string {
  return `boundedEvidence.team.${name}.credentials`;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const REGION = /^[a-z0-9-]{1,32}$/;
const PROFILE = /^[A-Za-z0-9._@+-]{1,64}$/;
const KEY_ID = /^[A-Za-z0-9]{1,128}$/;

/** A store's name: an error sentence, or undefined when it is good. */
export function checkTeamName(name: string, taken: readonly string[] = []): string | undefined {
  if (!NAME.test(name)) return 'A name is 1 to 64 letters, digits, ".", "_" or "-".';
  if (taken.includes(name)) return `A team store named ${name} is already added.`;
  return undefined;
}

/** `s3://BUCKET/PREFIX`: an error sentence, or undefined. */
export function checkTeamUri(uri: string): string | undefined {
  return sentenceOf(() => teamLocation(uri, {}));
}

/** An optional endpoint (`http(s)://HOST[:PORT]`); empty is AWS itself. */
export function checkTeamEndpoint(endpoint: string): string | undefined {
  if (endpoint === '') return undefined;
  return sentenceOf(() => teamLocation('s3://bucket', {}, { endpoint }));
}

/** An optional region (`us-east-1`); empty is the AWS environment's, else `us-east-1`. */
export function checkTeamRegion(region: string): string | undefined {
  return region === '' || REGION.test(region)
    ? undefined
    : 'A region is lowercase letters, digits and "-", like us-east-1.';
}

/** A profile of the AWS configuration files. */
export function checkTeamProfile(profile: string): string | undefined {
  return PROFILE.test(profile) ? undefined : 'A profile name is 1 to 64 letters, digits, ".", "_", "@", "+" or "-".';
}

/** An access key id. */
export function checkAccessKeyId(id: string): string | undefined {
  return KEY_ID.test(id) ? undefined : 'An access key id is 1 to 128 letters and digits.';
}

/** A secret access key: kept in SecretStorage only. */
export function checkSecretAccessKey(secret: string): string | undefined {
  return secret.length >= 1 && secret.length <= 256 && !/\s/.test(secret)
    ? undefined
    : 'A secret access key is 1 to 256 characters without spaces.';
}

/**
 * The team stores of the user's settings, each checked; a workspace or folder value is ignored, and so is an entry that
 * does not check (each a line in `problems`).
 */
export function readTeamStores(
  inspected: InspectedSetting | undefined,
  env: NodeJS.ProcessEnv,
): { stores: CheckedTeamStore[]; problems: string[] } {
  const problems: string[] = [];
  if (inspected?.workspaceValue !== undefined || inspected?.workspaceFolderValue !== undefined)
    problems.push(
      'boundedEvidence.teamStores in workspace settings is ignored: team stores are added in user settings',
    );
  const value = inspected?.globalValue ?? inspected?.defaultValue;
  const stores: CheckedTeamStore[] = [];
  if (!Array.isArray(value)) return { stores, problems };
  for (const [i, raw] of value.entries()) {
    const checked = checkEntry(
      raw,
      stores.map((s) => s.setting.name),
      env,
    );
    if (typeof checked === 'string') problems.push(`boundedEvidence.teamStores entry ${i + 1} is ignored: ${checked}`);
    else stores.push(checked);
  }
  return { stores, problems };
}

/** One entry checked, or the sentence saying why not. */
export function checkEntry(raw: unknown, taken: readonly string[], env: NodeJS.ProcessEnv): CheckedTeamStore | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'it is not an object';
  const r = raw as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof r[k] === 'string' ? (r[k] as string).trim() : undefined);
  const name = str('name') ?? '';
  const uri = str('uri') ?? '';
  const endpoint = str('endpoint') ?? '';
  const region = str('region') ?? '';
  const credentials = r.credentials ?? 'default';
  const profile = str('profile') ?? '';
  const bad =
    checkTeamName(name, taken) ??
    checkTeamUri(uri) ??
    checkTeamEndpoint(endpoint) ??
    checkTeamRegion(region) ??
    (credentials === 'default' || credentials === 'profile' || credentials === 'secretStorage'
      ? undefined
      : '"credentials" is "default", "profile" or "secretStorage".') ??
    (credentials === 'profile' ? checkTeamProfile(profile) : undefined);
  if (bad) return bad.replace(/\.$/, '');
  const setting: TeamStoreSetting = {
    name,
    uri,
    ...(endpoint !== '' && { endpoint }),
    ...(region !== '' && { region }),
    ...(r.pathStyle === true && { pathStyle: true }),
    credentials: credentials as TeamCredentialChoice,
    ...(credentials === 'profile' && { profile }),
  };
  const location = teamLocation(uri, env, {
    ...(setting.endpoint !== undefined && { endpoint: setting.endpoint }),
    ...(setting.region !== undefined && { region: setting.region }),
    ...(setting.pathStyle === true && { pathStyle: true }),
    ...(setting.profile !== undefined && { profile: setting.profile }),
  });
  return { setting, location };
}

function sentenceOf(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (e) {
    if (e instanceof EvidenceError) return `${e.message[0]!.toUpperCase()}${e.message.slice(1)}.`;
    throw e;
  }
}

/**
 * The user's `boundedEvidence.teamStores` value without the entry named `name`, and that entry checked (undefined
 * when no entry has the name; an entry that does not check is removed all the same, with no location).
 */
export function withoutTeamStore(
  value: unknown,
  name: string,
  env: NodeJS.ProcessEnv,
): { remaining: unknown[]; removed: TeamLocation | null } | undefined {
  const entries = Array.isArray(value) ? value : [];
  const at = entries.findIndex((e) => nameOf(e) === name);
  if (at < 0) return undefined;
  const checked = checkEntry(entries[at], [], env);
  return {
    remaining: entries.filter((_, i) => i !== at),
    removed: typeof checked === 'string' ? null : checked.location,
  };
}

/** The names of the user's entries, in order, as written. */
export function teamStoreNames(value: unknown): string[] {
  return (Array.isArray(value) ? value : []).flatMap((e) => {
    const n = nameOf(e);
    return n === undefined ? [] : [n];
  });
}

function nameOf(e: unknown): string | undefined {
  const n = typeof e === 'object' && e !== null ? (e as { name?: unknown }).name : undefined;
  return typeof n === 'string' ? n.trim() : undefined;
}
