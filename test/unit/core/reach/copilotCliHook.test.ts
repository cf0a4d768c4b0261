/**
 * The Copilot CLI's hook events (the CLI itself, and VS Code's Copilot harness, which runs its runtime): the
 * `preToolUse` payload recorded from @github/copilot 1.0.102 driven by test/agents/copilotCli.test.ts's scripted
 * model (fixtures/copilot-cli-bash.json, a hook that saved its stdin) is answered `{ modifiedArgs }` with the whole
 * arguments and the command wrapped; the documented string form of `toolArgs` is read too; everything else of
 * the CLI's is left alone.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decideHook, type HookContext } from '../../../../src/core/reach/hookEvent.js';
import { wrapCommand } from '../../../../src/core/reach/rewrite.js';
import { readThroughShell } from '../../../../src/cli/recordSpool.js';
import { portableCommand } from '../../../../src/core/reach/locate.js';
import { PREFILTER_PATTERNS } from '../../../../src/core/reach/shim.js';

const event = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'copilot-cli-bash.json'), 'utf8')) as Record<
  string,
  unknown
>;
const CLI = `'/opt/be/bin/bounded-evidence'`;
const SPOOL = '/st/evidence/spool/0123456789ab';
const metas: unknown[] = [];
const ctx = (over: Partial<HookContext> = {}): HookContext => ({
  cli: CLI,
  storage: '/st',
  parses: () => true,
  prepare: (_c, meta) => {
    metas.push(meta);
    return SPOOL;
  },
  ...over,
});
const wrapped = wrapCommand('echo hello-from-bash', { spool: SPOOL, cli: CLI, wholeBytes: 4096, sameLine: true });

describe('Copilot CLI hook events', () => {
  it('preToolUse on bash (recorded payload): modifiedArgs with the description kept, no permission decision unless --allow; the session recorded', () => {
    metas.length = 0;
    assert.deepEqual(decideHook(event, ctx()), {
      action: 'rewrite',
      agent: 'copilot-cli',
      command: wrapped,
      answer: { modifiedArgs: { command: wrapped, description: 'say hi' } },
    });
    // No MCP server of ours in its configuration: the observation will name a read through the command line.
    assert.deepEqual(metas, [
      {
        agent: 'copilot-cli',
        sessionId: '7fab5d66-ed7f-42cd-b12b-b9c7fbb3e9b6',
        cwd: '/tmp/agents-init/probe/ws',
        read: `${CLI} read`,
      },
    ]);
    assert.deepEqual((decideHook(event, ctx({ allow: true })) as { answer: unknown }).answer, {
      permissionDecision: 'allow',
      modifiedArgs: { command: wrapped, description: 'say hi' },
    });
  });

  it("the Copilot CLI without a flag allowing every shell command: left as written (its rules would see our form); VS Code's agent host and unknown parents: routed", () => {
    const decide = (args: string[] | undefined): string => {
      const d = decideHook(event, ctx({ clientArgs: () => args }));
      return d.action === 'rewrite' ? 'routed' : (d as { reason: string }).reason;
    };
    const bin = '/usr/lib/node_modules/@github/copilot-linux-x64/copilot';
    assert.equal(
      decide([bin, '-p', 'x', '--allow-tool', 'shell(printf)']),
      'the Copilot CLI would ask about it (no --allow-all-tools): it decides on the command as written',
    );
    assert.equal(decide(['/usr/bin/copilot']), decide([bin, '-p', 'x', '--allow-tool', 'shell(printf)']));
    for (const allowing of [
      ['--allow-all-tools'],
      ['--allow-all'],
      ['--yolo'],
      ['--allow-tool', 'shell'],
      ['--allow-tool=write,shell'],
    ])
      assert.equal(decide([bin, '-p', 'x', ...allowing]), 'routed', allowing.join(' '));
    assert.equal(decide(['node', '/opt/vscode/out/agentHost.js']), 'routed');
    assert.equal(decide(undefined), 'routed');
  });

  it('toolArgs as a JSON text (the documented form) is read the same', () => {
    const d = decideHook({ ...event, toolArgs: JSON.stringify(event.toolArgs) }, ctx());
    assert.deepEqual((d as { answer: unknown }).answer, { modifiedArgs: { command: wrapped, description: 'say hi' } });
  });

  it('leaves alone: powershell, other tools, async or detached commands, a postToolUse, toolArgs that are not an object', () => {
    const none = (e: Record<string, unknown>): string => {
      const d = decideHook(e, ctx());
      assert.equal(d.action, 'none');
      return (d as { reason: string }).reason;
    };
    assert.equal(none({ ...event, toolName: 'powershell' }), 'preToolUse on powershell is not routed');
    assert.equal(none({ ...event, toolName: 'view', toolArgs: { path: '/x' } }), 'preToolUse on view is not routed');
    assert.equal(
      none({ ...event, toolArgs: { command: 'npm run dev', mode: 'async' } }),
      'asynchronous or interactive commands stay in the terminal',
    );
    assert.equal(
      none({ ...event, toolArgs: { command: 'npm run dev', detach: true } }),
      'background commands stay in the terminal',
    );
    assert.equal(
      none({ ...event, toolResult: { resultType: 'success', textResultForLlm: 'x' } }),
      'PostToolUse recording is off',
    );
    assert.equal(none({ ...event, toolArgs: 'not json' }), 'the event has no toolArgs object');
  });

  it("the shim lets the CLI's tool name through to Node (its prefilter would otherwise answer nothing)", () => {
    assert.ok(PREFILTER_PATTERNS.includes('"toolName":"bash"'));
  });

  it('a handle is read with what the Copilot CLI has: read_tool_output only with our MCP server, else the command line', () => {
    const readOf = (over: Partial<HookContext>): unknown => {
      metas.length = 0;
      decideHook(event, ctx(over));
      return (metas[0] as { read?: string }).read;
    };
    const mcpConfig = JSON.stringify({
      mcpServers: { 'bounded-evidence': { type: 'local', command: 'sh', args: ['-c', portableCommand(['mcp'])] } },
    });
    const home = { HOME: '/home/u' };
    assert.equal(
      readOf({ env: home, readText: (f) => (f === '/home/u/.copilot/mcp-config.json' ? mcpConfig : undefined) }),
      undefined,
    );
    assert.equal(
      readOf({ env: home, which: (p) => (p === 'bounded-evidence' ? '/usr/bin/bounded-evidence' : undefined) }),
      'bounded-evidence read',
    );
    assert.equal(
      readOf({ env: { ...home, BOUNDED_EVIDENCE_CLI: '/x/bin/bounded-evidence' } }),
      '"$BOUNDED_EVIDENCE_CLI" read',
    );
    // The observation then names that read, with the same handle and arguments.
    const observation = [
      'Read more: read_tool_output {"handle":"out_abc"} with "pattern" (regex), "offset"/"limit" or "bytes"',
      `More: read_tool_output ${JSON.stringify({ handle: 'out_abc', pattern: "error|it's", offset: 5 })}`,
    ].join('\n');
    assert.equal(
      readThroughShell(observation, 'bounded-evidence read'),
      [
        'Read more: bounded-evidence read out_abc with --pattern REGEX, --offset N --limit N or --bytes START-END',
        `More: bounded-evidence read out_abc --pattern 'error|it'\\''s' --offset 5`,
      ].join('\n'),
    );
  });

  it('postToolUse (recorded payload): with recording on, a large result is kept as the text the CLI gave its model', () => {
    const post = JSON.parse(
      readFileSync(path.join(__dirname, 'fixtures', 'copilot-cli-post-bash.json'), 'utf8'),
    ) as Record<string, unknown>;
    assert.deepEqual(decideHook(post, ctx({ recordPostToolUse: true, largeResultBytes: 8 })), {
      action: 'record',
      agent: 'copilot-cli',
      sessionId: 'e17dad42-dcf5-478b-affa-2e1e13e786c4',
      tool: 'bash',
      response: 'hello-from-bash\n<shellId: 0 completed with exit code 0>',
    });
    assert.equal(decideHook(post, ctx({ recordPostToolUse: true })).action, 'none');
  });

  it("in a VS Code terminal's environment the routed text names the storage and the command line by its variables, no path", () => {
    const env = { BOUNDED_EVIDENCE_CLI: '/opt/be/bin/bounded-evidence', BOUNDED_EVIDENCE_STORAGE: '/st' };
    const d = decideHook(event, ctx({ env, terminalStorage: '/st' })) as { command: string };
    const spool = '"$BOUNDED_EVIDENCE_STORAGE"/evidence/spool/0123456789ab';
    assert.equal(
      d.command,
      `{ echo hello-from-bash ; } 8>>${spool}/1.$$ 9>>${spool}/2 1>&8 2>&9 8>&- 9>&-; "$BOUNDED_EVIDENCE_CLI" keep ${spool} $? 4096`,
    );
    // Another storage or another command line than the terminal's: their paths, as before.
    assert.equal((decideHook(event, ctx({ env, terminalStorage: '/other' })) as { command: string }).command, wrapped);
    const otherCli = { ...env, BOUNDED_EVIDENCE_CLI: '/elsewhere/bounded-evidence' };
    assert.equal(
      (decideHook(event, ctx({ env: otherCli, terminalStorage: '/st' })) as { command: string }).command,
      wrapped,
    );
  });
});
