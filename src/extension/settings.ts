/**
 * The `boundedEvidence.*` settings, clamped to package.json's ranges because VS Code does not validate a hand-edited
 * settings.json; a limit below the core's minimum would otherwise throw inside a tool call. Editor-free for unit
 * tests.
 */

import { DEFAULT_RUN_LIMITS, type BlobSettings, type S3BlobSettings } from '../core/index.js';

export { MODEL_TEXT_LIMIT_BYTES } from '../core/index.js';

type StorageBackend = BlobSettings['backend'];

/** Credentials live in SecretStorage, never here. */
type S3Settings = S3BlobSettings;

export interface EvidenceSettings {
  readonly maxInlineBytes: number;
  readonly previewBytes: number;
  readonly maxRangeBytes: number;
  readonly largeResultBytes: number;
  /** 0 means none, the default: outputs are kept whole while retention allows. */
  readonly captureCapBytes: number;
  readonly commandTimeoutMs: number;
  readonly searchTimeoutMs: number;
  readonly preservation: 'best_effort' | 'required';
  /** 0 means none. */
  readonly retentionMaxBytes: number;
  /** 0 means none. */
  readonly retentionMaxAgeMs: number;
  readonly backend: StorageBackend;
  readonly s3: S3Settings;
  /** None removes a built-in. */
  readonly readFileDenyPatterns: readonly string[];
  /** docs/contracts.md §6. */
  readonly recordOtherToolResults: boolean;
}

/** Must match package.json. */
export const SettingKeys = {
  maxInlineBytes: 'maxInlineBytes',
  previewBytes: 'previewBytes',
  maxRangeBytes: 'maxRangeBytes',
  largeResultBytes: 'largeResultBytes',
  captureCapBytes: 'captureCapBytes',
  commandTimeoutMs: 'commandTimeoutMs',
  searchTimeoutMs: 'searchTimeoutMs',
  preservation: 'preservation',
  retentionMaxStorageMB: 'retention.maxStorageMB',
  retentionMaxAgeDays: 'retention.maxAgeDays',
  backend: 'storage.backend',
  s3Endpoint: 'storage.s3.endpoint',
  s3Region: 'storage.s3.region',
  s3Bucket: 'storage.s3.bucket',
  s3Prefix: 'storage.s3.prefix',
  s3ForcePathStyle: 'storage.s3.forcePathStyle',
  /** Read apart (src/extension/team/teamSettings.ts): only the user's value counts. */
  teamStores: 'teamStores',
  readFileDenyPatterns: 'readFile.denyPatterns',
  recordOtherToolResults: 'hooks.recordOtherToolResults',
} as const;

/** Equal to package.json's. */
export const DefaultSettings: EvidenceSettings = {
  maxInlineBytes: 4096,
  previewBytes: DEFAULT_RUN_LIMITS.previewBytes,
  maxRangeBytes: 4096,
  largeResultBytes: DEFAULT_RUN_LIMITS.largeResultBytes,
  captureCapBytes: 0,
  commandTimeoutMs: 600_000,
  searchTimeoutMs: 30_000,
  preservation: 'best_effort',
  retentionMaxBytes: 2048 * 1024 * 1024,
  retentionMaxAgeMs: 30 * 86_400_000,
  backend: 'filesystem',
  s3: { endpoint: '', region: 'us-east-1', bucket: '', prefix: 'bounded-evidence/', forcePathStyle: true },
  readFileDenyPatterns: [],
  recordOtherToolResults: false,
};

export interface SettingSource {
  get<T>(key: string): T | undefined;
}

function int(src: SettingSource, key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = src.get<unknown>(key);
  if (typeof v !== 'number' || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(v)));
}

function str(src: SettingSource, key: string, fallback: string): string {
  const v = src.get<unknown>(key);
  return typeof v === 'string' ? v.trim() : fallback;
}

function stringList(src: SettingSource, key: string): string[] {
  const v = src.get<unknown>(key);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

/** package.json's minimum for a cap. */
function capSetting(v: number): number {
  return v === 0 ? 0 : Math.max(1024, v);
}

export function readSettings(src: SettingSource): EvidenceSettings {
  const d = DefaultSettings;
  const maxInlineBytes = int(src, SettingKeys.maxInlineBytes, d.maxInlineBytes, 512, 6144);
  // The core refuses previewBytes > maxInlineBytes: clamp rather than fail a tool call.
  const previewBytes = Math.min(int(src, SettingKeys.previewBytes, d.previewBytes, 1, 4096), maxInlineBytes);
  const mb = int(src, SettingKeys.retentionMaxStorageMB, 2048, 0);
  const ageDaysRaw = src.get<unknown>(SettingKeys.retentionMaxAgeDays);
  const ageDays = typeof ageDaysRaw === 'number' && Number.isFinite(ageDaysRaw) && ageDaysRaw >= 0 ? ageDaysRaw : 30;
  const preservation = src.get<unknown>(SettingKeys.preservation) === 'required' ? 'required' : 'best_effort';
  const backend = src.get<unknown>(SettingKeys.backend) === 's3' ? 's3' : 'filesystem';
  const force = src.get<unknown>(SettingKeys.s3ForcePathStyle);
  return {
    maxInlineBytes,
    previewBytes,
    maxRangeBytes: int(src, SettingKeys.maxRangeBytes, d.maxRangeBytes, 4, 4096),
    largeResultBytes: int(src, SettingKeys.largeResultBytes, d.largeResultBytes, 256, 6144),
    captureCapBytes: capSetting(int(src, SettingKeys.captureCapBytes, d.captureCapBytes, 0)),
    commandTimeoutMs: int(src, SettingKeys.commandTimeoutMs, d.commandTimeoutMs, 1000, 3_600_000),
    searchTimeoutMs: int(src, SettingKeys.searchTimeoutMs, d.searchTimeoutMs, 100, 600_000),
    preservation,
    retentionMaxBytes: mb * 1024 * 1024,
    retentionMaxAgeMs: Math.round(ageDays * 86_400_000),
    backend,
    s3: {
      endpoint: str(src, SettingKeys.s3Endpoint, d.s3.endpoint),
      region: str(src, SettingKeys.s3Region, d.s3.region) || d.s3.region,
      bucket: str(src, SettingKeys.s3Bucket, d.s3.bucket),
      prefix: str(src, SettingKeys.s3Prefix, d.s3.prefix),
      forcePathStyle: typeof force === 'boolean' ? force : d.s3.forcePathStyle,
    },
    readFileDenyPatterns: stringList(src, SettingKeys.readFileDenyPatterns),
    recordOtherToolResults: src.get<unknown>(SettingKeys.recordOtherToolResults) === true,
  };
}
