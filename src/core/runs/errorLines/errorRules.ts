/**
 * The table of error-line rules (docs/contracts.md §2.13): which lines of an output most
 * likely explain a failure. Data, not code: each rule is one JavaScript regular
 * expression tested on one line (no flags, exactly as `read_tool_output`'s pattern mode
 * tests it, so the union of the rules that fired pages through the same lines), the
 * literals that gate it, and its kind.
 *
 * Kinds:
 * - `clear`: a diagnostic no successful command prints by accident (`error TS2322:`,
 *   `Traceback (most recent call last):`, `npm error`); counted on any command;
 * - `failure`: a line that explains a failure but may also appear in a good run (a test
 *   runner's failure header, `No such file or directory`); counted only when the command
 *   failed (a non-zero exit, a signal, a time limit, a tool error);
 * - `fallback`: the generic words (`error`, `fail`, `panic`, `exception`, `fatal`), used
 *   only when a failed command's output holds no line of the other two kinds.
 * Warnings have no rule: they never take room from the previews.
 *
 * `gates`: literals (case-sensitive) of which every line the rule matches contains at
 * least one. The scan looks for them first and tests the rules only on lines that hold
 * one, so they must be implied by the pattern (a unit test checks each rule against the
 * real outputs it names, and that every gate is a substring its pattern requires).
 * No rule may match a `\n` or use a capture group (the union is joined with `|`); a rule that ends at `$` allows a
 * `\r` before it (an output written through a terminal ends its lines with `\r\n`, and the `\r` stays in the line).
 */

/** How a rule's lines count (see above). */
export type ErrorRuleKind = 'clear' | 'failure' | 'fallback';

/** One rule of the table. */
export interface ErrorRule {
  /** Stable name: `<toolchain>.<what>`. */
  readonly id: string;
  /** A JavaScript regular expression (no flags), tested per line. */
  readonly pattern: string;
  /** Literals every matching line contains (at least one of them). */
  readonly gates: readonly string[];
  readonly kind: ErrorRuleKind;
}

/**
 * The rules, grouped by toolchain; order does not matter (lines are kept in output order).
 * A clear rule is anchored where its tool writes it (the start of the line, a path before it),
 * so a successful command's output that merely quotes an error (a diff, a log of tests, a
 * document) does not show it: measured on `git log -p` of this repository, whose tests quote
 * compiler errors.
 */
