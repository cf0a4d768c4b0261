/**
 * A long-lived process that streams gigabytes (the MCP server) restarts itself, once, on the same Node with a
 * small young generation. Every piece read from a pipe or a file is a fresh Buffer whose bytes live outside the
 * heap until a scavenge frees its handle; V8 grows the young generation to tens of MiB under such churn, so the
 * pieces of that many megabytes stay resident. A 1 MiB semi-space scavenges often enough to free them at once
 * (docs/contracts.md §5.5, memory).
 */

/** The V8 flag, as it appears in `process.execArgv` once applied. */
export const SMALL_YOUNG_GENERATION_FLAG = '--max-semi-space-size=1';

/**
 * Replaces this process (same pid, same stdio, same arguments and environment) by one started with the flag, when it
 * was not started with a semi-space size already and this Node can (`process.execve`: Node 22.15 and later, not on
 * Windows). Call first thing, before anything reads stdin. Returns only when nothing was replaced.
 */
export function restartWithSmallYoungGeneration(): void {
  if (process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) return;
  if (/--max-semi-space-size/.test(process.env.NODE_OPTIONS ?? '')) return;
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  // Electron (VS Code's own Node, through the terminal shim) is left as it is: its flags are its own.
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
