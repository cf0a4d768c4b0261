/**
 * `hook`: one agent hook event on stdin, the answer on stdout (docs/architecture.md §2.4); the decision is the
 * core's. A hook must never break its agent: on any failure the answer is nothing and exit 0 (exit 2 means "block the
 * tool" to Claude Code and Codex), with one line on stderr.
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { latestCodexTurn, type CodexTurn } from '../core/reach/codexPolicy.js';
import { decideHook, type HookDecision } from '../core/reach/hookEvent.js';
import { whichIn } from '../core/reach/agents/context.js';
import { findStorage } from '../core/reach/locate.js';
import { quoteShellWord } from '../core/reach/shellQuote.js';
import { parseFlags, UsageError, wholeNumber } from './args.js';
import {
  SPOOL_COMMAND,
  SPOOL_DIR,
  SPOOL_META,
  SPOOL_RUN,
  SPOOL_STDERR,
  type SpoolMeta,
} from '../core/reach/rewrite.js';
import type { CliIo } from './io.js';
import { CLI_ENV, STORAGE_ENV } from './env.js';

/** `run_in_terminal` is routed only in a POSIX shell. */
const SHELL_ENV = 'BOUNDED_EVIDENCE_SHELL';

function cliCommand(env: NodeJS.ProcessEnv, self: readonly string[]): string {
  const shim = env[CLI_ENV];
  if (shim) return quoteShellWord(shim);
  return self.map(quoteShellWord).join(' ');
}

/** Passed in so the hook's own bundle loads the stores only then; the answer to give the client, if any. */
export type RecordResponse = (
  storage: string,
  d: Extract<HookDecision, { action: 'record' | 'keep' }>,
) => Promise<Record<string, unknown> | undefined>;

export async function hook(
  argv: readonly string[],
  io: CliIo,
  self: readonly string[],
  record: RecordResponse,
): Promise<number> {
  let values;
  try {
    ({ values } = parseFlags(
      argv,
      {
        storage: { type: 'string' },
        agent: { type: 'string' },
        allow: { type: 'boolean' },
        'record-post-tool-use': { type: 'boolean' },
        'large-result-bytes': { type: 'string' },
      },
      { min: 0, max: 0, name: 'argument' },
    ));
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
    const found = findStorage(io.env, typeof cwd === 'string' && cwd !== '' ? cwd : io.cwd, values.storage);
    const storage = found?.dir;
    const decision = decideHook(event, {
      cli: cliCommand(io.env, self),
      storage,
      allow: values.allow ?? false,
      ...(io.env[SHELL_ENV] ? { terminalShell: io.env[SHELL_ENV] } : {}),
      ...(values.agent !== undefined ? { agent: values.agent } : {}),
      recordPostToolUse: values['record-post-tool-use'] ?? false,
      largeResultBytes: wholeNumber('large-result-bytes', values['large-result-bytes'], 1) ?? 4096,
      ...(io.env[CLI_ENV] ? { watchNow: Date.now } : {}),
      parses: (script) => parsesIn(shellOf(io.env), script),
      // The default storage of a folder is ours to make; any other named one must exist (a stale setting is not
      // followed).
      prepare: (command, meta) => prepareSpool(storage!, command, meta, found?.source === 'default'),
      claudeSettings: (e) => claudeSettingsTexts(io.env, e),
      codexSession: (e) => codexSession(io.env, e),
      ...(io.env[STORAGE_ENV] ? { terminalStorage: io.env[STORAGE_ENV] } : {}),
      env: io.env,
      readText: (f) => {
        try {
          return readFileSync(f, 'utf8');
        } catch {
          return undefined;
        }
      },
      which: (program) => whichIn(io.env.PATH, program),
      clientArgs: () => {
        try {
          return readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        } catch {
          return undefined;
        }
      },
      writeRun: (spool, script) => writeFileSync(path.join(spool, SPOOL_RUN), script, { mode: 0o600, flag: 'wx' }),
    });
    if (decision.action === 'rewrite') await io.out(`${JSON.stringify(decision.answer)}\n`);
    else if (decision.action !== 'none') {
      const answer = await record(storage!, decision);
      if (answer) await io.out(`${JSON.stringify(answer)}\n`);
    }
    return 0;
  } catch (e) {
    io.err(`bounded-evidence hook: ${e instanceof Error ? e.message : String(e)}; the tool runs unrouted\n`);
    return 0;
  }
}

/** Claude Code, Codex and Gemini CLI run commands with bash, or with the user's zsh. */
function shellOf(env: NodeJS.ProcessEnv): string {
  const named = env[SHELL_ENV] || env.SHELL || 'bash';
  return path.basename(named) === 'zsh' ? 'zsh' : 'bash';
}

/** Runs nothing. A missing shell: false. */
export function parsesIn(shell: string, script: string): boolean {
  // Loaded on first use: plain commands never need it (rewrite.ts `plainWords`), and its load is a hook's largest.
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  const r = spawnSync(shell, ['-n', '-c', script], { stdio: 'ignore', timeout: 5_000 });
  return r.status === 0;
}

