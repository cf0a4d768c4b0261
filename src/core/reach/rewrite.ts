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
}

/** Pure; `original` is never quoted or altered. */
export function wrapCommand(original: string, w: WrapInputs): string {
  if (!Number.isSafeInteger(w.wholeBytes) || w.wholeBytes < 0) throw new Error('wholeBytes must be a whole number');
  const d = w.spoolWord ?? quoteShellWord(w.spool);
  const o = `${d}/${SPOOL_STDOUT}.$$`;
  const e = `${d}/${SPOOL_STDERR}`;
  // `{ ` on the command's own first line: line numbers in the shell's messages and `$LINENO` stay the command's.
  const tail = `} 8>>${o} 9>>${e} 1>&8 2>&9 8>&- 9>&-; ${w.cli} keep ${d} $? ${w.wholeBytes}`;
  return `${w.lead ?? ''}{ ${original}${w.sameLine ? ' ; ' : '\n'}${tail}`;
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

/** `parses` runs the agent's shell with `-n`: reads, runs nothing. */
export function routable(
  original: string,
  wrapped: string,
  parses: (script: string) => boolean,
): { ok: true } | { ok: false; reason: string } {
  const early = unwrappableReason(original);
  if (early) return { ok: false, reason: early };
  if (!parses(original))
    return { ok: false, reason: 'the command does not parse on its own (it runs unrouted, as written)' };
  if (!parses(wrapped))
    return {
      ok: false,
      reason: 'the command does not parse inside the group (an open here-document or quote): it runs unrouted',
    };
  return { ok: true };
}
