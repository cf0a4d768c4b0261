/**
 * The hook's stdin and stdout without streams (src/cli/io.ts): every byte of any event in, the whole answer out, on
 * a blocking pipe and on one a stream has made non-blocking (where a plain read or write would fail with EAGAIN).
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';

const IO = path.resolve(__dirname, '../../../src/cli/io.ts');

/** A child running `code` with hookIo(), under tsx like this suite. */
function child(code: string): string[] {
  return ['--import', 'tsx', '-e', `const { hookIo } = require(${JSON.stringify(IO)}); ${code}`];
}

/** Bytes no single read returns whole, with every UTF-8 width and a split-prone mix. */
const EVENT = Buffer.from(`{"e":"${'ü€𝄞x\\"\n'.repeat(30_000)}"}`, 'utf8');

describe('hook io', () => {
  it('reads a blocking pipe to its end, byte-exact, in many reads', () => {
    const r = spawnSync(
      process.execPath,
      child('hookIo().readStdin().then((s) => process.stdout.write(Buffer.from(s, "utf8").toString("hex")));'),
      { input: EVENT, encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, EVENT.toString('hex'));
  });

  it('reads on as a stream once stdin would block, losing nothing read before', async () => {
    // Touching process.stdin makes the pipe non-blocking; the event arrives in parts after the first read.
    const p = spawn(
      process.execPath,
      child(
        'void process.stdin; process.stdout.write("ready\\n"); ' +
          'hookIo().readStdin().then((s) => process.stdout.write(Buffer.from(s, "utf8").toString("hex")));',
      ),
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const half = EVENT.length >> 1;
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out === 'ready\n') {
        p.stdin.write(EVENT.subarray(0, half));
        setImmediate(() => p.stdin.end(EVENT.subarray(half)));
      }
    });
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    assert.equal(err, '');
    assert.equal(code, 0);
    assert.equal(out, `ready\n${EVENT.toString('hex')}`);
  });

  it('writes the whole answer, also to a pipe a stream made non-blocking and that fills up', () => {
    const big = 'a€\n'.repeat(200_000);
    for (const touch of ['', 'void process.stdout;']) {
      const r = spawnSync(process.execPath, child(`${touch} hookIo().out("a€\\n".repeat(200000)).then(() => {});`), {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      assert.equal(r.stderr, '');
      assert.equal(r.stdout, big);
    }
  });
});