/** The project is `CLAUDE_PROJECT_DIR` (Claude Code sets it for hooks), else the event's cwd. */
function claudeSettingsTexts(env: NodeJS.ProcessEnv, event: Record<string, unknown>): (string | undefined)[] {
  const read = (f: string): string | undefined => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return undefined;
    }
  };
  const project = env.CLAUDE_PROJECT_DIR || (typeof event.cwd === 'string' ? event.cwd : undefined);
  const home = env.HOME;
  return [
    home ? read(path.join(home, '.claude', 'settings.json')) : undefined,
    project ? read(path.join(project, '.claude', 'settings.json')) : undefined,
    project ? read(path.join(project, '.claude', 'settings.local.json')) : undefined,
  ];
}

/** One turn_context is written at every turn's start. */
const CODEX_TRANSCRIPT_TAIL = 1 << 20;

/** Never the whole of a large file. */
function readTail(file: string, bytes: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const n = Math.min(size, bytes);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    return buf.toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** src/core/reach/codexPolicy.ts. */
function codexSession(
  env: NodeJS.ProcessEnv,
  event: Record<string, unknown>,
): { turn: CodexTurn | undefined; rules: string[]; tmpdir?: string } {
  const transcript =
    typeof event.transcript_path === 'string' ? readTail(event.transcript_path, CODEX_TRANSCRIPT_TAIL) : undefined;
  const codexHome = env.CODEX_HOME || (env.HOME ? path.join(env.HOME, '.codex') : undefined);
  const dirs = [
    codexHome && path.join(codexHome, 'rules'),
    typeof event.cwd === 'string' ? path.join(event.cwd, '.codex', 'rules') : undefined,
  ];
  const rules: string[] = [];
  for (const dir of dirs) {
    if (!dir) continue;
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.rules'));
    } catch {
      continue;
    }
    for (const n of names) {
      try {
        rules.push(readFileSync(path.join(dir, n), 'utf8'));
      } catch {
        /* unreadable: no rule from it */
      }
    }
  }
  return {
    turn: transcript === undefined ? undefined : latestCodexTurn(transcript),
    rules,
    ...(env.TMPDIR ? { tmpdir: env.TMPDIR } : {}),
  };
}

/**
 * Twelve random hex digits from the kernel (node:crypto is a hook's largest load after child_process); the folder is
 * made exclusively, so a clash fails open rather than sharing a spool.
 */
function spoolId(): string {
  const b = Buffer.alloc(6);
  const fd = openSync('/dev/urandom', 'r');
  try {
    readSync(fd, b, 0, 6, null);
  } finally {
    closeSync(fd);
  }
  return b.toString('hex');
}

/** Short words for why the storage could not be written (no path: the line reaches the model). */
function storageFailure(e: unknown): Error {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const why: Record<string, string> = {
    EACCES: 'the storage is not writable',
    EPERM: 'the storage is not writable',
    EROFS: 'the storage is on a read-only file system',
    ENOSPC: "the storage's disk is full",
    EDQUOT: "the storage's disk quota is used up",
    ENOTDIR: "a file is in the storage's way",
    EEXIST: "a file is in the storage's way",
    ENOENT: 'the storage folder is missing',
  };
  return new Error((code && why[code]) ?? 'the storage cannot be written');
}

/**
 * Private to the user. The storage folder itself must exist: a missing one is a failure, not something to create
 * wherever a stale setting points.
 */
export function prepareSpool(
  storage: string,
  command: string,
  meta: { agent: string; sessionId: string | undefined; cwd: string | undefined; read?: string },
  create = false,
): string {
  try {
    const root = path.resolve(storage);
    if (create) mkdirSync(root, { recursive: true, mode: 0o700 });
    if (!statSync(root).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    const spools = path.join(root, 'evidence', SPOOL_DIR);
    mkdirSync(spools, { recursive: true, mode: 0o700 });
    const dir = path.join(spools, spoolId());
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(path.join(dir, SPOOL_COMMAND), command, { mode: 0o600, flag: 'wx' });
    const facts: SpoolMeta = {
      agent: meta.agent,
      routedAt: new Date().toISOString(),
      ...(meta.sessionId ? { sessionId: meta.sessionId } : {}),
      ...(meta.cwd ? { cwd: meta.cwd } : {}),
      ...(meta.read ? { read: meta.read } : {}),
    };
    writeFileSync(path.join(dir, SPOOL_META), JSON.stringify(facts), { mode: 0o600, flag: 'wx' });
    // Stderr's file, made now so that a full disk shows here (unrouted) rather than in the command; stdout's is named
    // by the shell that opens it (rewrite.ts).
    writeFileSync(path.join(dir, SPOOL_STDERR), '', { mode: 0o600, flag: 'wx' });
    return dir;
  } catch (e) {
    throw storageFailure(e);
  }
}
