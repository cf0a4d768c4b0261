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
      for await (const c of process.stdin) chunks.push(c as Buffer);
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
