/**
 * `hook`: one agent hook event on stdin, the answer on stdout (docs/architecture.md §2.4). The decision is the core's (`decideHook`); this file
 * finds the storage and the command that runs this command line, writes long commands
 * to a private file, and records `PostToolUse` responses when asked to.
 *
 * A hook must never break its agent: whatever goes wrong (no storage, a malformed event,
 * a storage failure) the answer is nothing and the exit code 0 (Claude Code and Codex
 * read exit code 2 as "block the tool"), with one line on stderr for the person.
 * Flags that cannot be parsed exit 1, which every client treats as a non-blocking error.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runLabel, type RunSource } from '../core/index.js';
import { decideHook } from '../core/reach/hookEvent.js';
import { quoteShellWord } from '../core/reach/shellQuote.js';
import { parseFlags, UsageError, wholeNumber } from './args.js';
import { PENDING_DIR } from './capture.js';
import type { CliIo } from './io.js';
import { CLI_ENV, openSession, STORAGE_ENV } from './session.js';

/** Set by the extension in its host: the shell of VS Code's terminals (`run_in_terminal` is routed only in a POSIX shell). */
export const SHELL_ENV = 'BOUNDED_EVIDENCE_SHELL';
/** Set by the extension's shim: its global storage folder, where `workspaces.json` maps folders to their evidence storage. */
export const HOME_ENV = 'BOUNDED_EVIDENCE_HOME';
/** The file in `$BOUNDED_EVIDENCE_HOME` mapping each workspace folder to its storage (written by the extension). */
export const WORKSPACES_FILE = 'workspaces.json';

/** How this command line is started again from a shell: the shim when the extension set it, else this very process. */
export function cliCommand(env: NodeJS.ProcessEnv, self: readonly string[]): string {
  const shim = env[CLI_ENV];
  if (shim) return quoteShellWord(shim);
  return self.map(quoteShellWord).join(' ');
}

/**
 * The storage of the folder an event came from, from the extension's map (for a hook
 * installed for the user, which VS Code starts without the terminals' environment):
 * the longest mapped folder containing `cwd`.
 */
export function storageForFolder(env: NodeJS.ProcessEnv, cwd: unknown): string | undefined {
  const home = env[HOME_ENV];
  if (!home || typeof cwd !== 'string' || cwd === '') return undefined;
  let map: unknown;
  try {
    map = JSON.parse(readFileSync(path.join(home, WORKSPACES_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof map !== 'object' || map === null) return undefined;
  let best: [string, string] | undefined;
  for (const [folder, storage] of Object.entries(map)) {
    if (typeof storage !== 'string') continue;
    const inside = cwd === folder || cwd.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
    if (inside && (!best || folder.length > best[0].length)) best = [folder, storage];
  }
  return best?.[1];
}

/** The `hook` subcommand. */
export async function hook(argv: readonly string[], io: CliIo, self: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseFlags(argv, {
      storage: { type: 'string' }, agent: { type: 'string' }, allow: { type: 'boolean' }, 'record-post-tool-use': { type: 'boolean' }, 'large-result-bytes': { type: 'string' },
    }, { min: 0, max: 0, name: 'argument' }));
    wholeNumber('large-result-bytes', values['large-result-bytes'], 1);
  } catch (e) {
    io.err(`bounded-evidence hook: ${e instanceof UsageError ? e.message : String(e)}\n`);
    return 1;
  }
  try {
    const raw = await io.readStdin();
    let event: unknown;
    try {
      event = JSON.parse(raw);
    } catch {
      io.err('bounded-evidence hook: stdin is not one JSON event; nothing was changed\n');
      return 0;
    }
    const cwd = typeof event === 'object' && event !== null ? (event as Record<string, unknown>).cwd : undefined;
    const storage = values.storage ?? (io.env[STORAGE_ENV] || undefined) ?? storageForFolder(io.env, cwd);
    const decision = decideHook(event, {
      cli: cliCommand(io.env, self),
      storage,
      allow: values.allow ?? false,
      ...(io.env[SHELL_ENV] ? { terminalShell: io.env[SHELL_ENV] } : {}),
      ...(values.agent !== undefined ? { agent: values.agent } : {}),
      recordPostToolUse: values['record-post-tool-use'] ?? false,
      largeResultBytes: wholeNumber('large-result-bytes', values['large-result-bytes'], 1) ?? 4096,
      spill: (command) => spill(storage!, command),
    });
    if (decision.action === 'rewrite') await io.out(`${JSON.stringify(decision.answer)}\n`);
    else if (decision.action === 'record') await recordResponse(storage!, decision);
    return 0;
  } catch (e) {
    io.err(`bounded-evidence hook: ${e instanceof Error ? e.message : String(e)}; the tool runs unrouted\n`);
    return 0;
  }
}

/** Writes a command too long for one argument where `capture --shell-file` reads (and deletes) it; private to the user. */
function spill(storage: string, command: string): string {
  const dir = path.join(path.resolve(storage), 'evidence', PENDING_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `cmd-${randomBytes(8).toString('hex')}.sh`);
  writeFileSync(file, command, { mode: 0o600, flag: 'wx' });
  return file;
}

/** Records a large `PostToolUse` response in a run of its own, tagged with the agent's session. */
async function recordResponse(storage: string, d: { agent: string; sessionId: string | undefined; tool: string; response: string }): Promise<void> {
  const session = await openSession(storage);
  const source: RunSource = { kind: 'hook', agent: d.agent, ...(d.sessionId !== undefined ? { sessionId: d.sessionId } : {}) };
  const run = await session.runs.startRun({ label: runLabel(`${d.agent} ${d.tool}`, d.sessionId ?? 'no session'), source });
  let ok = false;
  try {
    await run.recordResult(d.tool, { session: d.sessionId ?? null }, d.response);
    ok = true;
  } finally {
    await run.finish(ok ? 'completed' : 'failed');
  }
}
