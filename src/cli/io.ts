/**
 * The command line's outside world, passed in rather than reached for, so each
 * subcommand runs the same in the process (`node dist/cli.js`) and in a unit test that
 * collects what it printed: the folder and environment it was started with, stdout and
 * stderr (writes wait for the pipe to drain: a 1 GB `--tee` never piles up in memory),
 * stdin, and Ctrl-C.
 */

/** What a subcommand may touch. */
export interface CliIo {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Writes to stdout and waits until it is taken. */
  out(text: string): Promise<void>;
  /** Writes one message to stderr. */
  err(text: string): void;
  /** `--tee`: one piece of the command's stdout or stderr, to this process's own. */
  tee(stream: 'stdout' | 'stderr', chunk: Uint8Array): Promise<void>;
  /** All of stdin (the hook's event). */
  readStdin(): Promise<string>;
  /** Calls `fn` on SIGINT / SIGTERM (a capture then kills its command and records the run as cancelled). */
  onInterrupt(fn: () => void): void;
  offInterrupt(fn: () => void): void;
}

/** Writes and resolves once the stream has taken the bytes (backpressure). */
function write(stream: NodeJS.WritableStream, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(data)) resolve();
    else stream.once('drain', resolve);
  });
}

/** The real process. */
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
