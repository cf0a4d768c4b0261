/**
 * The program runner behind the agent loop's `run_command` (docs/contracts.md §1.4); the extension's own commands go
 * through the run layer, never through this.
 */
import { spawn } from 'node:child_process';

export const COMMAND_FAILED = 'error: command could not be started';

export function runProgram(
  program: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  maxOutputBytes: number,
): Promise<string> {
  return new Promise((resolve) => {
    const detached = process.platform !== 'win32';
    const child = spawn(program, args, {
      cwd,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      detached,
    });
    const pieces: Buffer[] = [];
    let kept = 0;
    let total = 0;
    let timedOut = false;
    const collect = (b: Buffer): void => {
      total += b.length;
      const room = maxOutputBytes - kept;
      if (room <= 0) return;
      const piece = b.length <= room ? b : b.subarray(0, room);
      pieces.push(piece);
      kept += piece.length;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid, detached, () => child.kill('SIGKILL'));
    }, timeoutMs);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(COMMAND_FAILED);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Output is text for the model; bytes that are not UTF-8 become U+FFFD here.
      let out = Buffer.concat(pieces).toString('utf8');
      if (out !== '' && !out.endsWith('\n')) out += '\n';
      const status = timedOut
        ? `[timed out after ${timeoutMs} ms]`
        : signal
          ? `[killed by ${signal}]`
          : `[exit code: ${code}]`;
      const cut = total > kept ? `\n[output truncated: kept ${kept} of ${total} bytes]` : '';
      resolve(out + status + cut);
    });
  });
}

/** Grandchildren too, where groups exist. */
function killTree(pid: number | undefined, grouped: boolean, fallback: () => void): void {
  if (pid === undefined || !grouped) {
    fallback();
    return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    fallback();
  }
}
