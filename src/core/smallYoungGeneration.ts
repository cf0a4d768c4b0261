/**
 * Pieces read from a pipe live outside the heap until a scavenge frees their handles, and V8 grows the young
 * generation under such churn; a 1 MiB semi-space frees them at once (docs/contracts.md §5.5).
 */

export const SMALL_YOUNG_GENERATION_FLAG = '--max-semi-space-size=1';

/**
 * Replaces this process (same pid, stdio, arguments) by one started with the flag, when this Node can
 * (`process.execve`). Call before anything reads stdin.
 */
export function restartWithSmallYoungGeneration(): void {
  if (process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) return;
  if (/--max-semi-space-size/.test(process.env.NODE_OPTIONS ?? '')) return;
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  // Electron's flags are its own.
  if (typeof execve !== 'function' || process.platform === 'win32' || process.versions.electron) return;
  try {
    execve(
      process.execPath,
      [process.execPath, SMALL_YOUNG_GENERATION_FLAG, ...process.execArgv, ...process.argv.slice(1)],
      process.env,
    );
  } catch {
    // Refused (a sandbox without execve): the server runs as it is, with a larger peak.
  }
}