export const ERROR_RULES: readonly ErrorRule[] = [
  // TypeScript: `src/a.ts(3,5): error TS2322: …` and the pretty `src/a.ts:3:5 - error TS2322: …`.
  {
    id: 'typescript.error',
    pattern: '^(?:[^\\s(]+(?:\\(\\d+,\\d+\\): |:\\d+:\\d+ - ))?error TS\\d+: ',
    gates: ['error TS'],
    kind: 'clear',
  },
  // ESLint (stylish): `  3:7  error  'x' is assigned a value but never used  no-unused-vars`, and its summary.
  { id: 'eslint.error', pattern: '^\\s+\\d+:\\d+\\s+error\\s', gates: ['error'], kind: 'clear' },
  { id: 'eslint.summary', pattern: '^✖ \\d+ problems? \\(\\d+ errors?', gates: ['problem'], kind: 'clear' },
  // esbuild `✘ [ERROR] Could not resolve "x"`, Maven `[ERROR] Failed to execute goal …`.
  { id: 'bracket.error', pattern: '^\\s*(?:✘ |X )?\\[ERROR\\]', gates: ['[ERROR]'], kind: 'clear' },
  // webpack `ERROR in ./src/index.js 3:0-22`, vite `error during build:`.
  { id: 'webpack.error', pattern: '^ERROR in ', gates: ['ERROR in '], kind: 'clear' },
  { id: 'vite.error', pattern: '^error during build:', gates: ['error during build:'], kind: 'clear' },
  // A line that starts with a severity: rustc/cargo `error[E0308]: …`, `error: could not compile`, git
  // `fatal: …`/`error: …`.
  {
    id: 'line.error',
    pattern: '^(?:error|ERROR|fatal|FATAL)(?:\\[\\w+\\])?: ',
    gates: ['error', 'ERROR', 'fatal', 'FATAL'],
    kind: 'clear',
  },
  // gcc/clang/javac/go vet style `file:line[:col]: [fatal ]error: …`, and tools' own `collect2: error: …`.
  { id: 'compiler.error', pattern: '^[^\\s:]+:\\d+(?::\\d+)?: (?:fatal )?error: ', gates: ['error: '], kind: 'clear' },
  { id: 'tool.error', pattern: '^[\\w.+-]+: (?:fatal )?error: ', gates: ['error: '], kind: 'clear' },
  // The linker: `main.c:(.text+0x9): undefined reference to 'f'`.
  { id: 'ld.undefined', pattern: '^\\S+: undefined reference to ', gates: ['undefined reference to '], kind: 'clear' },
  // make: `make: *** [Makefile:3: all] Error 1`, `make[1]: *** …`.
  { id: 'make.error', pattern: '^g?make(?:\\[\\d+\\])?: \\*\\*\\* ', gates: ['make'], kind: 'clear' },
  // npm (`npm error …`, older `npm ERR! …`), pnpm ` ERR_PNPM_…` (pnpm 10: `[ERR_PNPM_…]`), yarn 1
  // `error An unexpected error …`.
  { id: 'npm.error', pattern: '^npm (?:ERR!|error) ', gates: ['npm ERR!', 'npm error'], kind: 'clear' },
  { id: 'pnpm.error', pattern: '^\\s*\\[?ERR_PNPM_\\w+', gates: ['ERR_PNPM_'], kind: 'clear' },
  {
    id: 'yarn.error',
    pattern: "^error (?:An unexpected error|Command failed|Couldn't find)",
    gates: ['error '],
    kind: 'clear',
  },
  // The first line of a stack trace, before its frames: JavaScript `TypeError: …`,
  // `AssertionError [ERR_ASSERTION]: …`, Python's last line `ValueError: …`, Java
  // `java.lang.IllegalStateException: …`.
  {
    id: 'stack.first',
    pattern: '^(?:Uncaught )?(?:[\\w$]+\\.)*[\\w$]*(?:Error|Exception)(?: \\[[\\w-]+\\])?: ',
    gates: ['Error', 'Exception'],
    kind: 'clear',
  },
  {
    id: 'stack.indented',
    pattern: '^\\s+(?:[\\w$]+\\.)*[\\w$]*(?:Error|Exception)(?: \\[[\\w-]+\\])?: ',
    gates: ['Error', 'Exception'],
    kind: 'failure',
  },
  // Python: the traceback's first line; pytest `E   assert …`, `FAILED a.py::t - …`, `ERROR collecting …`.
  {
    id: 'python.traceback',
    pattern: '^\\s*Traceback \\(most recent call last\\):',
    gates: ['Traceback'],
    kind: 'clear',
  },
  { id: 'pytest.explain', pattern: '^E   ', gates: ['E   '], kind: 'failure' },
  // A status word at the start: pytest `FAILED …`, unittest `FAIL: test_x (…)`/`ERROR: …`, vitest/go `FAIL …`.
  { id: 'status.fail', pattern: '^\\s*(?:FAIL|FAILED|ERROR)(?::|\\s)', gates: ['FAIL', 'ERROR'], kind: 'failure' },
  { id: 'tests.failed', pattern: '\\b\\d+ (?:failed|failing)\\b', gates: ['failed', 'failing'], kind: 'failure' },
  // Jest `● suite › test`, node:test `✖ name (1ms)` / TAP `not ok 1 - name`, vitest `× name`.
  { id: 'jest.failure', pattern: '^\\s*● ', gates: ['●'], kind: 'failure' },
  { id: 'nodetest.failure', pattern: '^\\s*(?:✖|×|✗) ', gates: ['✖', '×', '✗'], kind: 'failure' },
  { id: 'tap.notok', pattern: '^\\s*not ok \\d+', gates: ['not ok'], kind: 'failure' },
  // Rust `thread 'main' panicked at src/main.rs:2:5:` (1.9x: `thread 'main' (27620) panicked at …`), cargo test
  // `test t ... FAILED`.
  { id: 'rust.panic', pattern: "^thread '[^']*'(?: \\(\\d+\\))? panicked at ", gates: ['panicked at '], kind: 'clear' },
  { id: 'rust.testfailed', pattern: ' \\.\\.\\. FAILED\\r?$', gates: ['FAILED'], kind: 'failure' },
  // Go: `./main.go:5:2: undefined: x`, `--- FAIL: TestX (0.00s)`, `panic: …`.
  { id: 'go.position', pattern: '^\\S+\\.go:\\d+:\\d+: ', gates: ['.go:'], kind: 'failure' },
  { id: 'go.testfail', pattern: '^\\s*--- FAIL: ', gates: ['--- FAIL: '], kind: 'clear' },
  { id: 'go.panic', pattern: '^panic: ', gates: ['panic: '], kind: 'clear' },
  // Kotlin's compiler: `e: file:///…/Main.kt:97:15 Unresolved reference 'x'.`, older `e: /…/A.kt: (6, 34): …`.
  { id: 'kotlin.error', pattern: '^e: \\S+(?::\\d+:\\d+ |: \\(\\d+, \\d+\\): )', gates: ['e: '], kind: 'clear' },
  // Java/Kotlin: `Exception in thread "main" …`, `Caused by: …`; Gradle and Maven verdicts.
  { id: 'java.thread', pattern: '^Exception in thread ', gates: ['Exception in thread '], kind: 'clear' },
  { id: 'java.causedby', pattern: '^\\s*Caused by: ', gates: ['Caused by: '], kind: 'failure' },
  {
    id: 'gradle.failure',
    pattern: '^(?:FAILURE: |\\* What went wrong:|BUILD FAILED)',
    gates: ['FAILURE: ', 'What went wrong:', 'BUILD FAILED'],
    kind: 'clear',
  },
  { id: 'maven.failure', pattern: '^\\[INFO\\] BUILD FAILURE', gates: ['BUILD FAILURE'], kind: 'clear' },
  // git: `CONFLICT (content): Merge conflict in a.txt`, ` ! [rejected] main -> main (fetch first)`.
  { id: 'git.conflict', pattern: '^CONFLICT \\(', gates: ['CONFLICT'], kind: 'clear' },
  { id: 'git.rejected', pattern: '^ ! \\[rejected\\] ', gates: ['[rejected]'], kind: 'clear' },
  // The shell: `sh: 1: nosuch: not found`, `bash: nosuch: command not found`, a script's `line 3: …`.
  {
    id: 'shell.notfound',
    pattern: '^[^\\s:]+: (?:line )?(?:\\d+: )?[^\\s:]+: (?:command )?not found\\r?$|^zsh: command not found: ',
    gates: ['not found'],
    kind: 'clear',
  },
  {
    id: 'shell.errno',
    pattern: ': (?:No such file or directory|Permission denied)\\r?$',
    gates: ['No such file or directory', 'Permission denied'],
    kind: 'failure',
  },
  // JSON log records with an error level: `"level":"error"`, pino `"level":50`, `"severity":"ERROR"`.
  {
    id: 'json.level',
    pattern:
      '^\\{.*"(?:level|severity|lvl)":\\s*(?:"(?:error|fatal|critical|ERROR|FATAL|CRITICAL|Error|Fatal)"|[56]0\\b)',
    gates: ['"level"', '"severity"', '"lvl"'],
    kind: 'clear',
  },
  // The fallback: the generic words, whole words only (`errors` and `TypeError` do not count here).
  {
    id: 'generic.word',
    pattern:
      '\\b(?:[Ee]rror|ERROR|[Ff]ail(?:ed|ure)?|FAIL(?:ED|URE)?|' +
      '[Pp]anic|PANIC|[Ee]xception|EXCEPTION|[Ff]atal|FATAL)\\b',
    gates: ['rror', 'RROR', 'ail', 'AIL', 'anic', 'ANIC', 'xception', 'XCEPTION', 'atal', 'ATAL'],
    kind: 'fallback',
  },
];
