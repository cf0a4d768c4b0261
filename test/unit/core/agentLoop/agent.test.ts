import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import {
  agentSystemPrompt,
  parseAgentAction,
  runAgent,
  type ChatMessage,
} from '../../../../src/core/agentLoop/agent.js';
import { ArtifactStore } from '../../../../src/core/artifacts/artifacts.js';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { BoundedEvidenceWorkspace } from '../../../../src/core/workspace/evidenceWorkspace.js';
import { LocalWorkspace } from '../../../../src/core/workspace/localWorkspace.js';
import { jsonAfterFirstLine, ScriptedWorkspace, tempDir } from '../evidence/helpers.js';

/** A model that answers from a list, recording the messages it was shown. */
function scripted(replies: (string | ((messages: readonly ChatMessage[]) => string))[]) {
  const seen: (readonly ChatMessage[])[] = [];
  const generate = (messages: readonly ChatMessage[]): string => {
    seen.push(messages);
    const next = replies[seen.length - 1];
    if (next === undefined) throw new Error('model ran out of replies');
    return typeof next === 'string' ? next : next(messages);
  };
  return { generate, seen };
}

const INVALID =
  'error: invalid action: reply with exactly one JSON object: {"tool":"<name>", ...arguments as flat keys} or {"final":"<answer>"}';

