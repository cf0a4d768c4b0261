/**
 * The opencode plugin init writes (src/core/reach/agents/opencode.ts), loaded as opencode loads it (an ES module) and
 * called with the `tool.execute.before` arguments recorded from the real opencode 1.18.33
 * (fixtures/opencode-1.18.33-tool.execute.before.json, from a run against the scripted model): the hook it runs
 * gets a PreToolUse event naming opencode's session, and its answer's command replaces the bash command; other tools,
 * an empty answer and a failing hook leave the arguments exactly as they were. The real opencode runs it in
 * test/agents/opencode.test.ts.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { opencodePluginText, PLUGIN_MARK } from '../../../../src/core/reach/agents/opencode.js';
import { wrapCommand } from '../../../../src/core/reach/rewrite.js';

type Part = { type: string; tool?: string; callID?: string; state?: { input?: Record<string, unknown> } };
type Hooks = {
  'tool.execute.before': (input: unknown, output: { args: Record<string, unknown> }) => Promise<void>;
  'experimental.chat.messages.transform': (input: unknown, output: { messages: { parts: Part[] }[] }) => Promise<void>;
};
const recorded = JSON.parse(
  readFileSync(path.join(__dirname, 'fixtures', 'opencode-1.18.33-tool.execute.before.json'), 'utf8'),
) as { input: { tool: string; sessionID: string }; output: { args: Record<string, unknown> } };

describe('opencode plugin (recorded opencode 1.18.33 arguments)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'be-oc-plugin-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function load(hookCommand: string): Promise<Hooks> {
    const file = path.join(dir, `p${Math.random().toString(36).slice(2)}.mjs`);
    const text = opencodePluginText(hookCommand);
    assert.ok(text.startsWith(PLUGIN_MARK));
    assert.doesNotMatch(text, /^import .* from "(?!node:)/m, 'imports nothing but node: modules');
    writeFileSync(file, text);
    const mod = (await import(pathToFileURL(file).href)) as {
      BoundedEvidence: (ctx: { directory: string }) => Promise<Hooks>;
    };
    return mod.BoundedEvidence({ directory: '/home/dev/project' });
  }

  it("bash: the hook gets the event, its command replaces the arguments' command (other arguments kept)", async () => {
    const seen = path.join(dir, 'event.json');
    const hooks = await load(
      `cat > '${seen}'; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"routed"}}}'`,
    );
    const output = structuredClone(recorded.output);
    await hooks['tool.execute.before'](recorded.input, output);
    assert.deepEqual(output.args, { command: 'routed', description: 'x' });
    assert.deepEqual(JSON.parse(readFileSync(seen, 'utf8')), {
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      session_id: recorded.input.sessionID,
      cwd: '/home/dev/project',
      tool_input: { command: 'echo hi; exit 3' },
    });
  });

  it('leaves the arguments alone: another tool, no answer, a failing or garbled hook', async () => {
    for (const [hook, input] of [
      [
        `printf '%s' '{"hookSpecificOutput":{"updatedInput":{"command":"routed"}}}'`,
        { ...recorded.input, tool: 'read' },
      ],
      ['true', recorded.input],
      ['exit 2', recorded.input],
      ["printf 'not json'", recorded.input],
    ] as const) {
      const hooks = await load(hook);
      const output = structuredClone(recorded.output);
      await hooks['tool.execute.before'](input, output);
      assert.deepEqual(output.args, recorded.output.args, hook);
    }
  });

  it('shows its model the command it wrote: the routed text of a call replaced in the messages it is sent', async () => {
    const spool = '/home/dev/.local/share/bounded-evidence/workspaces/p-0123456789abcdef/evidence/spool/0a1b2c3d4e5f';
    const routed = (command: string, sameLine: boolean, watchUntil?: number): string =>
      wrapCommand(command, {
        spool,
        cli: "'/home/dev/bin/bounded-evidence'",
        wholeBytes: 4096,
        sameLine,
        ...(watchUntil === undefined ? {} : { watchUntil }),
      });
    const answer = path.join(dir, 'answer.json');
    writeFileSync(
      answer,
      JSON.stringify({ hookSpecificOutput: { updatedInput: { command: routed('echo hi; exit 3', true) } } }),
    );
    const hooks = await load(`cat >/dev/null; cat '${answer}'`);
    const output = structuredClone(recorded.output);
    await hooks['tool.execute.before']({ ...recorded.input, callID: 'call_1' }, output);
    assert.equal(output.args.command, routed('echo hi; exit 3', true));
    const bash = (callID: string, command: string): Part => ({
      type: 'tool',
      tool: 'bash',
      callID,
      state: { input: { command, description: 'x' } },
    });
    const messages = [
      {
        parts: [
          { type: 'text' },
          bash('call_1', output.args.command as string),
          // A call this process did not route (before a restart): told by the routed form itself, any layout.
          bash('call_0', routed("printf 'a\\n' # note", false)),
          bash('call_2', routed('ls', true, 1_765_000_000_000)),
          bash('call_3', 'plain'),
          { type: 'tool', tool: 'read', callID: 'call_4', state: { input: { filePath: '/x' } } },
        ],
      },
    ];
    await hooks['experimental.chat.messages.transform']({}, { messages });
    assert.deepEqual(
      messages[0]!.parts.map((p) => p.state?.input),
      [
        undefined,
        ...['echo hi; exit 3', "printf 'a\\n' # note", 'ls', 'plain'].map((command) => ({ command, description: 'x' })),
        { filePath: '/x' },
      ],
    );
  });
});
