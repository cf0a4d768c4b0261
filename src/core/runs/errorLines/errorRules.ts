/**
 * The error-line rules (docs/contracts.md §2.13), data not code: one regular expression per line and the gate
 * literals every matching line contains. `clear` rules count on any command, `failure` only on a failed one,
 * `fallback` only when the others found nothing; warnings never take room. No rule may match `\n` or capture (the
 * union is joined with `|`); a rule ending at `$` allows a `\r` before it.
 */

export type ErrorRuleKind = 'clear' | 'failure' | 'fallback';

export interface ErrorRule {
  /** `<toolchain>.<what>`. */
  readonly id: string;
  readonly pattern: string;
  readonly gates: readonly string[];
  readonly kind: ErrorRuleKind;
}

/**
 * A clear rule is anchored where its tool writes it, so output that merely quotes an error (a diff, a log of tests)
 * does not show it.
 */
export const ERROR_RULES: readonly ErrorRule[] = [
  // TypeScript: `src/a.ts(3,5): error TS2322: …`, pretty `src/a.ts:3:5 - error TS2322: …`.
  {
    id: 'typescript.error',
    pattern: '^(?:[^\\s(]+(?:\\(\\d+,\\d+\\): |:\\d+:\\d+ - ))?error TS\\d+: ',
    gates: ['error TS'],
    kind: 'clear',
  },
  // ESLint stylish: ` 3:7 error 'x' is … no-unused-vars`, and its summary.
  { id: 'eslint.error', pattern: '^\\s+\\d+:\\d+\\s+error\\s', gates: ['error'], kind: 'clear' },
  { id: 'eslint.summary', pattern: '^✖ \\d+ problems? \\(\\d+ errors?', gates: ['problem'], kind: 'clear' },
  // esbuild `✘ [ERROR] …`, Maven `[ERROR] Failed to execute goal …`.
  { id: 'bracket.error', pattern: '^\\s*(?:✘ |X )?\\[ERROR\\]', gates: ['[ERROR]'], kind: 'clear' },
  // webpack `ERROR in ./src/index.js`, vite `error during build:`.
  { id: 'webpack.error', pattern: '^ERROR in ', gates: ['ERROR in '], kind: 'clear' },
  { id: 'vite.error', pattern: '^error during build:', gates: ['error during build:'], kind: 'clear' },
  // rustc/cargo `error[E0308]: …`, git `fatal: …`/`error: …`.
  {
    id: 'line.error',
    pattern: '^(?:error|ERROR|fatal|FATAL)(?:\\[\\w+\\])?: ',
    gates: ['error', 'ERROR', 'fatal', 'FATAL'],
    kind: 'clear',
  },
  // gcc/clang/javac/go vet `file:line[:col]: [fatal ]error: …`, `collect2: error: …`.
  { id: 'compiler.error', pattern: '^[^\\s:]+:\\d+(?::\\d+)?: (?:fatal )?error: ', gates: ['error: '], kind: 'clear' },
  { id: 'tool.error', pattern: '^[\\w.+-]+: (?:fatal )?error: ', gates: ['error: '], kind: 'clear' },
  { id: 'ld.undefined', pattern: '^\\S+: undefined reference to ', gates: ['undefined reference to '], kind: 'clear' },
  { id: 'make.error', pattern: '^g?make(?:\\[\\d+\\])?: \\*\\*\\* ', gates: ['make'], kind: 'clear' },
  // npm `npm error`/`npm ERR!`, pnpm `ERR_PNPM_…`, yarn 1 `error …`.
  { id: 'npm.error', pattern: '^npm (?:ERR!|error) ', gates: ['npm ERR!', 'npm error'], kind: 'clear' },
  { id: 'pnpm.error', pattern: '^\\s*\\[?ERR_PNPM_\\w+', gates: ['ERR_PNPM_'], kind: 'clear' },
  {
    id: 'yarn.error',
    pattern: "^error (?:An unexpected error|Command failed|Couldn't find)",
    gates: ['error '],
    kind: 'clear',
  },
  // The first line of a stack trace: `TypeError: …`, Python's `ValueError: …`,
  // Java `java.lang.IllegalStateException: …`.
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
  // Python's traceback; pytest `E assert …`, `FAILED a.py::t - …`.
  {
    id: 'python.traceback',
    pattern: '^\\s*Traceback \\(most recent call last\\):',
    gates: ['Traceback'],
    kind: 'clear',
  },
  { id: 'pytest.explain', pattern: '^E   ', gates: ['E   '], kind: 'failure' },
  // pytest `FAILED …`, unittest `FAIL: …`, vitest/go `FAIL …`.
  { id: 'status.fail', pattern: '^\\s*(?:FAIL|FAILED|ERROR)(?::|\\s)', gates: ['FAIL', 'ERROR'], kind: 'failure' },
  { id: 'tests.failed', pattern: '\\b\\d+ (?:failed|failing)\\b', gates: ['failed', 'failing'], kind: 'failure' },
  // Jest `● suite › test`, node:test `✖ name`, TAP `not ok 1`, vitest `× name`.
  { id: 'jest.failure', pattern: '^\\s*● ', gates: ['●'], kind: 'failure' },
  { id: 'nodetest.failure', pattern: '^\\s*(?:✖|×|✗) ', gates: ['✖', '×', '✗'], kind: 'failure' },
  { id: 'tap.notok', pattern: '^\\s*not ok \\d+', gates: ['not ok'], kind: 'failure' },
  // Rust `thread 'main' panicked at …` (1.9x adds the thread id), cargo test `test t ... FAILED`.
  { id: 'rust.panic', pattern: "^thread '[^']*'(?: \\(\\d+\\))? panicked at ", gates: ['panicked at '], kind: 'clear' },
  { id: 'rust.testfailed', pattern: ' \\.\\.\\. FAILED\\r?$', gates: ['FAILED'], kind: 'failure' },
  // Go: `./main.go:5:2: undefined: x`, `--- FAIL: TestX`, `panic: …`.
  { id: 'go.position', pattern: '^\\S+\\.go:\\d+:\\d+: ', gates: ['.go:'], kind: 'failure' },
  { id: 'go.testfail', pattern: '^\\s*--- FAIL: ', gates: ['--- FAIL: '], kind: 'clear' },
  { id: 'go.panic', pattern: '^panic: ', gates: ['panic: '], kind: 'clear' },
  // Kotlin: `e: file:///…/Main.kt:97:15 …`, older `e: /…/A.kt: (6, 34): …`.
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
  // git: `CONFLICT (content): …`, ` ! [rejected] …`.
  { id: 'git.conflict', pattern: '^CONFLICT \\(', gates: ['CONFLICT'], kind: 'clear' },
  { id: 'git.rejected', pattern: '^ ! \\[rejected\\] ', gates: ['[rejected]'], kind: 'clear' },
  // The shell: `sh: 1: nosuch: not found`, `bash: nosuch: command not found`.
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
  // JSON logs: `"level":"error"`, pino `"level":50`, `"severity":"ERROR"`.
  {
    id: 'json.level',
    pattern:
      '^\\{.*"(?:level|severity|lvl)":\\s*(?:"(?:error|fatal|critical|ERROR|FATAL|CRITICAL|Error|Fatal)"|[56]0\\b)',
    gates: ['"level"', '"severity"', '"lvl"'],
    kind: 'clear',
  },
  // Whole words only: `errors` and `TypeError` do not count here.
  {
    id: 'generic.word',
    pattern:
      '\\b(?:[Ee]rror|ERROR|[Ff]ail(?:ed|ure)?|FAIL(?:ED|URE)?|' +
      '[Pp]anic|PANIC|[Ee]xception|EXCEPTION|[Ff]atal|FATAL)\\b',
    gates: ['rror', 'RROR', 'ail', 'AIL', 'anic', 'ANIC', 'xception', 'XCEPTION', 'atal', 'ATAL'],
    kind: 'fallback',
  },
];
