/**
 * What a routed command becomes (docs/contracts.md §6.1, docs/architecture.md §2.4): the original text, verbatim,
 * run by the agent's own shell as a group with its two streams in a spool folder (stdout's file `1.$$`: the shell's
 * pid), then `<cli> keep`. A group, not a child shell, so functions, `cd`, `export` and jobs behave exactly as
 * unrouted. Injection: only the original is not ours, and it is routed only when it parses alone and wrapped
 * (`<shell> -n`), so it cannot end our group early or swallow its end.
 */
import { quoteShellWord } from './shellQuote.js';

/** Unset before the line ends. */
export const STATUS_VAR = '__be_s';

/** Stdout's file is `1.<pid>` (`$$`): keep tells a killed shell's spool by it (src/cli/spoolOwner.ts). */
export const SPOOL_STDOUT = '1';
export const SPOOL_STDERR = '2';
/** The command's status, written by the shim's `keep` before its recorder starts. */
export const SPOOL_STATUS = 'status';
export const SPOOL_DIR = 'spool';
/** For a terminal that sources it. */
export const SPOOL_RUN = 'run';
export const SPOOL_COMMAND = 'command';
export const SPOOL_META = 'meta.json';

export interface SpoolMeta {
  readonly agent: string;
  readonly sessionId?: string;
  readonly cwd?: string;
  readonly routedAt: string;
  /** When the client has no `read_tool_output`, the observation names these words instead of the tool. */
  readonly read?: string;
}

export interface WrapInputs {
  readonly spool: string;
  /** The shell word naming it, when not its quoted path (`"$BOUNDED_EVIDENCE_STORAGE"/evidence/spool/<id>`). */
  readonly spoolWord?: string;
  /** Shell words that start the command line, already quoted. */
  readonly cli: string;
  /** Both streams together. */
  readonly wholeBytes: number;
  /**
   * VS Code's bash shell integration prints its command-start marker from a DEBUG trap at the line's first simple
   * command; without `:; ` that marker would land in the spool.
   */
  readonly lead?: string;
  /**
   * Claude Code's `eval` inside `bash -c` numbers lines after the whole text's count, so one more line would
   * misnumber the command's; only where that form parses.
   */
  readonly sameLine?: boolean;
  /**
   * When the client reads what the command printed so far (ms since the epoch): the shim's `watch`, started before
   * the group, holds the client's stdout.
   */
  readonly watchUntil?: number;
  /** A limit on the client's silence (ms), not on the call: the watcher keeps it waiting while the command writes. */
  readonly watchIdle?: number;
}

/** Pure; `original` is never quoted or altered. */
export function wrapCommand(original: string, w: WrapInputs): string {
  if (!Number.isSafeInteger(w.wholeBytes) || w.wholeBytes < 0) throw new Error('wholeBytes must be a whole number');
  const d = w.spoolWord ?? quoteShellWord(w.spool);
  const o = `${d}/${SPOOL_STDOUT}.$$`;
  const e = `${d}/${SPOOL_STDERR}`;
  if (w.watchUntil !== undefined && !Number.isSafeInteger(w.watchUntil)) throw new Error('watchUntil must be whole');
  if (w.watchIdle !== undefined && !(Number.isSafeInteger(w.watchIdle) && w.watchIdle > 0))
    throw new Error('watchIdle must be a positive whole number');
  const idle = w.watchIdle === undefined ? '' : ` ${w.watchIdle}`;
  // The shim starts its watcher and exits with `$?`: the command's `$?` and `$!` stay as they were.
  const watch = w.watchUntil === undefined ? '' : `${w.cli} watch ${d} $$ ${w.watchUntil} ${w.wholeBytes}${idle} $?; `;
  // `{ ` on the command's own first line: line numbers in the shell's messages and `$LINENO` stay the command's.
  const tail = `} 8>>${o} 9>>${e} 1>&8 2>&9 8>&- 9>&-; ${w.cli} keep ${d} $? ${w.wholeBytes}`;
  return `${w.lead ?? ''}${watch}{ ${original}${w.sameLine ? ' ; ' : '\n'}${tail}`;
}
/** The shim's sh `keep` applies the same rule without Node; a test holds them together. */
export function givenBackWhole(stdoutBytes: number, stderrBytes: number, wholeBytes: number): boolean {
  return stdoutBytes + stderrBytes <= wholeBytes;
}

