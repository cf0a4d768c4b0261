/**
 * `boundedEvidence.teamStores` and the answers of Add Team Evidence… (docs/contracts.md §7.3): only the user's value
 * counts (a repository's workspace settings cannot point the editor at a bucket), and every answer is checked with a
 * sentence saying what is wrong.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  checkAccessKeyId,
  checkEntry,
  checkSecretAccessKey,
  checkTeamEndpoint,
  checkTeamName,
  checkTeamProfile,
  checkTeamRegion,
  checkTeamUri,
  readTeamStores,
  teamSecretKey,
  teamStoreNames,
  withoutTeamStore,
} from '../../../src/extension/team/teamSettings.js';

const ci = { name: 'ci', uri: 's3://team-bucket/evidence', endpoint: 'http://127.0.0.1:9000', credentials: 'default' };

describe('team store settings', () => {
  it('is declared application-scoped in package.json, so VS Code keeps it out of workspace settings too', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { scope?: string }> } };
    };
    assert.equal(pkg.contributes.configuration.properties['boundedEvidence.teamStores']?.scope, 'application');
  });

  it("ignores a workspace or folder value and reads the user's", () => {
    const evil = [{ name: 'evil', uri: 's3://attacker-bucket/x', credentials: 'default' }];
    const r = readTeamStores(
      { defaultValue: [], globalValue: [ci], workspaceValue: evil, workspaceFolderValue: evil },
      {},
    );
    assert.deepEqual(
      r.stores.map((s) => s.setting.name),
      ['ci'],
    );
    assert.deepEqual(r.problems, [
      'boundedEvidence.teamStores in workspace settings is ignored: team stores are added in user settings',
    ]);
    const only = readTeamStores({ defaultValue: [], workspaceValue: evil }, {});
    assert.deepEqual(only.stores, []);
    assert.equal(only.problems.length, 1);
  });

  it('reads the location with the connection given, path-style on a loopback endpoint', () => {
    const [s] = readTeamStores({ globalValue: [ci] }, {}).stores;
    assert.deepEqual(s!.location, {
      bucket: 'team-bucket',
      prefix: 'evidence/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      forcePathStyle: true,
      profile: undefined,
    });
    const aws = checkEntry(
      { name: 'prod', uri: 's3://prod-evidence', region: 'eu-west-1', credentials: 'profile', profile: 'reader' },
      [],
      {},
    );
    assert.ok(typeof aws !== 'string');
    assert.equal(aws.location.forcePathStyle, false);
    assert.equal(aws.location.profile, 'reader');
    assert.equal(aws.location.region, 'eu-west-1');
  });

  it('leaves out a bad entry with the sentence, keeps the good ones, and never takes two of one name', () => {
    const r = readTeamStores(
      {
        globalValue: [
          ci,
          { ...ci },
          { name: 'x', uri: 'https://bucket' },
          'ci',
          { name: 'p', uri: 's3://bucket', credentials: 'profile' },
          { name: 'k', uri: 's3://bucket', credentials: 'keys' },
        ],
      },
      {},
    );
    assert.deepEqual(
      r.stores.map((s) => s.setting.name),
      ['ci'],
    );
    assert.deepEqual(r.problems, [
      'boundedEvidence.teamStores entry 2 is ignored: A team store named ci is already added',
      'boundedEvidence.teamStores entry 3 is ignored: A team store is s3://BUCKET/PREFIX',
      'boundedEvidence.teamStores entry 4 is ignored: it is not an object',
      'boundedEvidence.teamStores entry 5 is ignored: ' +
        'A profile name is 1 to 64 letters, digits, ".", "_", "@", "+" or "-"',
      'boundedEvidence.teamStores entry 6 is ignored: "credentials" is "default", "profile" or "secretStorage"',
    ]);
  });

  it("checks each answer of the command with a sentence, and keeps keys' secret name per store", () => {
    assert.equal(checkTeamName('ci-main_2.x'), undefined);
    assert.equal(checkTeamName(''), 'A name is 1 to 64 letters, digits, ".", "_" or "-".');
    assert.equal(checkTeamName('a b'), 'A name is 1 to 64 letters, digits, ".", "_" or "-".');
    assert.equal(checkTeamName('ci', ['ci']), 'A team store named ci is already added.');
    assert.equal(checkTeamUri('s3://team-bucket/ci/main'), undefined);
    assert.equal(checkTeamUri('s3://Team'), 'A team store is s3://BUCKET/PREFIX.');
    assert.equal(
      checkTeamUri('s3://team-bucket/../other'),
      'A team store prefix holds only letters, digits, ".", "_", "-" and "/".',
    );
    assert.equal(checkTeamEndpoint(''), undefined);
    assert.equal(checkTeamEndpoint('https://minio.example:9000'), undefined);
    assert.equal(checkTeamEndpoint('minio.example'), 'The S3 endpoint is http(s)://HOST[:PORT].');
    assert.equal(checkTeamEndpoint('http://h/path'), 'The S3 endpoint is http(s)://HOST[:PORT].');
    assert.equal(checkTeamRegion(''), undefined);
    assert.equal(checkTeamRegion('eu-central-1'), undefined);
    assert.equal(checkTeamRegion('EU Central'), 'A region is lowercase letters, digits and "-", like us-east-1.');
    assert.equal(checkTeamProfile('ci-reader'), undefined);
    assert.match(checkTeamProfile('') ?? '', /^A profile name is/);
    assert.equal(checkAccessKeyId('AKIAIOSFODNN7EXAMPLE'), undefined);
    assert.equal(checkAccessKeyId('AKIA 1'), 'An access key id is 1 to 128 letters and digits.');
    assert.equal(checkSecretAccessKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCY'), undefined);
    assert.equal(checkSecretAccessKey(''), 'A secret access key is 1 to 256 characters without spaces.');
    assert.equal(teamSecretKey('ci'), 'boundedEvidence.team.ci.credentials');
  });

  it('Remove Team Evidence… takes out the named entry only, and says where its index was', () => {
    const mate = { name: 'mate', uri: 's3://team-bucket/mate', credentials: 'secretStorage' };
    const broken = { name: 'old', uri: 'not a uri' };
    const value = [ci, mate, broken, 42];
    assert.deepEqual(teamStoreNames(value), ['ci', 'mate', 'old']);
    const cut = withoutTeamStore(value, 'ci', {})!;
    assert.deepEqual(cut.remaining, [mate, broken, 42]);
    assert.equal(cut.removed?.bucket, 'team-bucket');
    assert.equal(cut.removed?.prefix, 'evidence/');
    assert.equal(cut.removed?.endpoint, 'http://127.0.0.1:9000');
    // An entry that no longer checks is removed all the same; there is no index of it to delete.
    assert.deepEqual(withoutTeamStore(value, 'old', {}), { remaining: [ci, mate, 42], removed: null });
    assert.equal(withoutTeamStore(value, 'nobody', {}), undefined);
    assert.equal(withoutTeamStore(undefined, 'ci', {}), undefined);
  });
});
