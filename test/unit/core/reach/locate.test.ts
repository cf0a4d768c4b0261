/**
 * The portable hook command committed project files hold, run by a real `/bin/sh` (src/core/reach/locate.ts): with no
 * command line on the machine it exits 0 printing nothing (every client then runs the call as written); with one it
 * starts it with the event on stdin untouched; and the storage a folder gets outside the editor.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultStorageFor, findStorage, portableCommand, portableWords } from '../../../../src/core/reach/locate.js';

describe('portable hook command and storage lookup', () => {
  let root: string;
  let bin: string;
  let home: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'be-locate-'));
    bin = path.join(root, 'bin');
    home = path.join(root, 'home');
    mkdirSync(bin);
    mkdirSync(home);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A stand-in command line that prints its arguments and then every byte of its stdin. */
  function fakeCli(file: string, name: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `#!/bin/sh\nprintf '%s|' ${name} "$@"\ncat\n`);
    chmodSync(file, 0o755);
  }
  const event = '{"tool_name":"Bash","tool_input":{"command":"echo \'hi\' \\"$HOME\\""}}\n';
  const run = (env: NodeJS.ProcessEnv) =>
    spawnSync('/bin/sh', ['-c', portableCommand(['hook', '--agent', 'claude'])], {
      env: { PATH: '/usr/bin:/bin', HOME: home, ...env },
      input: event,
      encoding: 'utf8',
    });

  it('names no path and reads back its words', () => {
    const c = portableCommand(['hook', '--agent', 'codex']);
    assert.ok(!c.includes('/tmp') && !c.includes(os.homedir()) && !c.includes(process.execPath), c);
    assert.deepEqual(portableWords(c), ['hook', '--agent', 'codex']);
    assert.throws(() => portableCommand(['hook', "x'y"]));
  });

  it('without the product anywhere: exit 0, nothing on stdout or stderr', () => {
    const r = run({});
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
    // A file of that name that is not executable is not run either.
    writeFileSync(path.join(bin, 'bounded-evidence'), 'not a program');
    const r2 = run({ PATH: `${bin}:/usr/bin:/bin`, BOUNDED_EVIDENCE_CLI: path.join(bin, 'bounded-evidence') });
    assert.deepEqual([r2.status, r2.stdout, r2.stderr], [0, '', '']);
  });

  it('finds the editor shim first, then PATH, then the per-user copy; the event reaches it byte for byte', () => {
    const stateCli = path.join(home, '.local', 'state', 'bounded-evidence', 'bin', 'bounded-evidence');
    fakeCli(stateCli, 'state');
    assert.equal(run({}).stdout, `state|hook|--agent|claude|${event}`);
    fakeCli(path.join(bin, 'bounded-evidence'), 'path');
    assert.equal(run({ PATH: `${bin}:/usr/bin:/bin` }).stdout, `path|hook|--agent|claude|${event}`);
    const shim = path.join(root, 'editor', 'bounded-evidence');
    fakeCli(shim, 'editor');
    const r = run({ PATH: `${bin}:/usr/bin:/bin`, BOUNDED_EVIDENCE_CLI: shim });
    assert.deepEqual([r.status, r.stdout], [0, `editor|hook|--agent|claude|${event}`]);
  });

  it("storage: flag, terminal, editor's map, else the folder's default keyed by its repository root", () => {
    const repo = path.join(root, 'repo');
    mkdirSync(path.join(repo, '.git'), { recursive: true });
    mkdirSync(path.join(repo, 'sub'));
    const env = { HOME: home };
    const d = findStorage(env, path.join(repo, 'sub'));
    assert.equal(d?.source, 'default');
    assert.equal(d?.dir, defaultStorageFor(env, repo));
    // The name earlier versions gave: their storage is found again.
    const digest = createHash('sha256').update(repo, 'utf8').digest('hex');
    assert.equal(path.basename(d!.dir), `repo-${digest.slice(0, 16)}`);
    assert.equal(path.dirname(d!.dir), path.join(home, '.local', 'share', 'bounded-evidence', 'workspaces'));
    const state = path.join(home, '.local', 'state', 'bounded-evidence');
    mkdirSync(state, { recursive: true });
    writeFileSync(path.join(state, 'workspaces.json'), JSON.stringify({ [repo]: '/mapped' }));
    assert.deepEqual(findStorage(env, path.join(repo, 'sub')), { dir: '/mapped', source: 'editor' });
    assert.deepEqual(findStorage({ ...env, BOUNDED_EVIDENCE_STORAGE: '/term' }, repo), {
      dir: '/term',
      source: 'environment',
    });
    assert.deepEqual(findStorage(env, repo, '/flag'), { dir: '/flag', source: 'flag' });
    assert.equal(findStorage({}, repo), undefined);
  });
});
