/**
 * What a routed command becomes (docs/contracts.md §6.1, docs/architecture.md §2.4): the agent's own
 * command text, verbatim, run by the agent's own shell as a group, with only its two streams sent
 * to a spool folder the hook made in the evidence storage:
 *
 *     { <the original command, byte for byte> ; } 8>>'<spool>/1' 9>>'<spool>/2' 1>&8 2>&9 8>&- 9>&-; <cli> keep …
 *
 * or, where that does not parse (a trailing comment, an open here-document, a final `&`), with the group closed on a
 * line of its own:
 *
 *     { <the original command, byte for byte>
 *     } 8>>'<spool>/1' 9>>'<spool>/2' 1>&8 2>&9 8>&- 9>&-; <cli> keep '<spool>' $? <wholeBytes>
 *
 * A group (not a child shell) keeps everything the shell is: bash syntax, the user's functions
 * and aliases, `cd`, `export`, `source`, `set`, background jobs and `wait` behave exactly as
 * unrouted, and no process of ours sits between the command and its time limit (the agent's
 * own). `keep` gives the output back: when both streams together are at most `wholeBytes` it
 * prints them as they were (stdout, then stderr, byte for byte) and records them; otherwise it
 * records the spool as a run and prints the bounded observation (and prints the raw bytes if it
 * cannot: the command never fails because of the product). It exits with the command's status.
 * Through the shim (VS Code's terminals) the small case is plain sh (shim.sh's `keep`: `cat`, and
 * the recording in the background), so the command waits for no Node.
 *
 * Injection: the only text not written here is the original command, which the agent's shell
 * runs anyway; the spool path and the command line are ours, single-quoted. So that the command
 * cannot end our group early (`x; } …; {`) or swallow its end (an open here-document, a line
 * ending in `\`), the hook routes only a command that parses alone AND whose wrapped form parses
 * (`<shell> -n`, see `routable`); anything else runs unrouted, exactly as written.
 */
import { quoteShellWord } from './shellQuote.js';

/** The shell variable the fail-open form keeps the status in (unset before the line ends). */
export const STATUS_VAR = '__be_s';

/** The file names of the two streams inside a spool folder. */
export const SPOOL_STDOUT = '1';
export const SPOOL_STDERR = '2';
/** The folder under `<storage>/evidence` holding the spools of routed commands. */
export const SPOOL_DIR = 'spool';
/** The wrapped command, for a terminal that sources it (src/core/reach/agents/vscode.ts `terminalLine`). */
export const SPOOL_RUN = 'run';
/** The original command's text and the routing facts, written by the hook. */
export const SPOOL_COMMAND = 'command';
export const SPOOL_META = 'meta.json';

/** What the hook writes beside the command (`meta.json`). */
export interface SpoolMeta {
  /** The agent that ran the command (`claude`, `copilot`, `gemini`, …). */
  readonly agent: string;
  readonly sessionId?: string;
  /** The folder the command started in (the event's `cwd`). */
  readonly cwd?: string;
  /** When the hook routed it (ISO time). */
  readonly routedAt: string;
  /**
   * The shell words that read a handle in the agent's shell (`bounded-evidence read`), when its client has no
   * `read_tool_output`: the observation then names them instead of the tool.
   */
  readonly read?: string;
}

/** What the wrapper needs besides the command. */
export interface WrapInputs {
  /** The spool folder (absolute; made by the hook). */
  readonly spool: string;
  /** Shell words that start the command line, already quoted. */
  readonly cli: string;
  /** Outputs of at most this many bytes (both streams together) are given back whole. */
  readonly wholeBytes: number;
  /**
   * Written before the group on its first line: `:; ` in VS Code's bash terminal, whose shell
   * integration prints its command-start marker from a DEBUG trap at the line's first simple
   * command; without it that marker would land in the spool instead of the terminal.
   */
  readonly lead?: string;
  /**
   * Close the group on the command's last line (` ; }`), so the routed text has as many lines as the command: a client
   * that runs it through `eval` inside `bash -c` (Claude Code) numbers the eval'd lines after the whole text's line
   * count, so one more line would make bash say "line 2" for "line 1". Only where that form parses (`routable`): a
   * trailing comment, an open here-document or a final `&` need the newline.
   */
  readonly sameLine?: boolean;
}

/** The routed form of `original`. Pure; `original` is never quoted or altered. */
export function wrapCommand(original: string, w: WrapInputs): string {
  if (!Number.isSafeInteger(w.wholeBytes) || w.wholeBytes < 0) throw new Error('wholeBytes must be a whole number');
  const d = quoteShellWord(w.spool);
  const o = `${d}/${SPOOL_STDOUT}`;
  const e = `${d}/${SPOOL_STDERR}`;
  // `{ ` on the command's own first line: line numbers in the shell's messages and `$LINENO` stay the command's.
  // `keep` gives the output back (small: as it was; large: the observation) and exits with the command's status.
  const tail = `} 8>>${o} 9>>${e} 1>&8 2>&9 8>&- 9>&-; ${w.cli} keep ${d} $? ${w.wholeBytes}`;
  return `${w.lead ?? ''}{ ${original}${w.sameLine ? ' ; ' : '\n'}${tail}`;
}
/**
 * True when a routed command's output is given back as it was: both streams together at most `wholeBytes` (else the
 * observation). The shim's sh `keep` (shim.sh) applies the same rule without Node; a test holds them together.
 */
export function givenBackWhole(stdoutBytes: number, stderrBytes: number, wholeBytes: number): boolean {
  return stdoutBytes + stderrBytes <= wholeBytes;
}

/** A line that marks a wrapped command (so a second hook, or a second pass, does not wrap it again). */
const WRAPPED_TAIL = new RegExp(
  `(?:\\n| ; )\\} 8>>.+/${SPOOL_STDOUT} 9>>.+/${SPOOL_STDERR} 1>&8 2>&9 8>&- 9>&-; .* keep .+ \\$\\? \\d+$`,
);

/** True when `command` is already routed this way (wrapped, or the terminal's sourced line). */
export function isWrapped(command: string): boolean {
  return (
    WRAPPED_TAIL.test(command) || /^\. "\$BOUNDED_EVIDENCE_STORAGE\/evidence\/spool\/[0-9a-f]+\/run"$/.test(command)
  );
}

/** Why a command cannot be wrapped before any shell looks at it, or undefined when it may be. */
export function unwrappableReason(original: string): string | undefined {
  if (original.includes('\0')) return 'a command with NUL cannot be passed to a shell';
  if (original.trim() === '') return 'the command is empty';
  // A final backslash would join our closing brace to the command's last line.
  if (/(?:^|[^\\])(?:\\\\)*\\\s*$/.test(original)) return 'the command ends in a line continuation';
  // These end or replace the shell before the output could be given back.
  // `exit` as a command anywhere at the top (after a separator or a keyword; not `(exit 1)`, a subshell's, nor a word
  // in quotes); `return` too: in the terminal's sourced form it would end the script before the output is given back.
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
  if (!parses(wrapped))
    return {
      ok: false,
      reason: 'the command does not parse inside the group (an open here-document or quote): it runs unrouted',
    };
  return { ok: true };
}
