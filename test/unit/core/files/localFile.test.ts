import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { replaceFileText } from '../../../../src/core/files/localFile.js';
import { scratch } from '../runs/helpers.js';

describe('replaceFileText: a file replaced whole or not at all', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = scratch('local-file')));
  afterEach(() => cleanup());

  it('replaces the content with exactly the mode asked, whatever the umask, and leaves nothing beside it', async () => {
    const file = path.join(dir, 'settings.json');
    writeFileSync(file, 'old content that is longer than the new one\n', { mode: 0o644 });
    const umask = process.umask(0o077);
    try {
      await replaceFileText(file, '{"a":1}\n', 0o640);
    } finally {
      process.umask(umask);
    }
    assert.equal(readFileSync(file, 'utf8'), '{"a":1}\n');
    assert.equal(statSync(file).mode & 0o777, 0o640);
    assert.deepEqual(readdirSync(dir), ['settings.json']);
  });

  it('a failed rename throws, keeps what was there and removes its temporary file', async () => {
    // A folder at the target: the rename fails after the temporary file is written.
    const target = path.join(dir, 'taken');
    mkdirSync(target);
    writeFileSync(path.join(target, 'inside'), 'kept');
    await assert.rejects(replaceFileText(target, 'new text', 0o600), (e: NodeJS.ErrnoException) =>
      ['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(e.code ?? ''),
    );
    assert.deepEqual(readdirSync(dir), ['taken']);
    assert.equal(readFileSync(path.join(target, 'inside'), 'utf8'), 'kept');
  });
});
