import { readSync, writeSync } from 'node:fs';

/**
 * The outside world passed in, so a subcommand runs the same in the process and in a unit test. Writes wait for the
 * pipe to drain: a large `--tee` never piles up in memory.
 */

export interface CliIo {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  out(text: string): Promise<void>;
  err(text: string): void;
  tee(stream: 'stdout' | 'stderr', chunk: Uint8Array): Promise<void>;
  readStdin(): Promise<string>;
  /** A capture then kills its command and records the run as cancelled. */
  onInterrupt(fn: () => void): void;
  offInterrupt(fn: () => void): void;
}

function write(stream: NodeJS.WritableStream, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(data)) resolve();
    else stream.once('drain', resolve);
  });
}

export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    out: (text) => write(process.stdout, text),
    err: (text) => {
      process.stderr.write(text);
    },
    tee: (stream, chunk) => write(stream === 'stdout' ? process.stdout : process.stderr, chunk),
    async readStdin() {
      const chunks: Buffer[] = [];
      if (!readPlainly(chunks)) for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    onInterrupt(fn) {
      process.on('SIGINT', fn);
      process.on('SIGTERM', fn);
    },
    offInterrupt(fn) {
      process.off('SIGINT', fn);
      process.off('SIGTERM', fn);
    },
  };
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** Plain reads (process.stdin loads the stream modules); false once a non-blocking pipe would block. */
function readPlainly(chunks: Buffer[]): boolean {
  for (;;) {
    const b = Buffer.allocUnsafe(1 << 16);
    let n: number;
    try {
      n = readSync(0, b, 0, b.length, null);
    } catch (e) {
      if (errno(e) === 'EAGAIN') return false;
      if (errno(e) === 'EOF') return true;
      throw e;
    }
    if (n === 0) return true;
    chunks.push(b.subarray(0, n));
  }
}

/** The answer written plainly too, unless the pipe would block. */
export function hookIo(): CliIo {
  const io = processIo();
  return {
    ...io,
    out: (text) => {
      const b = Buffer.from(text, 'utf8');
      let done = 0;
      try {
        while (done < b.length) done += writeSync(1, b, done);
      } catch (e) {
        if (errno(e) !== 'EAGAIN') throw e;
        // Bytes: a partial write may end inside a character.
        return write(process.stdout, b.subarray(done));
      }
      return Promise.resolve();
    },
  };
}
