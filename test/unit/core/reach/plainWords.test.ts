/**
 * The hook skips the shell's syntax check for plain words (src/core/reach/rewrite.ts `plainWords`): every command it
 * calls plain must parse in bash and zsh alone and inside its group, as `routable` would have asked them. Checked by
 * the real shells on generated commands (fast-check) built from plain and hostile pieces alike.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parsesIn } from '../../../../src/cli/hook.js';
import { plainWords, routable, wrapCommand } from '../../../../src/core/reach/rewrite.js';

const SHELLS = ['bash', 'zsh'];
const wrapped = (c: string): string =>
  wrapCommand(c, { spool: '/st/evidence/spool/0123456789ab', cli: "'/opt/be'", wholeBytes: 4096, sameLine: true });
const everyShellParses = (script: string): boolean => SHELLS.every((sh) => parsesIn(sh, script));

describe('plain words: routed without asking a shell, and every shell agrees', () => {
  it('plain commands are plain; operators, expansions, comments, open quotes and reserved first words are not', () => {
    for (const c of ['echo hi', 'npm test', 'node demo/build-log.js 38400', "grep -n 'error TS' build.log", 'a=1 b'])
      assert.equal(plainWords(c), true, c);
    for (const c of [
      'echo $HOME',
      'ls | wc',
      'a && b',
      'echo hi # x',
      "echo 'open",
      'if x',
      'done',
      'echo }',
      'echo a\nb',
      'cat <in',
      'echo "$x"',
      'echo `id`',
      'echo ~',
      'ls *',
    ])
      assert.equal(plainWords(c), false, c);
  });

  it('whatever is called plain parses alone and in its group in bash and zsh (fast-check, real shells)', () => {
    const piece = fc.constantFrom(
      'echo',
      'hi',
      'in',
      'do',
      'fi',
      'end',
      '-n',
      '--x=1',
      'a/b.c',
      "'a b'",
      "'}'",
      "'$(x)'",
      '"a b"',
      '"$x"',
      '%1',
      '=',
      '@',
      '+,',
      ':',
      '}',
      '{',
      ';',
      '#',
      '\\',
      "'",
      '"',
      '!',
      '&',
    );
    const sep = fc.constantFrom(' ', '  ', '\t', '');
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, sep), { minLength: 1, maxLength: 5 }), (parts) => {
        const command = parts.map(([p, s]) => p + s).join('');
        if (!plainWords(command)) return;
        assert.ok(everyShellParses(command), `alone: ${JSON.stringify(command)}`);
        assert.ok(everyShellParses(wrapped(command)), `wrapped: ${JSON.stringify(command)}`);
        // And `routable` says yes without the shell being asked.
        assert.deepEqual(
          routable(command, wrapped(command), () => false),
          { ok: true },
        );
      }),
      { numRuns: 150, seed: 31 },
    );
  });
});
