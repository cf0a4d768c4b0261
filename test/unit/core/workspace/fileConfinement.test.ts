/**
 * `read_file` opens a file once, without following links at
 * any component, and proves the opened descriptor lies inside the root; secret files
 * are refused by one deny list shared by every front end (docs/contracts.md §5.3).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { LocalErrorText, LocalWorkspace } from '../../../../src/core/workspace/localWorkspace.js';
import { BUILTIN_DENY_PATTERNS, SecretPathRules } from '../../../../src/core/files/secretPaths.js';
import { tempDir } from '../evidence/helpers.js';

const read = (ws: LocalWorkspace, p: string): Promise<string> =>
  ws.execute({ tool: 'read_file', arguments: { path: p } });

describe('file reads are confined', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    t = tempDir('confine');
    root = path.join(t.dir, 'ws');
    outside = path.join(t.dir, 'outside');
    await fsp.mkdir(path.join(root, 'd'), { recursive: true });
    await fsp.mkdir(path.join(outside, 'd'), { recursive: true });
    await fsp.writeFile(path.join(root, 'd', 'f.txt'), 'inside');
    await fsp.writeFile(path.join(outside, 'd', 'f.txt'), 'OUTSIDE');
    await fsp.writeFile(path.join(outside, 'private.txt'), 'PRIVATE');
  });
  afterEach(() => t.cleanup());

  it('a folder swapped for a symlink during thousands of reads never yields a file from outside', async function () {
    this.timeout(180_000);
    const ws = await LocalWorkspace.open({ root });
    // The writer runs in its own process, as a background command in the workspace would:
    // it swaps `d` for a link to the outside folder and back as fast as it can.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `
      const fs = require('node:fs'); const path = require('node:path');
      const [root, target] = process.argv.slice(1);
      const d = path.join(root, 'd'), real = path.join(root, 'd.real');
      process.stdout.write('ready\\n');
      // Each step on its own: a step that fails leaves a state the next steps repair.
      const step = (f) => { try { f(); } catch {} };
      for (;;) {
        step(() => fs.renameSync(d, real)); step(() => fs.symlinkSync(target, d));
        step(() => fs.unlinkSync(d)); step(() => fs.renameSync(real, d));
      }`,
        root,
        path.join(outside, 'd'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => writer.stdout.once('data', () => resolve()));
    const answers = new Map<string, number>();
    try {
      const reads = 4000;
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < reads) {
          next++;
          const a = await read(ws, 'd/f.txt');
          answers.set(a, (answers.get(a) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    } finally {
      writer.kill('SIGKILL');
    }
    const tally = JSON.stringify([...answers]);
    assert.equal(answers.get('OUTSIDE') ?? 0, 0, `escapes: ${tally}`);
    // Only the file, or an honest refusal while the folder is away or is a link.
    for (const a of answers.keys())
      assert.ok(
        ['inside', LocalErrorText.notFound, LocalErrorText.pathEscapes].includes(a),
        `unexpected answer ${a} in ${tally}`,
      );
    assert.ok((answers.get('inside') ?? 0) > 0, tally);
    // The race was really run: some reads met the folder away or replaced by the link.
    assert.ok((answers.get(LocalErrorText.notFound) ?? 0) + (answers.get(LocalErrorText.pathEscapes) ?? 0) > 0, tally);
  });

  it('a link at the last component leading outside is refused', async () => {
    const ws = await LocalWorkspace.open({ root });
    await fsp.symlink(path.join(outside, 'private.txt'), path.join(root, 'escape.txt'));
    assert.equal(await read(ws, 'escape.txt'), LocalErrorText.pathEscapes);
  });

  it('a hard link to a file outside the root (nlink > 1) is refused', async () => {
    const ws = await LocalWorkspace.open({ root });
    await fsp.link(path.join(outside, 'private.txt'), path.join(root, 'hard.txt'));
    assert.equal(await read(ws, 'hard.txt'), LocalErrorText.hardLinked);
    assert.equal(await read(ws, 'd/f.txt'), 'inside');
  });

  it('refuses the secret files the probe read whole, and every built-in pattern', async () => {
    const files: Record<string, string> = {
      '.git-credentials': 'https://u:ghp_token@github.com',
      '.kube/config': 'apiVersion: v1\nusers: [{token: x}]',
      '.config/gh/hosts.yml': 'github.com:\n  oauth_token: gho_x',
      '.bash_history': 'export TOKEN=x',
      'home/.zsh_history': 'x',
      '.docker/config.json': '{"auths":{}}',
      '.npmrc': '//registry.npmjs.org/:_authToken=x',
      '.pypirc': '[pypi]\npassword = x',
      'deploy/id_ed25519': 'KEY',
      'certs/site.pem': 'KEY',
      'keys/store.jks': 'KEY',
      '.aws/credentials': '[default]',
      '.config/gcloud/credentials.db': 'x',
      'infra/terraform.tfstate': '{}',
      '.env': 'A=1',
      '.env.production': 'A=1',
      '.netrc': 'machine x password y',
      '.vault-token': 'x',
      '.cargo/credentials.toml': 'token = "x"',
      'config/credentials.json': '{"type":"authorized_user","refresh_token":"x"}',
      'keys/service-account-prod.json': '{"type":"service_account","private_key":"x"}',
      'service_account.json': '{"type":"service_account"}',
      'client_secret_123.apps.googleusercontent.com.json': '{"installed":{"client_secret":"x"}}',
      'app-firebase-adminsdk-ab12c-0123456789.json': '{"private_key":"x"}',
      'ci/application_default_credentials.json': '{"client_secret":"x"}',
      'home/.dockercfg': '{"auths":{}}',
      'tls/server.key': 'KEY',
      'certs/client.p12': 'KEY',
      '.pgpass': 'h:5432:db:u:pw',
    };
    for (const [rel, body] of Object.entries(files)) {
      await fsp.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await fsp.writeFile(path.join(root, rel), body);
    }
    await fsp.writeFile(path.join(root, '.env.example'), 'A=');
    await fsp.writeFile(path.join(root, 'history.md'), 'notes');
    await fsp.writeFile(path.join(root, 'package.json'), '{}');
    await fsp.writeFile(path.join(root, 'credentials.md'), 'how to get them');
    const ws = await LocalWorkspace.open({ root });
    for (const rel of Object.keys(files)) assert.equal(await read(ws, rel), LocalErrorText.pathSecret, rel);
    // Documented as not secret: an example env file, an ordinary name.
    assert.equal(await read(ws, '.env.example'), 'A=');
    assert.equal(await read(ws, 'history.md'), 'notes');
    assert.equal(await read(ws, 'package.json'), '{}');
    assert.equal(await read(ws, 'credentials.md'), 'how to get them');
    // A link to a secret is a secret too, and listings leave secrets out.
    await fsp.symlink(path.join(root, '.git-credentials'), path.join(root, 'creds.txt'));
    assert.equal(await read(ws, 'creds.txt'), LocalErrorText.pathSecret);
    const listing = await ws.execute({ tool: 'list_files', arguments: { path: '.' } });
    for (const hidden of ['.git-credentials', '.kube/', '.bash_history', '.npmrc'])
      assert.ok(!listing.split('\n').includes(hidden), listing);
    assert.ok(BUILTIN_DENY_PATTERNS.length >= 30);
  });

  it('a setting adds patterns; none removes a built-in', async () => {
    await fsp.writeFile(path.join(root, 'd', 'company.secret'), 'x');
    await fsp.writeFile(path.join(root, '.bash_history'), 'x');
    const ws = await LocalWorkspace.open({ root, denyPatterns: ['*.secret', '!.bash_history', '', 'd/f.txt'] });
    assert.equal(await read(ws, 'd/company.secret'), LocalErrorText.pathSecret);
    assert.equal(await read(ws, 'd/f.txt'), LocalErrorText.pathSecret);
    assert.equal(await read(ws, '.bash_history'), LocalErrorText.pathSecret);
    const plain = await LocalWorkspace.open({ root });
    assert.equal(await read(plain, 'd/company.secret'), 'x');
  });

  it('pattern matching: names match any segment, slashed patterns match trailing segments, case-insensitively', () => {
    const rules = new SecretPathRules(['build/*.log']);
    assert.ok(rules.isSecret('a/.KUBE/config'));
    assert.ok(rules.isSecret('x/.config/gh/hosts.yml'));
    assert.ok(!rules.isSecret('x/config/gh/hosts.yml'));
    assert.ok(rules.isSecret('p/build/out.log'));
    assert.ok(!rules.isSecret('p/build/sub/out.log'));
    assert.ok(!rules.isSecret('src/keys.ts'));
    assert.ok(rules.isSecret('.ssh'));
    assert.ok(rules.isSecret('.ssh/known_hosts'));
  });
});
