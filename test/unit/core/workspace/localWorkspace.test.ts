import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { LocalErrorText, LocalWorkspace } from '../../../../src/core/workspace/localWorkspace.js';
import { BUILTIN_SECRET_RULES } from '../../../../src/core/files/secretPaths.js';

const isSecretName = (segment: string): boolean => BUILTIN_SECRET_RULES.isSecret(segment);
import { tempDir } from '../evidence/helpers.js';

const call = (tool: string, args: Record<string, unknown>) => ({ tool, arguments: args });

describe('local workspace (1.4)', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    t = tempDir('local');
    root = path.join(t.dir, 'ws');
    outside = path.join(t.dir, 'outside');
    await fsp.mkdir(path.join(root, 'src', 'deep'), { recursive: true });
    await fsp.mkdir(outside);
    await fsp.writeFile(path.join(outside, 'private.txt'), 'outside the root');
    await fsp.writeFile(path.join(root, 'README.md'), '# title\r\nbody without final newline');
    await fsp.writeFile(path.join(root, 'src', 'a.ts'), '\uFEFFexport const é = "😀";\n');
    await fsp.writeFile(path.join(root, 'src', 'deep', 'b.txt'), 'b');
    await fsp.writeFile(path.join(root, '.env'), 'TOKEN=secret');
    await fsp.writeFile(path.join(root, '.env.local'), 'TOKEN=secret');
    await fsp.mkdir(path.join(root, '.git'));
    await fsp.writeFile(path.join(root, '.git', 'config'), '[core]');
    await fsp.writeFile(path.join(root, 'server.pem'), 'KEY');
    await fsp.writeFile(path.join(root, '.gitignore'), 'node_modules\n');
  });
  afterEach(() => t.cleanup());

  describe('read_file', () => {
    it('returns the text exactly as stored: no header, no line numbers, BOM and CRLF kept', async () => {
      const ws = await LocalWorkspace.open({ root });
      assert.equal(await ws.execute(call('read_file', { path: 'README.md' })), '# title\r\nbody without final newline');
      assert.equal(await ws.execute(call('read_file', { path: 'src/a.ts' })), '\uFEFFexport const é = "😀";\n');
      assert.equal(await ws.execute(call('read_file', { path: './src//deep/b.txt' })), 'b');
      assert.equal(await ws.execute(call('read_file', { path: 'src\\deep\\b.txt' })), 'b');
    });

    it("refuses a file over maxFileBytes with the contract's sentence; exactly maxFileBytes is read", async () => {
      const ws = await LocalWorkspace.open({ root, maxFileBytes: 12 });
      await fsp.writeFile(path.join(root, 'twelve.txt'), 'éééééé'); // 6 × 2 bytes
      await fsp.writeFile(path.join(root, 'thirteen.txt'), 'éééééé!');
      assert.equal(await ws.execute(call('read_file', { path: 'twelve.txt' })), 'éééééé');
      assert.equal(await ws.execute(call('read_file', { path: 'thirteen.txt' })), 'error: file exceeds 12 bytes');
    });

    it('answers missing files, folders and binary files with short errors', async () => {
      const ws = await LocalWorkspace.open({ root });
      await fsp.writeFile(path.join(root, 'bin.dat'), Uint8Array.of(0xff, 0x00, 0xfe));
      assert.equal(await ws.execute(call('read_file', { path: 'nope.txt' })), LocalErrorText.notFound);
      assert.equal(await ws.execute(call('read_file', { path: 'src' })), LocalErrorText.isFolder);
      assert.equal(await ws.execute(call('read_file', { path: '.' })), LocalErrorText.isFolder);
      assert.equal(await ws.execute(call('read_file', { path: 'bin.dat' })), LocalErrorText.notUtf8);
      for (const bad of [undefined, '', 42, 'a\0b'])
        assert.equal(await ws.execute(call('read_file', { path: bad })), LocalErrorText.pathMissing);
    });
  });

  describe('confinement', () => {
    it('refuses absolute paths and ".." segments', async () => {
      const ws = await LocalWorkspace.open({ root });
      for (const p of [
        '/etc/passwd',
        path.join(root, 'README.md'),
        'C:\\Windows\\win.ini',
        'c:relative',
        '\\\\server\\share',
      ]) {
        assert.equal(await ws.execute(call('read_file', { path: p })), LocalErrorText.pathAbsolute, p);
      }
      for (const p of [
        '..',
        '../outside/private.txt',
        'src/../README.md',
        'src/..\\..\\outside',
        'src/deep/../../..',
      ]) {
        assert.equal(await ws.execute(call('read_file', { path: p })), LocalErrorText.pathDotDot, p);
        assert.equal(await ws.execute(call('list_files', { path: p })), LocalErrorText.pathDotDot, p);
      }
    });

    it('refuses secrets, by name or through a symlink', async () => {
      const ws = await LocalWorkspace.open({ root });
      await fsp.symlink(path.join(root, '.env'), path.join(root, 'notes.txt'));
      await fsp.mkdir(path.join(root, 'keys'));
      await fsp.writeFile(path.join(root, 'keys', 'id_rsa'), 'KEY');
      for (const p of [
        '.env',
        '.env.local',
        '.ENV',
        '.git/config',
        '.git',
        'server.pem',
        'keys/id_rsa',
        'x/.ssh/known_hosts',
        'tls.KEY',
        'notes.txt',
      ]) {
        assert.equal(await ws.execute(call('read_file', { path: p })), LocalErrorText.pathSecret, p);
      }
      assert.equal(await ws.execute(call('list_files', { path: '.git' })), LocalErrorText.pathSecret);
      assert.equal(await ws.execute(call('read_file', { path: '.gitignore' })), 'node_modules\n');
      for (const n of [
        '.env',
        '.env.production',
        '.git',
        '.ssh',
        'id_ed25519',
        'id_rsa.pub',
        'a.pem',
        'b.key',
        'c.p12',
        '.npmrc',
        '.aws',
      ])
        assert.ok(isSecretName(n), n);
      for (const n of ['.gitignore', 'env', 'keys', 'monkey', 'a.keys', 'README.md']) assert.ok(!isSecretName(n), n);
    });

    it('refuses symlinks that leave the root; links inside it work', async () => {
      const ws = await LocalWorkspace.open({ root });
      await fsp.symlink(path.join(outside, 'private.txt'), path.join(root, 'escape.txt'));
      await fsp.symlink(outside, path.join(root, 'escape-dir'));
      await fsp.symlink(path.join(root, 'src'), path.join(root, 'src-link'));
      assert.equal(await ws.execute(call('read_file', { path: 'escape.txt' })), LocalErrorText.pathEscapes);
      assert.equal(await ws.execute(call('read_file', { path: 'escape-dir/private.txt' })), LocalErrorText.pathEscapes);
      assert.equal(await ws.execute(call('list_files', { path: 'escape-dir' })), LocalErrorText.pathEscapes);
      assert.equal(await ws.execute(call('read_file', { path: 'src-link/deep/b.txt' })), 'b');
    });

    it('never names a host path in any answer', async () => {
      const ws = await LocalWorkspace.open({ root, allowWrites: true, allowedCommands: ['node'] });
      await fsp.symlink(outside, path.join(root, 'escape-dir'));
      const answers = await Promise.all([
        ws.execute(call('read_file', { path: 'escape-dir/private.txt' })),
        ws.execute(call('read_file', { path: '/etc/passwd' })),
        ws.execute(call('read_file', { path: 'missing' })),
        ws.execute(call('write_file', { path: 'escape-dir/new.txt', content: 'x' })),
        ws.execute(call('list_files', {})),
        ws.execute(call('nope', {})),
        ws.execute(call('run_command', { command: 'node', args: ['-e', 'process.stdout.write("ok")'] })),
        Promise.resolve(JSON.stringify(ws.policy)),
      ]);
      for (const a of answers) assert.ok(!a.includes(t.dir), a);
    });
  });

  describe('list_files', () => {
    it('lists one relative path per line, sorted, folders with a trailing "/", secrets and escaping links left out', async () => {
      const ws = await LocalWorkspace.open({ root });
      await fsp.symlink(outside, path.join(root, 'escape-dir'));
      await fsp.symlink(path.join(root, 'src'), path.join(root, 'src-link'));
      await fsp.symlink(path.join(root, 'missing'), path.join(root, 'dangling'));
      assert.equal(
        await ws.execute(call('list_files', {})),
        ['.gitignore', 'README.md', 'src-link/', 'src/'].join('\n'),
      );
      assert.equal(await ws.execute(call('list_files', { path: 'src' })), 'src/a.ts\nsrc/deep/');
      assert.equal(await ws.execute(call('list_files', { path: 'src/deep/' })), 'src/deep/b.txt');
      assert.equal(await ws.execute(call('list_files', { path: 'README.md' })), LocalErrorText.notFolder);
      await fsp.mkdir(path.join(root, 'empty'));
      assert.equal(await ws.execute(call('list_files', { path: 'empty' })), '');
    });
  });

  describe('write_file', () => {
    it('is not offered unless writes are allowed', async () => {
      const ws = await LocalWorkspace.open({ root });
      assert.deepEqual(
        ws.availableTools.map((s) => s.name),
        ['read_file', 'list_files'],
      );
      assert.equal(
        await ws.execute(call('write_file', { path: 'x.txt', content: 'x' })),
        'error: unknown tool; available tools: read_file, list_files',
      );
      await assert.rejects(fsp.stat(path.join(root, 'x.txt')), /ENOENT/);
      assert.deepEqual(ws.modifiedFiles, []);
    });

    it('writes inside the root, creating folders, and records modified files sorted and once', async () => {
      const ws = await LocalWorkspace.open({ root, allowWrites: true, maxFileBytes: 8 });
      assert.equal(
        await ws.execute(call('write_file', { path: 'out/z.txt', content: 'zé' })),
        'wrote 3 bytes to out/z.txt',
      );
      assert.equal(await ws.execute(call('write_file', { path: './a.txt', content: '' })), 'wrote 0 bytes to a.txt');
      assert.equal(
        await ws.execute(call('write_file', { path: 'out/z.txt', content: 'again' })),
        'wrote 5 bytes to out/z.txt',
      );
      assert.equal(await fsp.readFile(path.join(root, 'out', 'z.txt'), 'utf8'), 'again');
      assert.deepEqual(ws.modifiedFiles, ['a.txt', 'out/z.txt']);
      assert.equal(
        await ws.execute(call('write_file', { path: 'big.txt', content: 'ééééé' })),
        'error: file exceeds 8 bytes',
      );
      assert.equal(await ws.execute(call('write_file', { path: 'c.txt', content: 3 })), LocalErrorText.contentMissing);
      assert.equal(await ws.execute(call('write_file', { path: 'src', content: 'x' })), LocalErrorText.isFolder);
    });

    it('refuses to write secrets, outside the root, or through an escaping link', async () => {
      const ws = await LocalWorkspace.open({ root, allowWrites: true });
      await fsp.symlink(outside, path.join(root, 'escape-dir'));
      await fsp.symlink(path.join(outside, 'private.txt'), path.join(root, 'escape.txt'));
      assert.equal(await ws.execute(call('write_file', { path: '.env', content: 'x' })), LocalErrorText.pathSecret);
      assert.equal(await ws.execute(call('write_file', { path: '../x.txt', content: 'x' })), LocalErrorText.pathDotDot);
      assert.equal(
        await ws.execute(call('write_file', { path: '/tmp/x.txt', content: 'x' })),
        LocalErrorText.pathAbsolute,
      );
      assert.equal(
        await ws.execute(call('write_file', { path: 'escape-dir/new/x.txt', content: 'x' })),
        LocalErrorText.pathEscapes,
      );
      assert.equal(
        await ws.execute(call('write_file', { path: 'escape.txt', content: 'x' })),
        LocalErrorText.pathEscapes,
      );
      assert.deepEqual(await fsp.readdir(outside), ['private.txt']);
      assert.equal(await fsp.readFile(path.join(outside, 'private.txt'), 'utf8'), 'outside the root');
      assert.deepEqual(ws.modifiedFiles, []);
    });
  });

  describe('run_command', () => {
    it('runs only allowed programs, without a shell, and reports the exit code', async () => {
      const ws = await LocalWorkspace.open({ root, allowedCommands: ['node'] });
      assert.deepEqual(
        ws.availableTools.map((s) => s.name),
        ['read_file', 'list_files', 'run_command'],
      );
      assert.equal(
        await ws.execute(
          call('run_command', { command: 'node', args: ['-e', 'console.log("hi é"); process.exit(3)'] }),
        ),
        'hi é\n[exit code: 3]',
      );
      // No shell: "$HOME" and ";" are plain arguments.
      assert.equal(
        await ws.execute(
          call('run_command', {
            command: 'node',
            args: ['-e', 'process.stdout.write(process.argv.slice(1).join("|"))', '$HOME', ';', 'rm'],
          }),
        ),
        '$HOME|;|rm\n[exit code: 0]',
      );
      assert.equal(
        await ws.execute(call('run_command', { command: 'node -e process.stdout.write(process.cwd())' })),
        `${ws.root}\n[exit code: 0]`,
      );
      assert.equal(
        await ws.execute(call('run_command', { command: 'sh -c true' })),
        'error: command is not allowed in this workspace; allowed: node',
      );
      assert.equal(
        await ws.execute(call('run_command', { command: '/usr/bin/node', args: [] })),
        'error: command is not allowed in this workspace; allowed: node',
      );
      assert.equal(
        await ws.execute(call('run_command', { command: 'node', args: 'x' })),
        LocalErrorText.commandMissing,
      );
      assert.equal(
        await ws.execute(call('run_command', { command: 'node -e 1', args: [] })),
        LocalErrorText.commandMissing,
      );
      assert.equal(await ws.execute(call('run_command', {})), LocalErrorText.commandMissing);
    });

    it('is not offered without allowed commands', async () => {
      const ws = await LocalWorkspace.open({ root });
      assert.equal(
        await ws.execute(call('run_command', { command: 'node' })),
        'error: unknown tool; available tools: read_file, list_files',
      );
    });

    it('kills a command and its children at the timeout and keeps what it printed', async () => {
      const ws = await LocalWorkspace.open({ root, allowedCommands: ['sh'], commandTimeoutMs: 300 });
      // The shell's child `sleep` holds the output pipe: only killing the group ends the call.
      const out = await ws.execute(
        call('run_command', { command: 'sh', args: ['-c', 'echo started; sleep 20; echo never'] }),
      );
      // Order, not time: `never` is missing, so the call answered before the tree could end on its own.
      assert.equal(out, 'started\n[timed out after 300 ms]');
    });

    it('caps the output it keeps and says how much was produced', async () => {
      const ws = await LocalWorkspace.open({ root, allowedCommands: ['node'], maxOutputBytes: 10 });
      assert.equal(
        await ws.execute(
          call('run_command', { command: 'node', args: ['-e', 'process.stdout.write("x".repeat(25))'] }),
        ),
        'xxxxxxxxxx\n[exit code: 0]\n[output truncated: kept 10 of 25 bytes]',
      );
    });

    it('answers a program that cannot start with a short error', async () => {
      const ws = await LocalWorkspace.open({ root, allowedCommands: ['no-such-program-xyz'] });
      assert.equal(
        await ws.execute(call('run_command', { command: 'no-such-program-xyz' })),
        LocalErrorText.commandFailed,
      );
    });
  });

  describe('policy and options', () => {
    it('states its policy without host paths', async () => {
      const ws = await LocalWorkspace.open({
        root,
        allowWrites: true,
        allowedCommands: ['git', 'npm'],
        maxFileBytes: 1000,
        commandTimeoutMs: 5000,
      });
      assert.deepEqual(ws.policy, {
        allowWrites: true,
        allowedCommands: ['git', 'npm'],
        maxFileBytes: 1000,
        commandTimeoutMs: 5000,
      });
      assert.deepEqual((await LocalWorkspace.open({ root })).policy, {
        allowWrites: false,
        allowedCommands: [],
        maxFileBytes: 16 * 1024 * 1024,
        commandTimeoutMs: 30_000,
      });
    });

    it('refuses bad options', async () => {
      await assert.rejects(LocalWorkspace.open({ root: path.join(root, 'README.md') }), /must be a directory/);
      await assert.rejects(LocalWorkspace.open({ root: path.join(root, 'missing') }), /ENOENT/);
      await assert.rejects(LocalWorkspace.open({ root, maxFileBytes: 0 }), /positive integers/);
      await assert.rejects(LocalWorkspace.open({ root, allowedCommands: ['rm -rf'] }), /bare program names/);
      await assert.rejects(LocalWorkspace.open({ root, allowedCommands: ['/bin/sh'] }), /bare program names/);
    });
  });
});
