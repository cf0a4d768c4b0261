/**
 * POSIX single quotes make every byte literal in bash, zsh and dash alike, `'` written as `'\''`; so a command of any
 * content arrives as one argument, byte for byte (docs/architecture.md §2.4).
 */

/** NUL cannot be passed in an argument: refused. */
export function quoteShellWord(text: string): string {
  if (text.includes('\0')) throw new Error('a shell argument cannot contain NUL');
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function shellCommandLine(words: readonly string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(w) ? w : quoteShellWord(w))).join(' ');
}
