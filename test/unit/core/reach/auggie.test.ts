/**
 * Auggie (src/core/reach/agents/auggie.ts): MCP only, in `.augment/settings.json` (`~/.augment/settings.json`), with a
 * byte-identical uninstall. Auggie 0.36 applies a hook's `updatedInput` but judges the rewritten command again, and
 * needs a sign-in: no hook is written (the reasons in docs/agents.md, read from its bundled augment.mjs).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { auggie } from '../../../../src/core/reach/agents/auggie.js';
import { agentNamed } from '../../../../src/core/reach/agents/index.js';
import { doctorRows, runInit, verdictText } from '../../../../src/core/reach/agents/init.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { agentContext, MCP } from './agentContext.js';

const ctx = (over: Partial<AgentContext> = {}): AgentContext => agentContext('unused', over);

describe('Auggie: MCP only', () => {
  it('the server in .augment/settings.json (the user: ~/.augment/settings.json), no hook', () => {
    const [p] = auggie.plan(ctx(), 'project').edits as Extract<ConfigEdit, { kind: 'json' }>[];
    assert.deepEqual(
      [p!.file, p!.path, p!.value],
      ['/home/dev/project/.augment/settings.json', ['mcpServers', 'bounded-evidence'], MCP],
    );
    assert.deepEqual(
      auggie.plan(ctx(), 'global').edits.map((e) => e.file),
      ['/home/dev/.augment/settings.json'],
    );
    assert.equal(auggie.routes, undefined);
    assert.equal(agentNamed('augment'), auggie);
    assert.match(auggie.plan(ctx(), 'project').notes![0]!, /not routed/);
  });

  it("init, doctor (MCP only), uninstall: the person's settings.json comes back byte for byte", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'be-auggie-unit-'));
    try {
      const project = path.join(root, 'project');
      const settings = path.join(project, '.augment', 'settings.json');
      mkdirSync(path.dirname(settings), { recursive: true });
      const mine =
        '{\n  "model": "sonnet4.5",\n  "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "notify" }] }] }\n}\n';
      writeFileSync(settings, mine);
      const c = ctx({
        home: path.join(root, 'home'),
        project,
        stateDir: path.join(root, 'state'),
        exists: (f) => existsSync(f),
        readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
      });
      await runInit(c, { agents: [auggie], scope: 'project' });
      const doc = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;
      assert.deepEqual(Object.keys(doc), ['model', 'hooks', 'mcpServers']);
      const [row] = (await doctorRows(c, [auggie])).filter((r) => r.scope === 'project');
      assert.equal(verdictText(row!.verdict), 'MCP only');
      await runInit(c, { agents: [auggie], scope: 'project', uninstall: true });
      assert.equal(readFileSync(settings, 'utf8'), mine);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
