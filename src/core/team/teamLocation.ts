/**
 * Where a team store lives (docs/contracts.md §7): `s3://BUCKET/PREFIX` and how to reach it. The connection comes
 * from flags or the AWS environment (`AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_PROFILE`); credentials are never part
 * of a location, so nothing of ours that names a store can hold one.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { EvidenceError } from '../errors.js';

/** One team store: a bucket and a key prefix on an S3-compatible server. */
export interface TeamLocation {
  readonly bucket: string;
  /** Empty, or ending in `/`. */
  readonly prefix: string;
  /** Undefined: AWS itself. */
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly forcePathStyle: boolean;
  /** A named profile of the AWS configuration files; undefined: the default chain. */
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

/** Bucket names as S3 accepts them (the stricter virtual-host rules are the server's business). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Prefix segments: the blob keys' safe characters, so a prefix never climbs or hides a path. */
const PREFIX_SEGMENT = /^[A-Za-z0-9._-]{1,128}$/;

/** Parses `s3://BUCKET[/PREFIX]` with the connection from `given`, else the environment; throws a sentence. */
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

/** True for an endpoint on an IP address or `localhost`: no DNS name per bucket exists there (path-style). */
function isLocalHost(endpoint: string): boolean {
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost');
}

/** `s3://bucket/prefix` as people write it. */
export function teamUri(location: TeamLocation): string {
  return `s3://${location.bucket}/${location.prefix}`.replace(/\/$/, '');
}

/** A folder name for this store's local index: the server, bucket and prefix hashed (no host name on disk). */
export function teamStoreId(location: TeamLocation): string {
  const name = `${location.endpoint ?? 'aws'}\n${location.bucket}\n${location.prefix}`;
  return `t${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}
