/**
 * The error-line rules (docs/contracts.md §2.13), one test per toolchain, each over a REAL
 * output of that tool: the tool is run here (node_modules' tsc, eslint, esbuild, mocha, npm;
 * node:test; the machine's python3, pytest, gcc, make, rustc, go, git, javac/java, mvn, sh);
 * tools not on this machine are real outputs saved in test/fixtures/errors (each file names its source).
 * Every case checks the exact first line the first view shows, its line number and byte
 * offset against the output itself, and that the scan's count equals the number of lines
 * the named `read_tool_output` pattern matches when each line is tested alone.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  ErrorScan,
  kindFor,
  selectErrorLines,
  type ErrorScanResult,
} from '../../../../src/core/runs/errorLines/errorLines.js';
import { ERROR_RULES } from '../../../../src/core/runs/errorLines/errorRules.js';
import { requiredLiteral } from '../../../../src/core/runs/search/patternAnalysis.js';
import { scratch } from './helpers.js';

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'errors');

/** Runs `command` with sh in `cwd`, stdout and stderr as one stream (as an agent's terminal shows them). */
function run(command: string, cwd: string, env: NodeJS.ProcessEnv = {}): { out: Buffer; status: number | null } {
  const r = spawnSync('sh', ['-c', `(${command}) 2>&1`], {
    cwd,
    env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { out: r.stdout, status: r.status };
}

/** Scans `bytes` fed in pieces of `piece` bytes. */
function scan(bytes: Buffer, piece = 65536): ErrorScanResult {
  const s = new ErrorScan();
  for (let i = 0; i < bytes.length; i += piece) s.push(bytes.subarray(i, i + piece));
  return s.end();
}

/** Lines of the output exactly as the reader splits them (no empty line after a final `\n`). */
function linesOf(bytes: Buffer): string[] {
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/**
 * Checks one real output: the kind used for `failed`, the rule `rule` fired, the first
 * shown line is the first line containing `first` (whole, with its number and the byte
 * offset of its match), and the count equals the per-line matches of the union pattern.
 */
function check(out: Buffer, failed: boolean, rule: string, first: string): void {
  const text = out.toString('utf8');
  const result = scan(out);
  const kind = kindFor(result, failed);
  assert.ok(kind, `no error line found in:\n${text.slice(0, 2000)}`);
  assert.ok(kind.rules.includes(rule), `rule ${rule} did not fire (fired: ${kind.rules.join(', ')})`);
  const sel = selectErrorLines(result, failed, 448)!;
  const lines = linesOf(out);
  const re = new RegExp(sel.lines.pattern);
  const matching = lines.map((l, i) => ({ l, i })).filter(({ l }) => re.test(l));
  assert.equal(sel.lines.total, matching.length, 'count = lines the pattern matches');
  // The first shown line is the first counted line, whole (or a window when longer than the budget).
  const want = lines.findIndex((l) => l.includes(first));
  assert.notEqual(want, -1, `"${first}" is not in the output`);
  assert.equal(matching[0]!.i, want, `the first counted line is line ${want + 1}: ${lines[want]}`);
  const shown = sel.lines.lines[0]!;
  assert.equal(shown.lineNumber, want + 1);
  assert.equal(shown.text, lines[want]);
  const lineStart = Buffer.byteLength(lines.slice(0, want).join('\n')) + (want > 0 ? 1 : 0);
  const m = re.exec(lines[want]!)!;
  assert.equal(shown.byteOffset, lineStart + Buffer.byteLength(lines[want]!.slice(0, m.index)));
  assert.equal(
    out.subarray(lineStart, lineStart + Buffer.byteLength(shown.text)).toString('utf8'),
    shown.text,
    'exact bytes',
  );
  // The same answer whatever the pieces the capture passes on.
  assert.deepEqual(scan(out, 7), result);
  assert.deepEqual(scan(out, 1), result);
}

describe('error-line rules over real tool outputs (contracts §2.13)', function () {
  this.timeout(120_000);
  let dir = '';
  let cleanup = (): void => undefined;
  before(() => ({ dir, cleanup } = scratch('errors')));
  after(() => cleanup());
  const at = (name: string): string => {
    const d = path.join(dir, name);
    mkdirSync(d, { recursive: true });
    return d;
  };

  it('the table: every gate is a literal its pattern requires, no rule can match a newline or capture', () => {
    for (const r of ERROR_RULES) {
      assert.ok(r.gates.length > 0, r.id);
      assert.ok(!/\((?!\?)/.test(r.pattern.replace(/\\\\|\\\(|\[[^\]]*\]/g, '')), `${r.id}: no capture group`);
      const lit = requiredLiteral(r.pattern);
      // A required literal of a pattern without groups must hold a gate; the others are checked by the outputs below.
      if (lit !== null && !r.pattern.includes('('))
        assert.ok(
          r.gates.some((g) => lit.includes(g)),
          `${r.id}: "${lit}" holds no gate`,
        );
      assert.ok(!new RegExp(r.pattern).test('\n'), r.id);
    }
  });

  it('TypeScript (tsc)', () => {
    const d = at('ts');
    writeFileSync(path.join(d, 'a.ts'), 'export const ok = 1;\nconst x: number = "a";\nexport { x };\n');
    const { out, status } = run(`${BIN}/tsc --noEmit --strict a.ts`, d);
    assert.notEqual(status, 0);
    check(out, true, 'typescript.error', "error TS2322: Type 'string' is not assignable to type 'number'.");
  });

  it('ESLint (stylish)', () => {
    const d = at('eslint');
    writeFileSync(
      path.join(d, 'eslint.config.mjs'),
      "export default [{ rules: { 'no-unused-vars': 'error', 'no-console': 'warn' } }];\n",
    );
    writeFileSync(path.join(d, 'a.js'), 'console.log(1);\nconst unused = 2;\n');
    const { out, status } = run(`${BIN}/eslint a.js`, d);
    assert.equal(status, 1);
    check(out, true, 'eslint.error', "'unused' is assigned a value but never used");
    assert.ok(kindFor(scan(out), true)!.rules.includes('eslint.summary'));
  });

  it('esbuild', () => {
    const d = at('esbuild');
    writeFileSync(path.join(d, 'a.js'), "import 'no-such-module';\n");
    const { out, status } = run(`${BIN}/esbuild a.js --bundle --outfile=out.js`, d);
    assert.equal(status, 1);
    check(out, true, 'bracket.error', '[ERROR] Could not resolve "no-such-module"');
  });

  it('Mocha: the assertion\'s first line before its frames, and "1 failing"', () => {
    const d = at('mocha');
    writeFileSync(
      path.join(d, 't.test.js'),
      "const assert = require('node:assert');\ndescribe('s', () => { it('passes', () => {}); it('adds', () => { assert.strictEqual(1 + 1, 3); }); });\n",
    );
    const { out, status } = run(`${BIN}/mocha t.test.js`, d);
    assert.equal(status, 1);
    check(out, true, 'tests.failed', '1 failing');
    assert.ok(kindFor(scan(out), true)!.rules.includes('stack.indented'));
  });

  it('node:test', () => {
    const d = at('nodetest');
    writeFileSync(
      path.join(d, 't.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert');\ntest('passes', () => {});\ntest('adds', () => { assert.strictEqual(1 + 1, 3); });\n",
    );
    const { out, status } = run(`${process.execPath} --test --test-reporter=spec t.test.js`, d);
    assert.equal(status, 1);
    check(out, true, 'nodetest.failure', 'adds');
    const { out: tap } = run(`${process.execPath} --test --test-reporter=tap t.test.js`, d);
    check(tap, true, 'tap.notok', 'not ok 2 - adds');
  });

  it('npm', () => {
    const d = at('npm');
    writeFileSync(path.join(d, 'package.json'), '{"name":"x","version":"1.0.0"}\n');
    // The suite may itself run under `npm run --silent`, whose npm_config_loglevel=silent would mute this npm too.
    const inherited = Object.fromEntries(
      Object.keys(process.env)
        .filter((k) => k.toLowerCase().startsWith('npm_config_'))
        .map((k) => [k, undefined]),
    );
    const { out, status } = run('npm run no-such-script', d, { ...inherited, npm_config_update_notifier: 'false' });
    assert.notEqual(status, 0);
    check(out, true, 'npm.error', 'Missing script: "no-such-script"');
  });

  it("Python: a traceback's first line, and its last", () => {
    const { out, status } = run('python3 -c "import json; json.loads(\'{\')"', dir);
    assert.equal(status, 1);
    check(out, true, 'python.traceback', 'Traceback (most recent call last):');
    const lines = kindFor(scan(out), true)!.lines.map((l) => l.text);
    assert.ok(
      lines.some((l) => l.startsWith('json.decoder.JSONDecodeError: Expecting property name')),
      lines.join('\n'),
    );
  });

  it('pytest', () => {
    const d = at('pytest');
    writeFileSync(path.join(d, 'test_a.py'), 'def test_ok():\n    pass\n\ndef test_add():\n    assert 1 + 1 == 3\n');
    const { out, status } = run('python3 -m pytest -p no:cacheprovider test_a.py', d);
    assert.equal(status, 1);
    check(out, true, 'pytest.explain', 'E       assert (1 + 1) == 3');
    assert.ok(kindFor(scan(out), true)!.rules.includes('status.fail'));
  });

  it('unittest', () => {
    const d = at('unittest');
    writeFileSync(
      path.join(d, 'test_b.py'),
      'import unittest\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 3)\n',
    );
    const { out, status } = run('python3 -m unittest test_b', d);
    assert.equal(status, 1);
    check(out, true, 'status.fail', 'FAIL: test_add');
    assert.ok(kindFor(scan(out), true)!.rules.includes('stack.first'));
  });

  it('gcc and make; a warning alone is no error line', () => {
    const d = at('c');
    writeFileSync(path.join(d, 'a.c'), 'int main(void) { int x = 1 return x; }\n');
    writeFileSync(path.join(d, 'w.c'), 'int main(void) { int unused; return 0; }\n');
    writeFileSync(path.join(d, 'Makefile'), 'a.o: a.c\n\tgcc -c a.c -o a.o\n');
    const gcc = run('gcc -c a.c -o a.o', d);
    assert.equal(gcc.status, 1);
    check(gcc.out, true, 'compiler.error', 'a.c:1:28: error: expected ‘,’ or ‘;’ before ‘return’');
    const make = run('make', d);
    assert.equal(make.status, 2);
    check(make.out, true, 'compiler.error', 'a.c:1:28: error: expected ‘,’ or ‘;’ before ‘return’');
    assert.ok(kindFor(scan(make.out), true)!.rules.includes('make.error'));
    // The linker: gcc's line from ld and collect2's verdict.
    writeFileSync(path.join(d, 'l.c'), 'int f(void);\nint main(void) { return f(); }\n');
    const ld = run('gcc l.c -o l', d);
    assert.equal(ld.status, 1);
    check(ld.out, true, 'ld.undefined', "undefined reference to `f'");
    assert.ok(kindFor(scan(ld.out), true)!.rules.includes('tool.error'), ld.out.toString());
    const warn = run('gcc -Wall -c w.c -o w.o', d);
    assert.equal(warn.status, 0);
    assert.match(warn.out.toString(), /warning: unused variable/);
    assert.equal(kindFor(scan(warn.out), false), undefined, 'warnings never take the room of the previews');
  });

  it('rustc: a compile error and a panic', () => {
    const d = at('rust');
    writeFileSync(path.join(d, 'a.rs'), 'fn main() { let x: u32 = "a"; println!("{}", x); }\n');
    const c = run('rustc --color never a.rs', d);
    assert.equal(c.status, 1);
    check(c.out, true, 'line.error', 'error[E0308]: mismatched types');
    writeFileSync(path.join(d, 'p.rs'), 'fn main() { let v: Vec<u32> = Vec::new(); println!("{}", v[3]); }\n');
    const p = run('rustc --color never p.rs -o p && ./p', d);
    assert.equal(p.status, 101);
    check(p.out, true, 'rust.panic', 'panicked at p.rs:1:');
    writeFileSync(path.join(d, 't.rs'), '#[test] fn adds() { assert_eq!(1 + 1, 3); }\n');
    const t = run('rustc --color never --test t.rs -o t && ./t', d);
    assert.equal(t.status, 101);
    check(t.out, true, 'rust.testfailed', 'test adds ... FAILED');
  });

  it('go build and go test', () => {
    const d = at('go');
    const env = {
      GOCACHE: path.join(dir, 'gocache'),
      GOPATH: path.join(dir, 'gopath'),
      GOFLAGS: '-mod=mod',
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
    };
    writeFileSync(path.join(d, 'go.mod'), 'module example.com/a\n\ngo 1.19\n');
    writeFileSync(path.join(d, 'main.go'), 'package main\n\nfunc main() { println(missing) }\n');
    const b = run('go build ./...', d, env);
    assert.notEqual(b.status, 0);
    check(b.out, true, 'go.position', './main.go:3:23: undefined: missing');
    writeFileSync(path.join(d, 'main.go'), 'package main\n\nfunc main() {}\n');
    writeFileSync(
      path.join(d, 'a_test.go'),
      'package main\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) { if 1+1 != 3 { t.Fatalf("1+1 = %d", 1+1) } }\n',
    );
    const t = run('go test ./...', d, env);
    assert.equal(t.status, 1);
    check(t.out, true, 'go.testfail', '--- FAIL: TestAdd');
    writeFileSync(path.join(d, 'a_test.go'), 'package main\n');
    writeFileSync(path.join(d, 'main.go'), 'package main\n\nfunc main() { panic("ledger is closed") }\n');
    const p = run('go run .', d, env);
    assert.notEqual(p.status, 0);
    check(p.out, true, 'go.panic', 'panic: ledger is closed');
  });

  it('Java: javac, a thrown exception; Maven', () => {
    const d = at('java');
    writeFileSync(
      path.join(d, 'A.java'),
      'public class A { public static void main(String[] a) { undefinedCall(); } }\n',
    );
    const c = run('javac A.java', d);
    assert.equal(c.status, 1);
    check(c.out, true, 'compiler.error', 'A.java:1: error: cannot find symbol');
    writeFileSync(
      path.join(d, 'B.java'),
      'public class B { public static void main(String[] a) { throw new IllegalStateException("boom"); } }\n',
    );
    const r = run('javac B.java && java B', d);
    assert.equal(r.status, 1);
    check(r.out, true, 'java.thread', 'Exception in thread "main" java.lang.IllegalStateException: boom');
    writeFileSync(
      path.join(d, 'C.java'),
      'public class C { public static void main(String[] a) { try { throw new IllegalArgumentException("inner"); } catch (RuntimeException e) { throw new IllegalStateException("outer", e); } } }\n',
    );
    const c2 = run('javac C.java && java C', d);
    assert.equal(c2.status, 1);
    check(c2.out, true, 'java.thread', 'Exception in thread "main" java.lang.IllegalStateException: outer');
    assert.ok(kindFor(scan(c2.out), true)!.rules.includes('java.causedby'), c2.out.toString());
    const mvn = run('mvn -o -B validate', at('mvn'), { MAVEN_OPTS: '-Xshare:auto' });
    assert.equal(mvn.status, 1);
    check(mvn.out, true, 'maven.failure', '[INFO] BUILD FAILURE');
    assert.ok(kindFor(scan(mvn.out), true)!.rules.includes('bracket.error'));
  });

  it('git: fatal, error and a merge conflict', () => {
    const d = at('git');
    const env = {
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@a',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@a',
    };
    const f = run('git -C no-such-dir status', d, env);
    assert.equal(f.status, 128);
    check(f.out, true, 'line.error', 'fatal: cannot change to');
    const m = run(
      [
        'git init -q -b main r && cd r && echo a > f && git add f && git commit -qm a',
        'git checkout -qb b && echo b > f && git commit -qam b && git checkout -q main && echo c > f && git commit -qam c',
        'git merge b',
      ].join(' && '),
      d,
      env,
    );
    assert.equal(m.status, 1);
    check(m.out, true, 'git.conflict', 'CONFLICT (content): Merge conflict in f');
    const e = run('cd r && git checkout no-such-branch', d, env);
    check(e.out, true, 'line.error', "error: pathspec 'no-such-branch' did not match");
    // A push that is not a fast-forward.
    const p = run(
      [
        'git init -q --bare origin.git && git clone -q origin.git a && git clone -q origin.git b 2>/dev/null',
        'cd a && echo 1 > x && git add x && git commit -qm one && git push -q origin HEAD:main && cd ..',
        'cd b && echo 2 > y && git add y && git commit -qm two && git push origin HEAD:main',
      ].join(' && '),
      d,
      env,
    );
    assert.equal(p.status, 1);
    check(p.out, true, 'git.rejected', ' ! [rejected]');
    // A successful command that only quotes errors (a diff of a test that names a compiler error) shows none.
    writeFileSync(
      path.join(d, 'r', 'quoted.ts'),
      'const want = "src/a.ts(1,7): error TS2322: Type \'string\' is not assignable to type \'number\'.";\nconst cc = "a.c:1:28: error: expected";\n',
    );
    const q = run('cd r && git add quoted.ts && git -c core.pager=cat diff --cached', d, env);
    assert.equal(q.status, 0);
    assert.match(q.out.toString(), /error TS2322/);
    assert.equal(kindFor(scan(q.out), false), undefined, q.out.toString());
  });

  it('the shell: set -e and a command that is not found; a missing file', () => {
    const { out, status } = run("set -e; echo building; no_such_command_x; echo 'not reached'", dir);
    assert.equal(status, 127);
    check(out, true, 'shell.notfound', 'no_such_command_x: not found');
    const b = run("bash -c 'set -e; no_such_command_x'", dir);
    check(b.out, true, 'shell.notfound', 'no_such_command_x: command not found');
    const c = run('cat /no/such/file', dir);
    check(c.out, true, 'shell.errno', 'cat: /no/such/file: No such file or directory');
  });

  it('JSON log records with an error level (winston)', () => {
    const script =
      "const w = require('winston'); const l = w.createLogger({ format: w.format.json(), transports: [new w.transports.Console()] }); l.info('start'); l.error('db down', { code: 'ECONNREFUSED' }); l.warn('retrying');";
    const { out } = run(`${process.execPath} -e "${script}"`, ROOT);
    check(out, false, 'json.level', '"level":"error"');
  });

  it('the fallback words only when a failed output has nothing more specific, never on success', () => {
    const out = Buffer.from('step 1\nstep 2: the upload failed after 3 tries\nstep 3\n');
    check(out, true, 'generic.word', 'the upload failed');
    assert.equal(kindFor(scan(out), false), undefined);
  });

  it('outputs saved from tools not on this machine (test/fixtures/errors)', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.txt'));
    assert.ok(files.length > 0);
    for (const f of files) {
      const raw = readFileSync(path.join(FIXTURES, f));
      // The header (source, rule, first line) ends at the first `----` line; the output follows it.
      const cut = raw.indexOf('\n----\n');
      const header = raw.subarray(0, cut).toString();
      const out = raw.subarray(cut + 6);
      const rule = /^rule: (.+)$/m.exec(header)![1]!;
      const first = /^first: (.+)$/m.exec(header)![1]!;
      check(out, true, rule, first);
    }
  });
});
