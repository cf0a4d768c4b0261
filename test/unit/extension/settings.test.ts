import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  DefaultSettings,
  MODEL_TEXT_LIMIT_BYTES,
  readSettings,
  SettingKeys,
  type SettingSource,
} from '../../../src/extension/settings.js';
import { DEFAULT_RUN_LIMITS } from '../../../src/core/index.js';

const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: {
    configuration: { properties: Record<string, { default: unknown; minimum?: number; maximum?: number }> };
  };
};
const props = pkg.contributes.configuration.properties;

function source(values: Record<string, unknown>): SettingSource {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

describe('extension settings', () => {
  it('declares every key in package.json, and nothing else', () => {
    const declared = Object.keys(props)
      .map((k) => k.replace(/^boundedEvidence\./, ''))
      .sort();
    assert.deepEqual(declared, Object.values(SettingKeys).sort());
  });

  it('reads package.json defaults when nothing is set, equal to DefaultSettings', () => {
    const fromPackage = readSettings(
      source(
        Object.fromEntries(Object.entries(props).map(([k, v]) => [k.replace(/^boundedEvidence\./, ''), v.default])),
      ),
    );
    assert.deepEqual(fromPackage, DefaultSettings);
    assert.deepEqual(readSettings(source({})), DefaultSettings);
    // One set of agent limits: the core's defaults are the editor's (and so the MCP server's and the command line's).
    // (package.json's own numbers against the core's: DefaultSettings is defined from the latter.)
    assert.deepEqual(
      {
        largeResultBytes: props['boundedEvidence.largeResultBytes']!.default,
        previewBytes: props['boundedEvidence.previewBytes']!.default,
      },
      DEFAULT_RUN_LIMITS,
    );
    // 448 head + 448 tail bytes: the reading-economy target (docs/contracts.md §3.2).
    assert.equal(props['boundedEvidence.previewBytes']!.default, 896);
  });

  it('keeps the defaults under the 8 KiB model limit with room for metadata', () => {
    assert.ok(DefaultSettings.maxInlineBytes + 512 < MODEL_TEXT_LIMIT_BYTES);
    assert.ok(DefaultSettings.largeResultBytes + 512 < MODEL_TEXT_LIMIT_BYTES);
    assert.ok(DefaultSettings.maxRangeBytes + 512 < MODEL_TEXT_LIMIT_BYTES);
  });

  it('clamps out-of-range numbers to the declared range and ignores wrong types', () => {
    const s = readSettings(
      source({
        maxInlineBytes: 10,
        previewBytes: 1e9,
        maxRangeBytes: 2.9,
        largeResultBytes: 'big',
        captureCapBytes: -5,
        'retention.maxAgeDays': -1,
        preservation: 'maybe',
        'storage.backend': 'ftp',
      }),
    );
    assert.equal(s.maxInlineBytes, props['boundedEvidence.maxInlineBytes']!.minimum);
    assert.equal(s.previewBytes, s.maxInlineBytes, 'previewBytes never exceeds maxInlineBytes (the core refuses that)');
    assert.equal(s.maxRangeBytes, 4, 'floored, then raised to the minimum');
    assert.equal(s.largeResultBytes, DefaultSettings.largeResultBytes);
    // Below 0 is 0, no cap (the default); a cap itself is at least 1024 bytes.
    assert.equal(s.captureCapBytes, 0);
    assert.equal(readSettings(source({ captureCapBytes: 5 })).captureCapBytes, 1024);
    assert.equal(s.retentionMaxAgeMs, DefaultSettings.retentionMaxAgeMs);
    assert.equal(s.preservation, 'best_effort');
    assert.equal(s.backend, 'filesystem');
  });

  it('converts retention units and reads S3 settings', () => {
    const s = readSettings(
      source({
        'retention.maxStorageMB': 3,
        'retention.maxAgeDays': 0.5,
        'storage.backend': 's3',
        'storage.s3.bucket': ' b ',
        'storage.s3.region': '',
        'storage.s3.forcePathStyle': false,
      }),
    );
    assert.equal(s.retentionMaxBytes, 3 * 1024 * 1024);
    assert.equal(s.retentionMaxAgeMs, 43_200_000);
    assert.equal(s.backend, 's3');
    assert.deepEqual(s.s3, {
      endpoint: '',
      region: 'us-east-1',
      bucket: 'b',
      prefix: 'bounded-evidence/',
      forcePathStyle: false,
    });
  });

  it('reads added secret-file patterns, dropping blanks and non-strings', () => {
    assert.deepEqual(
      readSettings(source({ 'readFile.denyPatterns': ['*.secret', ' ', 3, 'conf/prod.yml'] })).readFileDenyPatterns,
      ['*.secret', 'conf/prod.yml'],
    );
    assert.deepEqual(readSettings(source({ 'readFile.denyPatterns': '*.secret' })).readFileDenyPatterns, []);
  });
});
