/**
 * POSIX shell quoting for the hook's rewritten commands (docs/architecture.md §2.4). A word in single quotes is taken
 * literally by every POSIX shell, bash, zsh and dash alike: nothing inside is special (no `$`, backtick, `\`, newline
 * or here-doc marker), except `'` itself, which cannot appear inside and is written as `'\''` (close, an escaped quote,
 * reopen). That is the whole grammar, so a command of any content arrives as one argument, byte for byte; the
 * routed-command tests run quoted commands under bash, zsh and dash (test/unit/core/reach/routing.test.ts).
 */

/** `text` as one single-quoted POSIX shell word. NUL cannot be passed in an argument: refused. */
export function quoteShellWord(text: string): string {
  if (text.includes('\0')) throw new Error('a shell argument cannot contain NUL');
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Words joined with spaces, each quoted unless it is made only of characters no shell treats specially. */
export function shellCommandLine(words: readonly string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(w) ? w : quoteShellWord(w))).join(' ');
}