/** So a second hook, or a second pass, does not wrap it again. */
const WRAPPED_TAIL = new RegExp(
  `(?:\\n| ; )\\} 8>>.+/${SPOOL_STDOUT}\\.\\$\\$ 9>>.+/${SPOOL_STDERR} 1>&8 2>&9 8>&- 9>&-; .* keep .+ \\$\\? \\d+$`,
);

export function isWrapped(command: string): boolean {
  return (
    WRAPPED_TAIL.test(command) || /^\. "\$BOUNDED_EVIDENCE_STORAGE\/evidence\/spool\/[0-9a-f]+\/run"$/.test(command)
  );
}

export function unwrappableReason(original: string): string | undefined {
  if (original.includes('\0')) return 'a command with NUL cannot be passed to a shell';
  if (original.trim() === '') return 'the command is empty';
  // A final backslash would join our closing brace to the command's last line.
  if (/(?:^|[^\\])(?:\\\\)*\\\s*$/.test(original)) return 'the command ends in a line continuation';
  // These end or replace the shell before the output could be given back (`return` too, in the terminal's sourced
  // form).
  if (/(?:^|[;&|\n{]|\b(?:then|else|do))\s*(?:exec|exit|logout|return)(?=\s|;|&|\||$)/.test(original))
    return 'the command ends the shell';
  // With errexit a failing command ends the shell inside the group, before the output is given back.
  if (/(?:^|[\s;&|(])set\s+(?:-[A-Za-z]*e|-o\s+errexit)|\berrexit\b/.test(original)) return 'the command sets errexit';
  return undefined;
}

/** Words that open or close a compound command (bash, zsh): as a line's first word they do not parse alone. */
const RESERVED_FIRST = new Set(
  'case coproc do done elif else end esac fi for foreach function if in repeat select then until while'.split(' '),
);
/** One word of plain characters and quoted strings holding nothing a shell reads inside them. */
const PLAIN_WORD = String.raw`(?:[\w./:=,@%+-]|'[^'\n]*'|"[\w./:=,@%+ -]*")+`;
const PLAIN_LINE = new RegExp(String.raw`^[ \t]*(${PLAIN_WORD})(?:[ \t]+${PLAIN_WORD})*[ \t]*$`);

/**
 * True when `original` is plain words (letters, digits, `./:=,@%+-`, single-quoted text, double-quoted plain text):
 * no operator, redirection, expansion, comment or reserved first word, so it and its group parse in bash and zsh
 * without asking a shell (a test holds this against `bash -n` and `zsh -n`).
 */
export function plainWords(original: string): boolean {
  const first = PLAIN_LINE.exec(original)?.[1];
  // A first word starting with `-` or `+` would read as the checking shell's own option: asked the slow way.
  return first !== undefined && !RESERVED_FIRST.has(first) && !/^[-+]/.test(first);
}

/**
 * True when the hook may route `original`: it passes `unwrappableReason`, parses alone, and its
 * wrapped form parses (`parses` runs the agent's shell with `-n`: reads, runs nothing; plain words need no shell).
 */
export function routable(
  original: string,
  wrapped: string,
  parses: (script: string) => boolean,
): { ok: true } | { ok: false; reason: string } {
  const early = unwrappableReason(original);
  if (early) return { ok: false, reason: early };
  if (plainWords(original)) return { ok: true };
  if (!parses(original))
    return { ok: false, reason: 'the command does not parse on its own (it runs unrouted, as written)' };
  // A here-document open to the end takes any line after it as its body (a lone `}` then parses), and bash numbers the
  // lines of its messages past it: run as written.
  if (original.includes('<<') && parses(`${original}\n}`))
    return { ok: false, reason: 'the command leaves a here-document open: it runs unrouted' };
  if (!parses(wrapped))
    return {
      ok: false,
      reason: 'the command does not parse inside the group (an open here-document or quote): it runs unrouted',
    };
  return { ok: true };
}
