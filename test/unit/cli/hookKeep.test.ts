/**
 * `hook` on the Copilot CLI's `postToolUse` (contracts §6.2): the command it ran as written is recorded as a routed
 * one; only over the small-output bound is the model given the observation instead, and only from the CLI's own saved
 * file.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CliIo } from '../../../src/cli/io.js';
import { runCli } from '../../../src/cli/main.js';
import { openSession } from '../../../src/cli/session.js';

function io(env: NodeJS.ProcessEnv, stdin: string): CliIo & { stdout: string; stderr: string } {
  const r = {
    stdout: '',
    stderr: '',
    cwd: os.tmpdir(),
    env,
    async out(t: string) {
      r.stdout += t;
    },
    err(t: string) {
      r.stderr += t;
    },
    async tee() {},
    async readStdin() {
      return stdin;
    },
    onInterrupt() {},
    offInterrupt() {},
  };
  return r;
}

describe('hook: the Copilot CLI kept after it runs', function () {
  this.timeout(60_000);
  let dir: string;
  let storage: string;
  let tmp: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-keep-'));
    storage = path.join(dir, 'storage');
    tmp = path.join(dir, 'tmp');
    mkdirSync(storage);
    mkdirSync(tmp);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const post = (command: string, textResultForLlm: string): string =>
    JSON.stringify({
      sessionId: 'sess-7',
      cwd: dir,
      toolName: 'bash',
      toolArgs: { command, description: 'Run' },
      toolResult: { resultType: 'success', textResultForLlm },
    });
  const hook = async (event: string): Promise<{ code: number; stdout: string; stderr: string }> => {
    const r = io({ BOUNDED_EVIDENCE_STORAGE: storage, TMPDIR: tmp }, event);
    const code = await runCli(['hook'], r, []);
    return { code, stdout: r.stdout, stderr: r.stderr };
  };
  const runs = async () => (await openSession(storage)).runs.listRuns();

  it("a small result: recorded with the session and exit code, no answer (the model keeps the CLI's text)", async () => {
    const r = await hook(post("printf 'out\\n'; exit 3", 'out\n<shellId: 0 completed with exit code 3>'));
    assert.deepEqual(r, { code: 0, stdout: '', stderr: '' });
    const kept = await runs();
    assert.deepEqual(
      kept.map((k) => [k.source, k.status]),
      [[{ kind: 'hook', agent: 'copilot-cli', sessionId: 'sess-7' }, 'completed']],
    );
  });

  it("a result the CLI saved: the whole file is kept, and the model gets the observation with the CLI's closing line", async () => {
    const file = path.join(tmp, '1796670546974-copilot-tool-output-1-abc.txt');
    const lines = Array.from({ length: 5000 }, (_, i) => (i === 2500 ? 'error: the one line' : `line ${i}`));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await hook(
      post(
        'make',
        `Output too large to read at once (40 KB). Saved to: ${file}\nConsider using tools.\n\nPreview (first 500 chars):\nline 0\n\n<shellId: 2 completed with exit code 2>`,
      ),
    );
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as { modifiedResult: { resultType: string; textResultForLlm: string } };
    assert.equal(answer.modifiedResult.resultType, 'success');
    const text = answer.modifiedResult.textResultForLlm;
    assert.match(text, /^exit code 2$/m);
    assert.match(text, /\nline 2501, byte \d+: error: the one line\n/);
    assert.match(text, /\n<shellId: 2 completed with exit code 2>$/);
    assert.ok(!text.includes(storage) && !text.includes(tmp), text);
    assert.equal((await runs()).length, 1);
  });

  it('a link in place of the saved file: nothing kept, no answer, one line saying why', async () => {
    const secret = path.join(dir, 'secret');
    writeFileSync(secret, 'x'.repeat(10_000));
    const file = path.join(tmp, '1-copilot-tool-output-2-abc.txt');
    symlinkSync(secret, file);
    const r = await hook(
      post(
        'cat x',
        `Output too large to read at once (10 KB). Saved to: ${file}\n\n<shellId: 0 completed with exit code 0>`,
      ),
    );
    assert.deepEqual([r.code, r.stdout], [0, '']);
    assert.match(r.stderr, /^bounded-evidence hook: the saved output is not a plain file; the tool runs unrouted\n$/);
    assert.equal((await runs()).length, 0);
  });
});
