/**
 * The Copilot CLI's hook events (the CLI itself, and VS Code's Copilot harness, which runs its runtime), recorded from
 * @github/copilot 1.0.102 driven by test/agents/copilotCli.test.ts's scripted model (fixtures/copilot-cli-*.json, a
 * hook that saved its stdin). It shows its model rewritten arguments as the call it made, so `preToolUse` leaves bash
 * as written and `postToolUse` keeps the finished command; everything else of the CLI's is left alone.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decideHook, type HookContext, type HookDecision } from '../../../../src/core/reach/hookEvent.js';
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
const post = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'copilot-cli-post-bash.json'), 'utf8')) as Record<
  string,
  unknown
>;
const withResult = (textResultForLlm: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...post,
  toolResult: { resultType: 'success', textResultForLlm },
  ...over,
});
const SAVED = '/tmp/1796670546974-copilot-tool-output-18211-79842369-e5b6.txt';
const large = `Output too large to read at once (2.6 MB). Saved to: ${SAVED}\nConsider using tools like grep.\n\nPreview (first 500 chars):\n1\n2\n\n<shellId: 1 completed with exit code 4>`;

/** The decision without its answer function, and what that answer makes of an observation. */
function kept(d: HookDecision): { decision: Record<string, unknown>; answer: unknown } {
  assert.equal(d.action, 'keep', JSON.stringify(d));
  const { answer, ...decision } = d as Extract<HookDecision, { action: 'keep' }>;
  return { decision, answer: answer('the observation') };
}

describe('Copilot CLI hook events', () => {
  it('preToolUse on bash (recorded payload): left as written, whatever flags or client started the hook, and nothing is prepared', () => {
    metas.length = 0;
    for (const over of [{}, { allow: true }, { clientArgs: () => ['/usr/bin/copilot', '-p', 'x'] }])
      assert.deepEqual(decideHook(event, ctx(over)), {
        action: 'none',
        reason: 'the command runs as written and is kept from its result',
      });
    assert.deepEqual(metas, []);
  });

  it("postToolUse on bash (recorded payload): kept as the command, its output and exit code; over the bound the model gets the observation with the CLI's closing line", () => {
    const { decision, answer } = kept(decideHook(post, ctx()));
    assert.deepEqual(decision, {
      action: 'keep',
      agent: 'copilot-cli',
      sessionId: 'e17dad42-dcf5-478b-affa-2e1e13e786c4',
      cwd: '/tmp/agents-init/probe/ws',
      wholeBytes: 4096,
      // No MCP server of ours in its configuration: the observation names a read through the command line.
      read: `${CLI} read`,
      command: 'echo hello-from-bash',
      output: { text: 'hello-from-bash\n' },
      exitCode: 0,
    });
    assert.deepEqual(answer, {
      modifiedResult: {
        resultType: 'success',
        textResultForLlm: 'the observation\n<shellId: 0 completed with exit code 0>',
      },
    });
    // The documented string form of toolArgs is read the same.
    const asText = kept(decideHook({ ...post, toolArgs: JSON.stringify(post.toolArgs) }, ctx()));
    assert.deepEqual(asText.decision, decision);
  });

  it('a result the CLI saved to its temporary folder is kept from that file; a file named elsewhere, or any other name, is not read', () => {
    const env = { TMPDIR: '/tmp/' };
    const d = kept(decideHook(withResult(large), ctx({ env })));
    assert.deepEqual([d.decision.output, d.decision.exitCode], [{ file: SAVED }, 4]);
    const none = (text: string, over: Partial<HookContext> = { env }): string =>
      (decideHook(withResult(text), ctx(over)) as { reason: string }).reason;
    const elsewhere = "the saved output is not in the CLI's temporary folder";
    assert.equal(none(large, { env: { TMPDIR: '/home/u/tmp' } }), elsewhere);
    assert.equal(none(large.replace(SAVED, '/tmp/../etc/passwd')), elsewhere);
    assert.equal(none(large.replace(SAVED, '/tmp/id_rsa')), elsewhere);
    assert.equal(none(large.replace(SAVED, `/tmp/sub/${path.basename(SAVED)}`)), elsewhere);
    // Printed by the command itself, not at the head of the result: it is output like any other.
    const printed = `build\n${large}`;
    assert.deepEqual(kept(decideHook(withResult(printed), ctx({ env }))).decision.output, {
      text: printed.slice(0, printed.lastIndexOf('<shellId')),
    });
  });

  it('leaves alone: a command still running or started in the background (no exit code), another tool, our own routed text, a result without text', () => {
    const reason = (e: Record<string, unknown>, over: Partial<HookContext> = {}): string => {
      const d = decideHook(e, ctx(over));
      assert.equal(d.action, 'none');
      return (d as { reason: string }).reason;
    };
    const unfinished = 'the command has not finished (no exit code in its result)';
    assert.equal(reason(withResult('partial\n<shellId: 2 is still running>')), unfinished);
    assert.equal(reason(withResult('Started in the background: shellId 3')), unfinished);
    assert.equal(
      reason(withResult('x', { toolName: 'view', toolArgs: { path: '/x' } })),
      'PostToolUse recording is off',
    );
    assert.equal(
      reason(
        withResult('x\n<shellId: 0 completed with exit code 0>', { toolArgs: { command: `${CLI} capture -- ls` } }),
      ),
      'already routed',
    );
    assert.equal(reason({ ...post, toolResult: {} }), 'the event has no command and result text');
    assert.equal(reason({ ...event, toolName: 'powershell' }), 'preToolUse on powershell is not routed');
  });

  it("the shim lets the CLI's tool name through to Node (its prefilter would otherwise answer nothing)", () => {
    assert.ok(PREFILTER_PATTERNS.includes('"toolName":"bash"'));
  });

  it('a handle is read with what the Copilot CLI has: read_tool_output only with our MCP server, else the command line', () => {
    const readOf = (over: Partial<HookContext>): unknown => kept(decideHook(post, ctx(over))).decision.read;
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
});