describe('agent loop (1.4)', () => {
  describe('reading actions', () => {
    it('reads a tool call with flat arguments, and a final answer', () => {
      assert.deepEqual(parseAgentAction('{"tool":"read_file","path":"a.txt"}'), {
        tool: 'read_file',
        arguments: { path: 'a.txt' },
      });
      assert.deepEqual(parseAgentAction(' {"tool":"run_command","command":"npm","args":["test"]}\n'), {
        tool: 'run_command',
        arguments: { command: 'npm', args: ['test'] },
      });
      assert.deepEqual(parseAgentAction('{"final":"done ✓"}'), { final: 'done ✓' });
      assert.deepEqual(parseAgentAction('{"tool":"list_files"}'), { tool: 'list_files', arguments: {} });
    });

    it('accepts exactly one fenced block around the JSON, nothing more lenient', () => {
      assert.deepEqual(parseAgentAction('```json\n{"final":"x"}\n```'), { final: 'x' });
      assert.deepEqual(parseAgentAction('```\n{"tool":"list_files"}\n```'), { tool: 'list_files', arguments: {} });
      assert.deepEqual(parseAgentAction('Sure! {"final":"x"}'), { error: INVALID });
      assert.deepEqual(parseAgentAction('```json\n{"final":"x"}\n```\nmore'), { error: INVALID });
    });

    it('explains what is wrong with an invalid action', () => {
      for (const bad of ['', 'read the file', '[]', 'null', '"final"', '42', '{"tool":"a"} {"tool":"b"}']) {
        assert.deepEqual(parseAgentAction(bad), { error: INVALID }, bad);
      }
      assert.deepEqual(parseAgentAction('{"final":"x","tool":"read_file"}'), {
        error: 'error: invalid action: give either "tool" or "final", not both',
      });
      assert.deepEqual(parseAgentAction('{"final":42}'), { error: 'error: invalid action: "final" must be a string' });
      for (const bad of ['{}', '{"tool":""}', '{"tool":7}', '{"path":"a"}']) {
        assert.deepEqual(
          parseAgentAction(bad),
          {
            error: `error: invalid action: "tool" must be a tool name; ${INVALID.slice('error: invalid action: '.length)}`,
          },
          bad,
        );
      }
    });

    it('keeps a "__proto__" key as an ordinary argument', () => {
      const a = parseAgentAction('{"tool":"x","__proto__":{"polluted":true}}');
      assert.ok('arguments' in a);
      assert.equal(Object.getPrototypeOf(a.arguments), Object.prototype);
      assert.deepEqual(Object.keys(a.arguments), ['__proto__']);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it("tells the model the format and the workspace's tools", () => {
      const prompt = agentSystemPrompt(new ScriptedWorkspace(() => ''));
      assert.match(prompt, /\{"tool":"<name>", \.\.\.arguments as flat keys\} or \{"final":"<answer>"\}/);
      assert.match(prompt, /- read_file: reads Arguments: "path" \(string\)\./);
    });
  });

  describe('running', () => {
    it('stops on a final answer; every turn is an event, the final one with a null result', async () => {
      const ws = new ScriptedWorkspace(() => 'file text');
      const model = scripted(['{"tool":"read_file","path":"a.txt"}', '{"final":"it says file text"}']);
      const run = await runAgent('What does a.txt say?', model.generate, ws);
      assert.deepEqual(run, {
        completed: true,
        reason: 'final',
        final: 'it says file text',
        events: [
          {
            step: 1,
            response: '{"tool":"read_file","path":"a.txt"}',
            action: { tool: 'read_file', arguments: { path: 'a.txt' } },
            result: 'file text',
          },
          { step: 2, response: '{"final":"it says file text"}', action: { final: 'it says file text' }, result: null },
        ],
      });
      assert.deepEqual(ws.calls, [
        { action: { tool: 'read_file', arguments: { path: 'a.txt' } }, toolCallId: 'call-1' },
      ]);
      // The model saw: system, task; then its reply and the tool result as the next user message.
      assert.deepEqual(
        model.seen[1]!.map((m) => m.role),
        ['system', 'user', 'assistant', 'user'],
      );
      assert.equal(model.seen[1]![1]!.content, 'What does a.txt say?');
      assert.equal(model.seen[1]![3]!.content, 'file text');
      assert.equal(model.seen[0]!.length, 2, 'each call gets its own snapshot of the conversation');
    });

    it('stops after maxSteps model turns', async () => {
      const ws = new ScriptedWorkspace((a) => `read ${String(a.arguments.path)}`);
      const model = scripted([
        '{"tool":"read_file","path":"1"}',
        '{"tool":"read_file","path":"2"}',
        '{"tool":"read_file","path":"3"}',
      ]);
      const run = await runAgent('task', model.generate, ws, { maxSteps: 2 });
      assert.equal(run.completed, false);
      assert.equal(run.reason, 'max_steps');
      assert.equal(run.final, null);
      assert.deepEqual(
        run.events.map((e) => e.result),
        ['read 1', 'read 2'],
      );
    });

    it('sends an invalid action back as an error line, and stops after maxInvalidActions', async () => {
      const ws = new ScriptedWorkspace(() => 'ok');
      const model = scripted(['not json', '{"tool":"read_file","path":"a"}', '{"final":3}', '[]']);
      const run = await runAgent('task', model.generate, ws, { maxInvalidActions: 3 });
      assert.equal(run.reason, 'max_invalid_actions');
      assert.equal(run.completed, false);
      assert.deepEqual(
        run.events.map((e) => [e.step, e.action === null, e.result]),
        [
          [1, true, INVALID],
          [2, false, 'ok'],
          [3, true, 'error: invalid action: "final" must be a string'],
          [4, true, INVALID],
        ],
      );
      assert.equal(model.seen[1]!.at(-1)!.content, INVALID);
      assert.equal(ws.calls.length, 1);
    });

    it('refuses the same action past maxIdenticalActions in a row and stops', async () => {
      const ws = new ScriptedWorkspace(() => 'same');
      const same = '{"tool":"read_file","path":"a"}';
      const model = scripted([same, '{"path":"a","tool":"read_file"}', same, same]);
      const run = await runAgent('task', model.generate, ws, { maxIdenticalActions: 3 });
      assert.equal(run.reason, 'max_identical_actions');
      assert.equal(ws.calls.length, 3, 'key order does not make an action different');
      assert.equal(run.events[3]!.result, 'error: the same action ran 3 times in a row; stopping');
      // A different action in between resets the count.
      const ws2 = new ScriptedWorkspace(() => 'x');
      const other = '{"tool":"read_file","path":"b"}';
      const run2 = await runAgent('task', scripted([same, same, other, same, same, '{"final":"f"}']).generate, ws2, {
        maxIdenticalActions: 2,
      });
      assert.equal(run2.reason, 'final');
      assert.equal(ws2.calls.length, 5);
    });

    it('accepts async models and refuses bad limits', async () => {
      const run = await runAgent('t', async () => '{"final":"async"}', new ScriptedWorkspace(() => ''));
      assert.equal(run.final, 'async');
      await assert.rejects(
        runAgent('t', () => '', new ScriptedWorkspace(() => ''), { maxSteps: 0 }),
        /positive integers/,
      );
    });
  });

  describe('the deterministic loop: a diagnostic outside both previews', () => {
    let t: ReturnType<typeof tempDir>;
    beforeEach(() => {
      t = tempDir('loop');
    });
    afterEach(() => t.cleanup());

    it('reads the observation, asks for the exact diagnostic range, and answers; the store keeps the whole log', async () => {
      const root = path.join(t.dir, 'project');
      const storeRoot = path.join(t.dir, 'store');
      await fsp.mkdir(root);
      await fsp.mkdir(storeRoot);
      const noise = (from: number, n: number): string =>
        Array.from({ length: n }, (_, i) => `[build] compiled module ${from + i} of 900 ✓\n`).join('');
      const diagnostic =
        "src/core/evidence.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'. — “bytes” ≠ 😀\n";
      const log = noise(0, 400) + diagnostic + noise(400, 500);
      await fsp.writeFile(path.join(root, 'build.log'), log);
      const logBytes = new TextEncoder().encode(log);
      const start = new TextEncoder().encode(noise(0, 400)).length;
      const end = start + new TextEncoder().encode(diagnostic).length;

      const store = new ArtifactStore({ blobs: await FsBlobStore.open(storeRoot, { sweep: false }), tenant: 't' });
      const workspace = new BoundedEvidenceWorkspace(await LocalWorkspace.open({ root }), store);
      const model = scripted([
        '{"tool":"read_file","path":"build.log"}',
        (messages) => {
          // Only facts from the observation: its artifact id and the omitted gap.
          const o = jsonAfterFirstLine(messages.at(-1)!.content);
          const [gapStart, gapEnd] = o.omitted_range as [number, number];
          assert.ok(gapStart <= start && end <= gapEnd, 'the diagnostic sits outside both previews');
          return JSON.stringify({
            tool: 'read_file',
            path: `.tool-artifacts/${o.artifact_id as string}/bytes/${start}-${end}`,
          });
        },
        (messages) => JSON.stringify({ final: (jsonAfterFirstLine(messages.at(-1)!.content).data as string).trim() }),
      ]);
      const run = await runAgent('Why did the build fail?', model.generate, workspace, { maxSteps: 3 });

      assert.equal(run.completed, true);
      assert.equal(run.final, diagnostic.trim());
      assert.equal(run.events.length, 3);
      const [read, range, final] = run.events as [
        (typeof run.events)[0],
        (typeof run.events)[0],
        (typeof run.events)[0],
      ];
      assert.match(read.result!, /^Tool result externalized:\n/);
      assert.ok(Buffer.byteLength(read.result!) <= 512);
      assert.ok(!read.result!.includes('error TS2322'), 'the observation does not show the diagnostic');
      const sha = jsonAfterFirstLine(read.result!).sha256 as string;
      assert.equal(
        range.result,
        `Artifact range:\n${JSON.stringify({
          artifact_id: `artifact-${sha}`,
          byte_count: end - start,
          data: diagnostic,
          end,
          sha256: sha,
          start,
          total_byte_count: logBytes.length,
        })}`,
      );
      assert.equal(final.result, null);
      // The model was shown only the bounded observation, then only the selected range.
      assert.deepEqual(
        model.seen[2]!.filter((m) => m.role === 'user').map((m) => m.content),
        ['Why did the build fail?', read.result, range.result],
      );
      assert.deepEqual(new Uint8Array(await fsp.readFile(path.join(storeRoot, 't', 'artifacts', sha))), logBytes);
      assert.equal(await store.verify(`artifact-${sha}`), true);
    });
  });
});
