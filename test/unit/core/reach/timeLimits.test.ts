/**
 * The time limit each client's event gives the routed text's watcher (docs/contracts.md §6.1 "Time limits"), from
 * the recorded events in ./fixtures; the real clients prove the bytes at the limit in test/agents.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { wrapCommand } from '../../../../src/core/reach/rewrite.js';
import { decideHook, type HookContext } from '../../../../src/core/reach/hookEvent.js';

const FIXTURES = path.join(__dirname, 'fixtures');
const SPOOL = '/home/dev/.local/share/bounded-evidence/workspaces/p/evidence/spool/0123456789ab';
const NOW = 1_800_000_000_000;

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

const ctx = (files: Record<string, string> = {}, env: Record<string, string> = {}): HookContext => ({
  cli: `'/opt/be/bin/bounded-evidence'`,
  storage: '/home/dev/.local/share/bounded-evidence/workspaces/p',
  parses: () => true,
  prepare: () => SPOOL,
  env: { HOME: '/home/dev', ...env },
  readText: (f) => files[f],
  watchNow: () => NOW,
  allow: true,
});

/** The `watch` words of the routed command: the deadline and, for a limit on silence, that limit. */
function watchOf(event: Record<string, unknown>, c: HookContext): string | undefined {
  const d = decideHook(event, c);
  assert.equal(d.action, 'rewrite', JSON.stringify(d));
  const command = (d as { command: string }).command;
  return / watch '[^']*' \$\$ (\d+ \d+(?: \d+)?) \$\?; /.exec(command)?.[1];
}

const withInput = (event: Record<string, unknown>, key: string, more: Record<string, unknown>) => ({
  ...event,
  [key]: { ...(event[key] as Record<string, unknown>), ...more },
});

describe('Reach: the time limit in each client’s routed text', () => {
  it('Gemini CLI: its inactivity limit from the settings (system, then project, then user), 300 s by default', () => {
    const event = fixture('gemini-0.61-run_shell_command.json');
    const user = '/home/dev/.gemini/settings.json';
    const project = '/home/dev/project/.gemini/settings.json';
    // Default: 300 s, looked at 10 s before; the last word is the limit on silence.
    assert.equal(watchOf(event, ctx()), `${NOW + 290_000} 4096 300000`);
    // Comments are allowed in its settings.
    const four = '{\n  // mine\n  "tools": { "shell": { "inactivityTimeout": 4 } }\n}\n';
    assert.equal(watchOf(event, ctx({ [user]: four })), `${NOW + 2_667} 4096 4000`);
    const project60 = JSON.stringify({ tools: { shell: { inactivityTimeout: 60 } } });
    assert.equal(watchOf(event, ctx({ [user]: four, [project]: project60 })), `${NOW + 50_000} 4096 60000`);
    const system = '/etc/gemini-cli/settings.json';
    assert.equal(
      watchOf(
        event,
        ctx({ [system]: JSON.stringify({ tools: { shell: { inactivityTimeout: 9 } } }), [project]: project60 }),
      ),
      `${NOW + 6_000} 4096 9000`,
    );
    // 0: Gemini CLI waits as long as it takes, so no watcher.
    const off = JSON.stringify({ tools: { shell: { inactivityTimeout: 0 } } });
    assert.equal(watchOf(event, ctx({ [user]: off })), undefined);
    // Not a number, or not JSON: the next file, then the default.
    assert.equal(watchOf(event, ctx({ [project]: '{ "tools": ', [user]: four })), `${NOW + 2_667} 4096 4000`);
    const text = JSON.stringify({ tools: { shell: { inactivityTimeout: '4' } } });
    assert.equal(watchOf(event, ctx({ [user]: text })), `${NOW + 290_000} 4096 300000`);
  });

  it('the Copilot CLI: no watcher, whatever its `initial_wait` (its bash is not rewritten)', () => {
    const event = fixture('copilot-cli-bash.json');
    for (const initial_wait of [undefined, 4, 120])
      assert.equal(decideHook(withInput(event, 'toolArgs', { initial_wait }), ctx()).action, 'none');
  });

  it('no watcher where the command line is not the shim (no clock given)', () => {
    const event = fixture('gemini-0.61-run_shell_command.json');
    const d = decideHook(event, { ...ctx(), watchNow: undefined });
    assert.doesNotMatch((d as { command: string }).command, / watch /);
  });

  it('wrapCommand refuses a limit on silence that is not a positive whole number', () => {
    for (const watchIdle of [0, -1, 1.5, Number.NaN])
      assert.throws(
        () => wrapCommand('true', { spool: SPOOL, cli: 'be', wholeBytes: 4096, watchUntil: NOW, watchIdle }),
        /watchIdle must be a positive whole number/,
      );
  });
});
