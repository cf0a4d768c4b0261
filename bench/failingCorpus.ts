/**
 * The failing outputs of `npm run bench -- economy`: real runs of real tools on
 * this machine, each failing once among a lot of ordinary output (20 KB–10 MB), each with
 * the rule that names its first error line (src/core/runs/errorLines/errorRules.ts). Every output is
 * made by the tool itself; only the inputs (source files, tests) are generated.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** One failing output: how to make it and which rule names its first error line. */
export interface FailingCase {
  readonly name: string;
  /** Writes the inputs into `dir` (a fresh folder). */
  readonly setup: (dir: string) => void;
  /** Run with `sh -c` in `dir`, stderr into stdout (as an agent's terminal shows them). */
  readonly command: string;
  readonly rule: string;
}

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const N = 2000;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const pad = (i: number): string => String(i).padStart(4, '0');
const write = (dir: string, name: string, text: string): void => {
  mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  writeFileSync(path.join(dir, name), text);
};

export const FAILING: readonly FailingCase[] = [
  {
    name: 'tsc --listFiles (400 files, 1 type error)',
    setup: (d) => {
      for (const i of range(400))
        write(
          d,
          `src/m${pad(i)}.ts`,
          i === 200 ? 'export const total: number = "12";\n' : `export const v${i} = ${i};\n`,
        );
      write(d, 'tsconfig.json', '{"compilerOptions":{"strict":true,"noEmit":true},"include":["src"]}\n');
    },
    command: `${BIN}/tsc -p . --listFiles --extendedDiagnostics`,
    rule: 'typescript.error',
  },
  {
    name: 'eslint --debug (300 files, 1 error)',
    setup: (d) => {
      write(d, 'eslint.config.mjs', "export default [{ rules: { 'no-unused-vars': 'error' } }];\n");
      for (const i of range(300))
        write(d, `src/f${pad(i)}.js`, i === 150 ? 'const unusedTotal = 1;\n' : `export const v${i} = ${i};\n`);
    },
    command: `${BIN}/eslint --debug src`,
    rule: 'eslint.error',
  },
  {
    name: 'esbuild --log-level=verbose (500 modules, 1 unresolved)',
    setup: (d) => {
      for (const i of range(500))
        write(
          d,
          `src/m${pad(i)}.js`,
          i === 250 ? "export * from './no-such-module.js';\n" : `export const v${i} = ${i};\n`,
        );
      write(
        d,
        'src/index.js',
        range(500)
          .map((i) => `export * as m${i} from './m${pad(i)}.js';`)
          .join('\n') + '\n',
      );
    },
    command: `${BIN}/esbuild src/index.js --bundle --outfile=out.js --log-level=verbose`,
    rule: 'bracket.error',
  },
  {
    name: `mocha (${N} tests, 1 failing)`,
    setup: (d) =>
      write(
        d,
        't.test.js',
        `const assert = require('node:assert');\ndescribe('ledger', () => {\n${range(N)
          .map((i) => `  it('case ${i}', () => { assert.strictEqual(${i === N / 2 ? '1 + 1, 3' : `${i}, ${i}`}); });`)
          .join('\n')}\n});\n`,
      ),
    command: `${BIN}/mocha t.test.js`,
    rule: 'tests.failed',
  },
  {
    name: `node --test (${N} tests, 1 failing)`,
    setup: (d) =>
      write(
        d,
        't.test.js',
        `const test = require('node:test');\nconst assert = require('node:assert');\n${range(N)
          .map((i) => `test('case ${i}', () => { assert.strictEqual(${i === N / 2 ? '1 + 1, 3' : `${i}, ${i}`}); });`)
          .join('\n')}\n`,
      ),
    command: `${process.execPath} --test --test-reporter=spec t.test.js`,
    rule: 'nodetest.failure',
  },
  {
    name: 'npm install --loglevel=silly (a missing package)',
    setup: (d) => write(d, 'package.json', '{"name":"x","version":"1.0.0"}\n'),
    command: 'npm install --loglevel=silly --no-audit --no-fund express@4.19.2 no-such-package-be-22',
    rule: 'npm.error',
  },
  {
    name: `pytest -v (${N} tests, 1 failing)`,
    setup: (d) =>
      write(
        d,
        'test_a.py',
        `import pytest\n\n@pytest.mark.parametrize("i", range(${N}))\ndef test_case(i):\n    assert i != ${N / 2}\n`,
      ),
    command: 'python3 -m pytest -v -p no:cacheprovider test_a.py',
    rule: 'pytest.explain',
  },
  {
    name: 'python (a traceback amid 6,000 log lines)',
    setup: (d) =>
      write(
        d,
        'job.py',
        [
          'import logging, sys, traceback',
          'logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stdout)',
          'for i in range(6000):',
          '    logging.info("processed record %d of batch %d", i, i // 100)',
          '    if i == 3000:',
          '        try:',
          '            {}["account"]',
          '        except KeyError:',
          '            traceback.print_exc(file=sys.stdout)',
          'sys.exit(1)',
          '',
        ].join('\n'),
      ),
    command: 'python3 job.py',
    rule: 'python.traceback',
  },
  {
    name: 'make -k --debug=basic (400 C files with gcc, 1 error)',
    setup: (d) => {
      for (const i of range(400))
        write(d, `c${pad(i)}.c`, i === 200 ? 'int f200(void) { return 1 }\n' : `int f${i}(void) { return ${i}; }\n`);
      write(
        d,
        'Makefile',
        `OBJS := $(patsubst %.c,%.o,$(wildcard c*.c))\nall: $(OBJS)\n%.o: %.c\n\tgcc -Wall -O2 -c $< -o $@\n`,
      );
    },
    command: 'make -k --debug=basic',
    rule: 'compiler.error',
  },
  {
    name: `rustc --test (${N} tests, 1 panics)`,
    setup: (d) =>
      write(
        d,
        't.rs',
        range(N)
          .map((i) => `#[test] fn case_${pad(i)}() { assert_eq!(${i === N / 2 ? '1 + 1, 3' : `${i}, ${i}`}); }`)
          .join('\n') + '\n',
      ),
    command: 'rustc --color never --test t.rs -o t && ./t --test-threads=1',
    rule: 'rust.panic',
  },
  {
    name: `go test -v (${N} subtests, 1 failing)`,
    setup: (d) => {
      write(d, 'go.mod', 'module example.com/a\n\ngo 1.19\n');
      write(
        d,
        'a_test.go',
        `package a\n\nimport ("fmt"; "testing")\n\nfunc TestLedger(t *testing.T) {\n\tfor i := 0; i < ${N}; i++ {\n\t\ti := i\n\t\tt.Run(fmt.Sprintf("case_%d", i), func(t *testing.T) { if i == ${N / 2} { t.Fatalf("balance %d != %d", i, i+1) } })\n\t}\n}\n`,
      );
    },
    command: `GOCACHE="$PWD/.gocache" GOPATH="$PWD/.gopath" GOFLAGS=-mod=mod GOTOOLCHAIN=local GOPROXY=off go test -v ./...`,
    rule: 'go.testfail',
  },
  {
    name: 'javac -verbose (300 classes, 1 error)',
    setup: (d) => {
      for (const i of range(300))
        write(d, `C${pad(i)}.java`, `public class C${pad(i)} { int f() { return ${i === 150 ? 'missing()' : i}; } }\n`);
    },
    command: 'javac -verbose -d out C*.java',
    rule: 'compiler.error',
  },
  {
    name: 'git merge (2,000 files merged, 1 conflict)',
    setup: (d) => {
      for (const i of range(N)) write(d, `r/f${pad(i)}.txt`, `head ${i}\n${'\n'.repeat(5)}tail ${i}\n`);
    },
    command: [
      'export GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@a GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@a',
      'cd r && git init -q -b main && git add . && git commit -qm base',
      'git checkout -qb topic && for f in f*.txt; do sed -i "1s/.*/head changed/" "$f"; done && git commit -qam topic',
      `git checkout -q main && for f in f*.txt; do sed -i '$s/.*/tail changed/' "$f"; done && sed -i '1s/.*/head clash/' f${pad(N / 2)}.txt && git commit -qam main`,
      'git merge --no-edit topic',
    ].join(' && '),
    rule: 'git.conflict',
  },
  {
    name: 'JSON logs (winston, 8,000 records, 1 error)',
    setup: (d) =>
      write(
        d,
        'svc.js',
        `const w = require(${JSON.stringify(path.join(ROOT, 'node_modules', 'winston'))});\nconst l = w.createLogger({ format: w.format.json(), transports: [new w.transports.Console()] });\nfor (let i = 0; i < 8000; i++) { if (i === 4000) l.error('ledger write failed', { account: i, code: 'ECONNRESET' }); else l.info('request served', { route: '/ledger/' + i, ms: i % 97 }); }\nprocess.exitCode = 1;\n`,
      ),
    command: `${process.execPath} svc.js`,
    rule: 'json.level',
  },
  {
    name: 'sh set -e (3,000 lines, then a missing command)',
    setup: (d) =>
      write(
        d,
        'deploy.sh',
        `set -e\ni=0\nwhile [ $i -lt 3000 ]; do echo "copied asset $i to the release folder"; i=$((i+1)); done\nno_such_deploy_tool --push\necho done\n`,
      ),
    command: 'sh deploy.sh',
    rule: 'shell.notfound',
  },
];
