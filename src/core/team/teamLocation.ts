/**
 * Credentials are never part of a location, so nothing of ours that names a store can hold one (docs/contracts.md
 * §7).
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { EvidenceError } from '../errors.js';

export interface TeamLocation {
  readonly bucket: string;
  readonly prefix: string;
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly forcePathStyle: boolean;
  /** Undefined: the default chain. */
  readonly profile: string | undefined;
}

/** Access keys a caller holds (the editor's SecretStorage): never part of a location, never written by us. */
export interface TeamCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** What a person may give besides the URI (flags of the command line). */
export interface TeamConnection {
  readonly endpoint?: string;
  readonly region?: string;
  readonly pathStyle?: boolean;
  readonly profile?: string;
}

/** The stricter virtual-host rules are the server's business. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** The blob keys' safe characters, so a prefix never climbs or hides a path. */
const PREFIX_SEGMENT = /^[A-Za-z0-9._-]{1,128}$/;

/** Throws a sentence. */
export function teamLocation(uri: string, env: NodeJS.ProcessEnv, given: TeamConnection = {}): TeamLocation {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(uri);
  if (!m || !BUCKET.test(m[1]!)) throw new EvidenceError('invalidArgument', 'a team store is s3://BUCKET/PREFIX');
  const segments = (m[2] ?? '').split('/').filter((s) => s !== '');
  if (segments.some((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..'))
    throw new EvidenceError('invalidArgument', 'a team store prefix holds only letters, digits, ".", "_", "-" and "/"');
  const endpoint = given.endpoint || env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(endpoint))
    throw new EvidenceError('invalidArgument', 'the S3 endpoint is http(s)://HOST[:PORT]');
  return {
    bucket: m[1]!,
    prefix: segments.length > 0 ? `${segments.join('/')}/` : '',
    endpoint,
    region: given.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: given.pathStyle === true || (endpoint !== undefined && isLocalHost(endpoint)),
    profile: given.profile || undefined,
  };
}

/** No DNS name per bucket exists there (path-style). */
function isLocalHost(endpoint: string): boolean {
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost');
}

export function teamUri(location: TeamLocation): string {
  return `s3://${location.bucket}/${location.prefix}`.replace(/\/$/, '');
}

/** Hashed: no host name on disk. */
export function teamStoreId(location: TeamLocation): string {
  const name = `${location.endpoint ?? 'aws'}\n${location.bucket}\n${location.prefix}`;
  return `t${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}
